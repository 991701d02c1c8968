"""Figures on the sealed slice (:mod:`ridgeline.datasets.sealed`), beside the development CV.

The development CV runs on the development programs only, so no choice tuned against it has
seen a sealed row. The sealed figures come from models trained on every development row and
asked about the sealed programs' rows: the paper-A set, every GPU, and every GPU with that GPU
also left out of training (neither the row's program nor its GPU seen).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ridgeline.datasets import sealed_mask
from ridgeline.evaluation import hecbench_eval as hb_eval
from ridgeline.evaluation.metrics import classification
from ridgeline.evaluation.out_of_program import out_of_program_predictions, prepared_rows

__all__ = ["development_rows", "sealed_figures"]


def development_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the feature *table* whose program is not sealed."""
    return table[~sealed_mask(table)].reset_index(drop=True)


def sealed_figures(table: pd.DataFrame, unseen_gpu: bool = True) -> dict[str, Any]:
    """Paper-A class, and class and time per GPU, on the sealed programs' rows; with
    *unseen_gpu*, also per GPU from a model that saw no row of that GPU (one fit per GPU)."""
    in_table = sealed_mask(table)
    out: dict[str, Any] = {"programs": int(table.loc[in_table, "program"].nunique()),
                           "development_programs": int(table.loc[~in_table, "program"].nunique())}
    full = prepared_rows(table)  # the rows that could be analysed
    seal = sealed_mask(full)
    hb = full["dataset"] == "hecbench"
    dev_hb = full[hb & ~seal]
    pa = full[(full["dataset"] == "paper-a") & seal]
    if len(pa):
        pred = out_of_program_predictions(dev_hb, pa)
        out["paper_a"] = {"rows": len(pa), "programs": int(pa["program"].nunique()),
                          "learned": classification(list(pa["label"]),
                                                    hb_eval._classes(pred, pa["gpu"]))}
    test = full[hb & seal]
    if not len(test):
        return out
    pred = out_of_program_predictions(dev_hb, test)
    out["sealed"] = {"all": hb_eval._summ(test, pred)}
    for g in sorted(test["gpu"].unique()):
        m = (test["gpu"] == g).to_numpy()
        out["sealed"][g] = hb_eval._summ(test[m], pred[m])
        if unseen_gpu:
            out.setdefault("sealed_unseen_gpu", {})[g] = hb_eval._summ(
                test[m], out_of_program_predictions(dev_hb[dev_hb["gpu"] != g], test[m]))
    return out
