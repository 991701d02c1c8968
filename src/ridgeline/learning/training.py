"""Fit the learned model on the derived feature table: the GPU and counted columns added to
its rows, then the fit on the HeCBench rows."""

from __future__ import annotations

import pandas as pd

from ridgeline.hardware import get_gpu
from ridgeline.learning.columns import features_frame
from ridgeline.learning.counted import attach_counted
from ridgeline.learning.model import CountModel
from ridgeline.learning.shipped import fit_table

__all__ = ["train_from_table", "with_gpu_features"]


def with_gpu_features(table: pd.DataFrame, counted: pd.DataFrame | None = None
                      ) -> pd.DataFrame:
    """GPU catalog columns added; counted columns (the shipped counted table, or *counted*)
    attached when the table lacks them."""
    if "c_has" not in table or counted is not None:
        err = table["error"].to_numpy() if "error" in table else None
        table = attach_counted(table, counted)
        if err is not None:
            table["error"] = err
    gpus = [get_gpu(g) for g in table["gpu"]]
    launch_cols = [c for c in table.columns if c not in ("error",)]
    base = table[launch_cols].reset_index(drop=True)
    full = features_frame(base, gpus)
    full["error"] = table["error"].fillna("").to_numpy()
    return full


def train_from_table(table: pd.DataFrame, **kw: object) -> CountModel:
    """Fit on the hecbench rows of a built table (paper-a rows are evaluation only)."""
    t = with_gpu_features(table[table["dataset"] == "hecbench"])
    return fit_table(t, **kw)
