"""``--predictor physical``: counts and classes as the learned predictor gives them; where a
launch has CPU-execution counts, time from the physical timing model
(:mod:`ridgeline.predictors.physical`) with the shipped constants of the GPU's architecture
generation, a range from its program-grouped CV errors and a note of the term that bounds it
(elsewhere the learned time, and a note saying so).

The learned predictor's launch analysis and feature frame are the one thing taken from
:mod:`ridgeline.predictors.learned` (imported here only).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ridgeline.errors import SchemaError
from ridgeline.hardware import GPU, Counts, time_lower_bound
from ridgeline.learning.counted_columns import has_counts
from ridgeline.predictors.base import PREDICTORS, Prediction, Query
from ridgeline.predictors.learned import LearnedPredictor
from ridgeline.predictors.physical import (
    dominant_note,
    generation,
    inputs_from_frame,
    load_constants,
    subset,
    terms_ns,
    time_ns,
)

__all__ = ["PhysicalPredictor", "constants_for", "physical_times"]

_COUNTS = ("flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes")


def constants_for(gpu: GPU, shipped: dict[str, Any]) -> tuple[dict[str, float], str]:
    """The constants of *gpu*'s generation, and a note when another generation's stand in
    (the first shipped one: no GPU of that generation was measured)."""
    gens = shipped.get("generations") or {}
    if not gens:
        raise SchemaError("the physical model's constants file has no generation; rebuild "
                          "it with `python benchmarks/physical_time.py --write-constants`")
    gen = generation(gpu)
    if gen in gens:
        return dict(gens[gen]), ""
    other = sorted(gens)[0]
    return dict(gens[other]), (f"no {gen} GPU was measured: the physical model uses the "
                               f"{other} constants")


#: what a row without CPU-execution counts says about its time
LEARNED_TIME_NOTE = ("time from the learned model: the physical model needs CPU-execution "
                     "counts (--count auto)")


def physical_times(X: pd.DataFrame, Y: pd.DataFrame, gpus: list[GPU],
                   shipped: dict[str, Any] | None = None) -> pd.DataFrame:
    """Per row of the feature frame *X* (with the learned model's predictions *Y*): the time,
    its range, a note and where the time comes from (``time_ns``, ``time_lo_ns``,
    ``time_hi_ns``, ``note``, ``origin``). Rows with CPU-execution counts take the physical
    model's time (never below the roofline time of the counts *Y* shows) and the range of its
    program-grouped CV errors; the others keep the learned time, which held out better there
    (development CV: 56% of those rows within 2x against 33% from the analysed counts)."""
    shipped = shipped or load_constants()
    x = inputs_from_frame(X)
    counted = has_counts(X)
    out = []
    for i, gpu in enumerate(gpus):
        if not counted[i]:
            out.append({"time_ns": float(Y["time_ns"].iloc[i]),
                        "time_lo_ns": float(Y["time_lo_ns"].iloc[i]),
                        "time_hi_ns": float(Y["time_hi_ns"].iloc[i]),
                        "note": LEARNED_TIME_NOTE, "origin": "learned"})
            continue
        c, note = constants_for(gpu, shipped)
        one = subset(x, [i])
        floor = time_lower_bound(Counts(*(float(Y[k].iloc[i]) for k in _COUNTS)), gpu) * 1e9
        t = max(float(time_ns(one, [gpu], c)[0]), floor)
        lo, hi = shipped.get("range", {}).get("counted", [math.nan, math.nan])
        notes = [dominant_note(terms_ns(one, [gpu], c), 0, gpu)] + ([note] if note else [])
        out.append({"time_ns": t, "time_lo_ns": t * 10.0 ** lo, "time_hi_ns": t * 10.0 ** hi,
                    "note": "; ".join(notes),
                    "origin": f"physical model (CPU-execution counts; {generation(gpu)} "
                              "constants)"})
    return pd.DataFrame(out, index=X.index)


class PhysicalPredictor(LearnedPredictor):
    """Learned counts (CPU-execution counts where given), physical time where counted."""

    name = "physical"

    def __init__(self, model: Any = None, counted: list[dict[str, Any]] | None = None,
                 constants: dict[str, Any] | None = None) -> None:
        super().__init__(model, counted)
        self.constants = constants

    def predict_frame(self, queries: Iterable[Query]) -> list[Prediction]:
        rows, X, Y = self._frame(queries)
        if not rows:
            return []
        gpus = [gpu for _, _, gpu in rows]
        phys = physical_times(X, Y, gpus, self.constants)
        out = []
        for i, (a, lf, gpu) in enumerate(rows):
            y = Y.iloc[i].copy()
            for k in ("time_ns", "time_lo_ns", "time_hi_ns"):
                y[k] = phys[k].iloc[i]
            p = self._prediction(a, lf, gpu, y)
            if phys["origin"].iloc[i] != "learned":
                p.origin["time"] = str(phys["origin"].iloc[i])
            p.notes.append(str(phys["note"].iloc[i]))
            out.append(p)
        return out


PREDICTORS.add("physical", PhysicalPredictor)
