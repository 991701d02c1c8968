"""Is the stated confidence of the paper-A class right as often as it says? (program-grouped CV)

  OMP_NUM_THREADS=1 python benchmarks/confidence_calibration.py [--out runs/confidence.json]

`ridgeline predict` gives each predicted class a confidence: a logistic in how far the deciding
intensity lies from its ridge (log10), one for rows whose counts come from CPU execution and
one for rows whose counts are learned (`ridgeline.learning.confidence.CONFIDENCE`). This
benchmark runs the program-grouped 5-fold CV of `ridgeline eval` (seed 4839) on the shipped
feature table, fits both logistics by maximum likelihood on its predictions (the figures to
put in CONFIDENCE), and checks them held out: fitted on the programs of four folds of a second
program-grouped split (seed 7), scored on the fifth. It prints, per origin and confidence bin,
the mean stated confidence and the share of rows whose class was right, for the shipped
constants and for the held-out fit, with Brier scores.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.datasets import group_kfold
from ridgeline.evaluation import hecbench_eval as he
from ridgeline.evaluation.out_of_program import prepared_rows
from ridgeline.learning.confidence import CONFIDENCE
from ridgeline.learning.counted import attach_counted


def _logistic(p: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(p[0] + p[1] * x)))


def fit_logistic(x: np.ndarray, right: np.ndarray) -> np.ndarray:
    """(a, b) of P(right) = 1 / (1 + exp(-(a + b x))) by maximum likelihood (Newton steps)."""
    X = np.column_stack([np.ones_like(x), x])
    p = np.zeros(2)
    for _ in range(100):
        q = _logistic(p, x)
        grad = X.T @ (right - q)
        hess = (X * (q * (1 - q))[:, None]).T @ X + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        p = p + step
        if np.abs(step).max() < 1e-10:
            break
    return p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--seed", type=int, default=4839)
    args = ap.parse_args()
    table = attach_counted(he.load_table())
    pred = he.run_protocols(table, 5, args.seed, which=("cv",))["cv"]["_pred"]
    full = prepared_rows(table)
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    margin, right, keep, has = he.class_outcomes(hb, pred)
    held_out = np.full(len(hb), np.nan)
    for tr, te in group_kfold(hb, 5, 7):
        for sel in (has, ~has):
            fit_rows = np.zeros(len(hb), bool)
            fit_rows[tr] = True
            fit_rows &= keep & sel
            test_rows = np.zeros(len(hb), bool)
            test_rows[te] = True
            test_rows &= keep & sel
            p = fit_logistic(margin[fit_rows], right[fit_rows])
            held_out[test_rows] = _logistic(p, margin[test_rows])
    result: dict[str, Any] = {"seed": args.seed}
    for origin, sel in (("counted", has), ("learned", ~has)):
        m = keep & sel
        p = fit_logistic(margin[m], right[m])
        shipped = _logistic(np.array(CONFIDENCE[origin]), margin[m])
        result[origin] = {
            "rows": int(m.sum()), "fitted": [round(float(v), 3) for v in p],
            "shipped": list(CONFIDENCE[origin]),
            "brier_shipped": float(np.mean((shipped - right[m]) ** 2)),
            "brier_held_out": float(np.mean((held_out[m] - right[m]) ** 2)),
            "bins_shipped": he.confidence_bins(shipped, right[m]),
            "bins_held_out": he.confidence_bins(held_out[m], right[m]),
        }
        print(f"{origin}: {m.sum()} rows; fitted (a, b) = ({p[0]:.3f}, {p[1]:.3f}), shipped "
              f"{CONFIDENCE[origin]}; Brier shipped {result[origin]['brier_shipped']:.4f}, "
              f"held out {result[origin]['brier_held_out']:.4f}")
        print("  bin    rows  stated  right  | held out: rows  stated  right")
        ho = {b["from"]: b for b in result[origin]["bins_held_out"]}
        for b in result[origin]["bins_shipped"]:
            h = ho.get(b["from"], {"rows": 0, "confidence": float("nan"),
                                   "right": float("nan")})
            print(f"  {b['from']:.2f}  {b['rows']:5d}  {b['confidence']:.3f}   "
                  f"{b['right']:.3f}  |           {h['rows']:5d}  {h['confidence']:.3f}   "
                  f"{h['right']:.3f}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
