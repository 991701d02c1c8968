"""Fitting the physical timing model's constants (:mod:`ridgeline.predictors.physical`).

The constants of one generation minimise a robust loss (soft L1, scale ``F_SCALE`` in log10)
of log10(predicted / measured time) over the training rows, in log space within
:data:`ridgeline.predictors.physical.BOUNDS`. The range of a prediction is the spread of that
log error on programs the fit did not see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ridgeline.errors import SchemaError
from ridgeline.hardware import GPU
from ridgeline.predictors.physical import (
    BOUNDS,
    DEFAULTS,
    PARAMS,
    PhysInputs,
    subset,
    time_ns,
)

__all__ = ["fit_constants", "subset", "range_factors", "F_SCALE", "TIME_RANGE"]

#: the soft-L1 loss's scale (log10): errors beyond ~26% count linearly, not squared
F_SCALE = 0.1
#: the share of measured times the stated range is to hold
TIME_RANGE = 0.8


def fit_constants(x: PhysInputs, gpus: Sequence[GPU], measured_ns: np.ndarray,
                  start: Mapping[str, float] | None = None) -> dict[str, float]:
    """The constants minimising the robust log error on the rows of *x* (one GPU per row,
    *measured_ns* their measured times). Rows whose time is not positive and finite are
    left out."""
    from scipy.optimize import least_squares  # lazy: scipy is slow to import

    y = np.asarray(measured_ns, float)
    ok = np.isfinite(y) & (y > 0)
    if ok.sum() < len(PARAMS) * 3:
        raise SchemaError(f"the physical model needs at least {len(PARAMS) * 3} timed rows to "
                          f"fit, got {int(ok.sum())}")
    xs, gs, ly = subset(x, ok), [g for g, k in zip(gpus, ok, strict=True) if k], np.log10(y[ok])
    s = dict(DEFAULTS if start is None else start)
    lo = np.log([BOUNDS[p][0] for p in PARAMS])
    hi = np.log([BOUNDS[p][1] for p in PARAMS])
    x0 = np.clip(np.log([s[p] for p in PARAMS]), lo + 1e-9, hi - 1e-9)

    def resid(theta: np.ndarray) -> np.ndarray:
        c = dict(zip(PARAMS, np.exp(theta), strict=True))
        return np.log10(np.maximum(time_ns(xs, gs, c), 1e-3)) - ly

    r = least_squares(resid, x0, bounds=(lo, hi), loss="soft_l1", f_scale=F_SCALE,
                      x_scale=1.0, diff_step=1e-4, max_nfev=400)
    return {p: float(v) for p, v in zip(PARAMS, np.exp(r.x), strict=True)}


def range_factors(log_err: np.ndarray, counted: np.ndarray,
                  share: float = TIME_RANGE) -> dict[str, list[float]]:
    """log10 factors (low, high) around a prediction that held the measured time in *share*
    of the held-out rows whose log10(measured / predicted) is *log_err*, for rows with
    CPU-execution counts and without (all rows where a side has fewer than 30)."""
    q = [(1.0 - share) / 2.0, (1.0 + share) / 2.0]
    e = np.asarray(log_err, float)
    ok = np.isfinite(e)
    out: dict[str, list[float]] = {}
    for name, sel in (("counted", counted), ("analysed", ~counted)):
        part = e[ok & sel] if (ok & sel).sum() >= 30 else e[ok]
        lo, hi = np.quantile(part, q)
        out[name] = [float(min(lo, 0.0)), float(max(hi, 0.0))]
    return out


def describe(c: Mapping[str, float]) -> dict[str, Any]:
    """The constants rounded for a report."""
    return {k: float(f"{v:.4g}") for k, v in c.items()}
