"""Out-of-program count predictions of the HeCBench rows, for protocols that score counts.

Development rows are predicted under the program-grouped CV of ``ridgeline eval --task
hecbench`` (same folds, same seed, same models: each fold's model never saw the fold's
programs); sealed rows (:mod:`ridgeline.datasets.sealed`) by one model trained on every
development row. Counts come from the prediction path of ``ridgeline predict``: the CPU
counts of the shipped counted table where a row has them (``c_has``), the learned model (or
the analysed source where every loop's trip count evaluated) elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ridgeline import datasets
from ridgeline.datasets import sealed_mask
from ridgeline.errors import SchemaError
from ridgeline.evaluation.out_of_program import out_of_program_predictions, prepared_rows

__all__ = ["MEASURED_COLUMNS", "with_loader_measurements", "development_predictions",
           "sealed_predictions"]

#: measured counts taken from the ``hecbench`` loader (kernel-performance.csv)
MEASURED_COLUMNS = ("flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes", "time_ns")
_KEYS = ("source", "kernel", "gpu", "exe_args")


def with_loader_measurements(table: pd.DataFrame, data_dir: Any = None) -> pd.DataFrame:
    """*table* (the feature table) with the measured counts of its HeCBench rows read again
    through the ``hecbench`` dataset loader, row by row (the table was built from the same
    file in the same order; a table whose rows do not line up with the file is refused)."""
    h = datasets.load("hecbench", data_dir)
    hb = (table["dataset"] == "hecbench").to_numpy()
    rows = table[hb]
    if len(rows) != len(h):
        raise SchemaError(f"the feature table has {len(rows)} HeCBench rows, the hecbench "
                          f"dataset {len(h)}; rebuild the table (`ridgeline train "
                          "--sources DIR`) from the data it is evaluated against")
    for k in _KEYS:
        a, b = rows[k].astype(str).to_numpy(), h[k].astype(str).to_numpy()
        bad = np.flatnonzero(a != b)
        if len(bad):
            raise SchemaError(f"feature table row {int(np.flatnonzero(hb)[bad[0]])} has "
                              f"{k}={a[bad[0]]!r} where the hecbench dataset has {b[bad[0]]!r} "
                              f"({len(bad)} rows differ); rebuild the table from this data")
    out = table.copy()
    for c in MEASURED_COLUMNS:
        out.loc[hb, c] = h[c].to_numpy(float)
    return out


def development_predictions(table: pd.DataFrame, folds: int = 5, seed: int = 4839
                            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows, predictions) of the development programs' HeCBench rows, each predicted by the
    fold model that did not see its program (``hecbench`` task's CV)."""
    full = prepared_rows(table[~sealed_mask(table)].reset_index(drop=True))
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    return hb, out_of_program_predictions(hb, hb, folds, seed)


def sealed_predictions(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows, predictions) of the sealed programs' HeCBench rows, from one model trained on
    every development HeCBench row."""
    full = prepared_rows(table)
    seal = sealed_mask(full)
    hb = (full["dataset"] == "hecbench").to_numpy()
    test = full[hb & seal].reset_index(drop=True)
    return test, out_of_program_predictions(full[hb & ~seal], test)
