"""How sure the paper-a class of predicted counts is: a logistic of the deciding intensity's
distance from its ridge, one per origin of the counts (counted or learned)."""

from __future__ import annotations

import math

from ridgeline.hardware import GPU, Counts, get_rule

__all__ = ["CONFIDENCE", "class_confidence", "margin_confidence", "ridge_margin"]

#: how sure the paper-a class is, by where its counts come from: the logistic
#: 1 / (1 + exp(-(a + b |m|))) of the distance |m| (log10) of the deciding intensity from its
#: ridge, (a, b) fitted by maximum likelihood on the program-grouped 5-fold CV predictions of
#: the HeCBench rows (seed 4839; 2026-11-27), one pair for the 3035 rows with CPU-execution
#: counts and one for the 356 whose counts are learned. The earlier single logistic of
#: |m| / 0.25 for both was under-confident on counted rows (it said 55% where 70% were right,
#: 65% where 81% were) and over-confident on the others (93% where 76% were right). Fitted on
#: the programs of four folds of another split and scored on the fifth's, the stated
#: confidence is within 5.1 points of the share right in every bin of 100 rows or more; Brier
#: score on counted rows 0.052 (old) -> 0.046 (held out), on the others 0.164 either way
#: (``python benchmarks/confidence_calibration.py``; ``ridgeline eval`` reports the bins)
CONFIDENCE: dict[str, tuple[float, float]] = {"counted": (1.18, 3.03), "learned": (0.52, 1.17)}


def ridge_margin(counts: Counts, gpu: GPU) -> float | None:
    """Distance (log10) of the paper-a rule's deciding intensity from its ridge on *gpu*:
    the largest of the intensities over their ridges (above 0: compute-bound). None when the
    rule gives no class."""
    lab = get_rule("paper-a").classify(counts, gpu)
    if lab.value is None or not lab.intensity or not lab.ridge:
        return None
    return max(math.log10(max(lab.intensity[p], 1e-12) / lab.ridge[p]) for p in lab.ridge)


def class_confidence(counts: Counts, gpu: GPU, counted: bool) -> float | None:
    """The probability that the paper-a class of *counts* on *gpu* is right (see
    :data:`CONFIDENCE`); *counted*: the counts come from CPU execution. None when the rule
    gives no class."""
    m = ridge_margin(counts, gpu)
    return None if m is None else margin_confidence(m, counted)


def margin_confidence(margin: float, counted: bool) -> float:
    """:data:`CONFIDENCE`'s logistic at the distance *margin* (log10) from the ridge."""
    a, b = CONFIDENCE["counted" if counted else "learned"]
    return float(1.0 / (1.0 + math.exp(-(a + b * abs(margin)))))
