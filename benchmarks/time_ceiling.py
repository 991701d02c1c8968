"""How good can learned time be when the counts are perfect? (program-grouped CV)

  OMP_NUM_THREADS=1 python benchmarks/time_ceiling.py [--out runs/time-ceiling.json]

The time model learns a kernel's run time from its counts (FLOPs by precision, integer
operations, DRAM bytes), its launch size and the GPU's catalog numbers. This benchmark runs
the same program-grouped 5-fold CV as `ridgeline eval` (seed 4839) on the shipped feature
table twice: once with the counts ridgeline produces (what users get), and once with every
row's counts replaced by the profiler's measured ones (what a perfect counter would give;
loads, stores and the other counted detail stay as counted). The second run is a ceiling for
any time model built on these counts: where it misses the time target, better counts alone
cannot reach it. With --each, three more runs replace only the counted rows' DRAM bytes, integer
operations or FLOPs by the measured ones: which count's errors cost time accuracy most.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline.evaluation import hecbench_eval as he
from ridgeline.predictors.counted import attach_counted

#: counted column (log10(1 + x)) <- measured target
_MEASURED = {"c_sp": "flops_sp", "c_dp": "flops_dp", "c_hp": "flops_hp", "c_int": "int_ops",
             "c_dram": "dram_bytes"}


def with_measured_counts(table: pd.DataFrame) -> pd.DataFrame:
    """*table* (counted columns attached) with the measured counts in the counted columns."""
    t = table.copy()
    ok = np.ones(len(t), bool)
    for c, m in _MEASURED.items():
        v = t[m].to_numpy(float)
        ok &= np.isfinite(v)
        t[c] = np.log10(1.0 + np.clip(v, 0.0, None))
    for p in ("sp", "dp", "int"):
        t[f"c_ai_{p}"] = t[f"c_{p}"] - t["c_dram"]
    t.loc[~ok, list(_MEASURED)] = np.nan
    t["c_has"] = np.where(ok, 1.0, t["c_has"].to_numpy(float))
    return t


def with_measured(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """*table* with the measured counts in *columns* of its counted rows only."""
    full = with_measured_counts(table)
    t = table.copy()
    has = t["c_has"].to_numpy(float) == 1.0
    for c in columns:
        t.loc[has, c] = full.loc[has, c]
    for p in ("sp", "dp", "int"):
        t.loc[has, f"c_ai_{p}"] = t.loc[has, f"c_{p}"] - t.loc[has, "c_dram"]
    return t


def _time_figures(table: pd.DataFrame, seed: int) -> dict[str, dict[str, float]]:
    res = he.run_protocols(table, 5, seed, which=("cv",))["cv"]
    return {g: {k: float(v) for k, v in s["time_learned"].items()
                if isinstance(v, int | float)}
            for g, s in res.items() if not g.startswith("_")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="runs/time-ceiling.json")
    ap.add_argument("--seed", type=int, default=4839)
    ap.add_argument("--each", action="store_true",
                    help="also replace one count at a time, on the counted rows only")
    a = ap.parse_args()
    counted = attach_counted(he.load_table())
    out = {"counted (ridgeline)": _time_figures(counted, a.seed),
           "measured counts (ceiling)": _time_figures(with_measured_counts(counted), a.seed)}
    if a.each:
        for name, cols in (("measured DRAM, counted rows", ["c_dram"]),
                           ("measured int ops, counted rows", ["c_int"]),
                           ("measured FLOPs, counted rows", ["c_sp", "c_dp", "c_hp"])):
            out[name] = _time_figures(with_measured(counted, cols), a.seed)
    print(f"time, program-grouped 5-fold CV over the HeCBench rows (seed {a.seed})")
    print(f"{'counts':32s} {'GPU':24s} {'rows':>5s} {'median APE':>10s} {'within 2x':>9s}")
    for name, figs in out.items():
        for g, f in figs.items():
            print(f"{name:32s} {g:24s} {int(f.get('n', 0)):5d} "
                  f"{100 * f['median_ape']:9.1f}% {100 * f['within_2x']:8.1f}%")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=2))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
