"""Build the derived feature table from program sources + ground truth (fitted by
:mod:`ridgeline.learning.training`).

The table holds only derived numbers (launch features, measured counts, identifiers), never
source code, so it may ship inside the package next to the model.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ridgeline import datasets
from ridgeline.learning.columns import TARGETS
from ridgeline.predictors.batch import analyze_rows

__all__ = ["ID_COLUMNS", "build_table"]

#: ``kernel_signature``: the profiler's full kernel name where a dataset has one (paper-a's
#: ``Kernel Name``, ``void k<float>(T1 *, int)``: which template instantiation), else ""
ID_COLUMNS = ["dataset", "source", "program", "kernel", "model_type", "gpu", "grid_size",
              "block_size", "exe_args", "label", "kernel_signature"]


def _rows(data_dir: str | Path | None) -> pd.DataFrame:
    h = datasets.load("hecbench", data_dir)
    h["dataset"] = "hecbench"
    h["label"] = ""
    h["kernel_signature"] = ""
    p = datasets.load("paper-a", data_dir)
    p["dataset"] = "paper-a"
    p["grid_size"] = p["Grid Size"]
    p["block_size"] = p["Block Size"]
    cols = ID_COLUMNS + TARGETS
    return pd.concat([h[cols], p[cols]], ignore_index=True)


def build_table(sources: str | Path, data_dir: str | Path | None = None,
                jobs: int | None = None, progress: bool = True) -> pd.DataFrame:
    """Identifiers, measured targets and analysed launch features of every shared row."""
    rows = _rows(data_dir)
    keys = ["source", "kernel", "model_type", "grid_size", "block_size", "exe_args"]
    uniq = rows[keys].astype(str).drop_duplicates().reset_index(drop=True)
    feats = analyze_rows(uniq, Path(sources), jobs=jobs, progress=progress)
    uniq = pd.concat([uniq, feats], axis=1)
    merged = rows.astype({k: str for k in keys}).merge(uniq, on=keys, how="left")
    return merged
