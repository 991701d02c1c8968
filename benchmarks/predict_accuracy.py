"""Accuracy of the count predictors on HeCBench (all figures program-grouped).

  nice python benchmarks/predict_accuracy.py [--out runs/eval-hecbench]

Runs the `hecbench` eval task: paper-A set (RTX 3080) 5-fold program-grouped CV, 5-fold CV
over all rows, leave-one-GPU-out, and unseen GPU + unseen program; writes report.md with
plots and results.json, and prints the headline figures. It uses the
shipped feature table (src/ridgeline/models; rebuild it with `ridgeline train`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ridgeline.cli import main as cli_main


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="runs/eval-hecbench")
    a = ap.parse_args()
    rc = cli_main(["eval", "--task", "hecbench", "--out", a.out])
    res = json.loads((Path(a.out) / "results.json").read_text())
    for prot in ("cv", "logo", "unseen"):
        for g, s in res["protocols"].get(prot, {}).items():
            print(f"{prot:7s} {g:24s} class acc learned {s['class_learned']['accuracy']:.3f} "
                  f"analytic {s['class_analytic']['accuracy']:.3f} majority "
                  f"{s['class_majority']['accuracy']:.3f}  time within2x "
                  f"{s['time_learned'].get('within_2x', float('nan')):.3f} median APE "
                  f"{s['time_learned'].get('median_ape', float('nan')):.3f}")
    raise SystemExit(rc)


if __name__ == "__main__":
    main()
