"""Anchored time: a kernel measured on one GPU, predicted on another as measured x (the
shipped model's predicted time there / its predicted time on the measured GPU), against two
naive baselines (measured x DRAM bandwidth ratio; measured x FP32 peak ratio).

    python benchmarks/anchored_time.py [--json OUT.json] [--dev-model]

Rows and predictions as ``tools/anchor_range.py`` makes them (which writes the range the
package ships). The range's quantiles come from the development programs only (``is_sealed``
False); the figures are reported on the sealed programs only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.anchor_range import pairs, predicted_rows, stored_range  # noqa: E402

from ridgeline.evaluation.provenance import provenance  # noqa: E402
from ridgeline.learning.model import TIME_RANGE  # noqa: E402


def figures(truth: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    r = pred / truth
    return {"within_2x": float(np.mean((r >= 0.5) & (r <= 2.0))),
            "median_ape": float(np.median(np.abs(r - 1.0)))}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None, metavar="OUT.json")
    ap.add_argument("--dev-model", action="store_true",
                    help="predict with a model fitted on the development programs only (a "
                    "check that the shipped model's fit on the sealed rows does not carry the "
                    "figures)")
    a = ap.parse_args(argv)
    print("python benchmarks/anchored_time.py " + " ".join(argv))
    rows = predicted_rows(a.dev_model)
    print("model: " + ("fitted on the development programs only (--dev-model)" if a.dev_model
                       else "the shipped model (fitted on every HeCBench row)"))
    allp = pairs(rows)
    m = allp[allp["predicted"]]
    dev, seal = m[~m["sealed"]], m[m["sealed"]]
    n_seal = int(allp["sealed"].sum())
    print(f"sealed pairs: {len(seal)} of {n_seal} measured on both GPUs have a prediction on "
          f"both (the rest: source analysis failed, predict-batch gives an error); figures on "
          "those, for all three predictors alike")
    stored = stored_range(dev, "benchmarks/anchored_time.py")
    q = stored["log10_error_quantiles"]
    res: dict[str, Any] = {
        "provenance": provenance(dataset="hecbench (shipped feature table)",
                                 split="sealed programs (range: development programs)",
                                 predictor="learned, " + ("fitted on development programs"
                                                          if a.dev_model else "shipped model"),
                                 counts="shipped counted table (predict-batch --count cached)"),
        "range": stored, "pairs": {}}
    print(f"counts: {int(rows['counted'].sum())} of {len(rows)} rows with CPU-execution counts "
          "from the shipped counted table (predict-batch --count cached), the rest learned")
    print(f"range (dev, {TIME_RANGE:.0%}): x{10 ** q['lo']:.3f} .. x{10 ** q['hi']:.3f}")
    inside = []
    for (ga, gb), s in seal.groupby(["gpu_a", "gpu_b"], sort=True):
        tb = s["time_ns_b"].to_numpy(float)
        f = {k: figures(tb, s[k].to_numpy(float)) for k in ("anchored", "bw_ratio", "fp32_ratio")}
        cov = s["time_ns_b"].between(s["anchored"] * 10 ** q["lo"],
                                     s["anchored"] * 10 ** q["hi"])
        inside.append(cov.to_numpy())
        res["pairs"][f"{ga} -> {gb}"] = {"rows": len(s), "programs": int(s["program"].nunique()),
                                        **f, "range_coverage": float(cov.mean())}
        print(f"{ga:>22s} -> {gb:22s} {len(s):4d} rows {s['program'].nunique():3d} progs | "
              + " | ".join(f"{k} 2x {v['within_2x']:.1%} mAPE {v['median_ape']:.1%}"
                           for k, v in f.items()) + f" | in range {cov.mean():.1%}")
    for name, part in (("dev", dev), ("sealed", seal)):
        tb = part["time_ns_b"].to_numpy(float)
        f = {k: figures(tb, part[k].to_numpy(float))
             for k in ("anchored", "bw_ratio", "fp32_ratio")}
        res[name] = {"pairs": len(part), "programs": int(part["program"].nunique()), **f}
        print(f"all {name}: {len(part)} pairs {part['program'].nunique()} programs | "
              + " | ".join(f"{k} 2x {v['within_2x']:.1%} mAPE {v['median_ape']:.1%}"
                           for k, v in f.items()))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
