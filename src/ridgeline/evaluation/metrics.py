"""Metrics for classes (via scikit-learn) and for counts and times.

Percentage errors are fractions: ``mape = 0.25`` means 25%. ``within_2x`` is the share of
predictions with max(pred/true, true/pred) <= 2. Rows whose truth is zero or not finite are
left out of the relative metrics and counted in ``n_excluded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["classification", "regression", "CLASSES"]

CLASSES = ("Bandwidth", "Compute")


def classification(
    y_true: Sequence[Any], y_pred: Sequence[Any], labels: Sequence[str] = CLASSES
) -> dict[str, Any]:
    """Accuracy, macro-F1, MCC and the confusion matrix (rows: truth, columns: prediction).

    A missing prediction (None/NaN/unparsed) counts as wrong, as in the 2025 paper.
    """
    from sklearn.metrics import (  # lazy: scikit-learn is slow to import
        accuracy_score,
        confusion_matrix,
        f1_score,
        matthews_corrcoef,
    )

    t = np.array([str(v) for v in y_true], dtype=object)
    p = np.array(["<none>" if _missing(v) else str(v) for v in y_pred], dtype=object)
    if len(t) != len(p):
        raise ValueError(f"y_true has {len(t)} rows, y_pred {len(p)}")
    if len(t) == 0:
        return {"n": 0, "accuracy": float("nan"), "macro_f1": float("nan"), "mcc": float("nan"),
                "confusion": [], "labels": list(labels), "n_unanswered": 0}
    all_labels = list(labels) + (["<none>"] if (p == "<none>").any() else [])
    cm = confusion_matrix(t, p, labels=all_labels)
    return {
        "n": int(len(t)),
        "accuracy": float(accuracy_score(t, p)),
        "macro_f1": float(f1_score(t, p, labels=list(labels), average="macro", zero_division=0)),
        "mcc": float(matthews_corrcoef(t, p)),
        "confusion": cm[: len(labels)].tolist(),
        "labels": all_labels,
        "n_unanswered": int((p == "<none>").sum()),
    }


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v)) or str(v) in ("", "nan", "None")


def regression(y_true: Sequence[float], y_pred: Sequence[float]) -> dict[str, float]:
    """MAPE, median APE, share within 10% / 25% / 2x, mean |log10 error| (all fractions)."""
    t = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    if t.shape != p.shape:
        raise ValueError(f"y_true has shape {t.shape}, y_pred {p.shape}")
    ok = np.isfinite(t) & (t > 0) & np.isfinite(p)
    t, p = t[ok], p[ok]
    out: dict[str, float] = {"n": float(len(t)), "n_excluded": float((~ok).sum())}
    if len(t) == 0:
        return out | {k: float("nan") for k in (
            "mape", "median_ape", "within_10pct", "within_25pct", "within_2x", "mean_abs_log10")}
    ape = np.abs(p - t) / t
    pos = p > 0
    ratio = np.where(pos, np.maximum(p, 1e-300) / t, np.inf)
    fold = np.maximum(ratio, 1 / ratio)
    log_err = np.where(pos, np.abs(np.log10(np.maximum(p, 1e-300) / t)), np.inf)
    out.update(
        mape=float(ape.mean()),
        median_ape=float(np.median(ape)),
        within_10pct=float((ape <= 0.10).mean()),
        within_25pct=float((ape <= 0.25).mean()),
        within_2x=float((fold <= 2.0).mean()),
        mean_abs_log10=float(np.mean(np.minimum(log_err, 10.0))),
    )
    return out
