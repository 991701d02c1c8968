"""How many time predictions lie far above the slowest plausible time for their own counts,
and what the launches that do have (atomics on one address, a serial loop, a tiny grid).

    python benchmarks/slow_bound.py [--cache DIR] [--sealed] [--json OUT.json]

Slow bound (:func:`ridgeline.learning.slow_bound.slowest_plausible_ns`): launch overhead plus
DRAM bytes at 5% of the GPU's achievable bandwidth plus each precision's operations at 5% of
its peak, summed, for the predicted counts of the row. Checked
on the HeCBench rows of the shipped feature table:

- ``shipped``: the shipped model, as ``predict-batch --count cached`` predicts (it was fitted
  on every HeCBench row, so these programs were seen in training);
- ``cv``: the development programs under the ``hecbench`` task's program-grouped 5-fold CV
  (each predicted by a model that never saw its program); with ``--sealed`` also the sealed
  programs from a model trained on the development rows (report only; choose nothing there).

The same bound is applied to the measured time with the measured counts: how often a real
launch is slower than "slowest plausible" says whether the bound is physical, and which
reasons account for those launches. ``--cache DIR`` keeps the out-of-program predictions
(one model per fold, minutes each) and their rows as parquet files and reuses them (delete it
after changing ridgeline: the rows carry the feature columns the reasons read). From
2026-11-28 12:00 the learned predictor brings a time above the bound without a reason down to
it, so every prediction above the bound has one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets import sealed_mask
from ridgeline.evaluation.hecbench_eval import load_table
from ridgeline.evaluation.oop_predictions import (
    development_predictions,
    sealed_predictions,
    with_loader_measurements,
)
from ridgeline.evaluation.out_of_program import prepared_rows
from ridgeline.evaluation.provenance import provenance
from ridgeline.hardware import get_gpu
from ridgeline.learning.counted_columns import has_counts
from ridgeline.learning.shipped import shipped_model
from ridgeline.learning.slow_bound import (
    REASONS,
    SLOW_SHARE,
    slow_reasons,
    slowest_plausible_ns,
)

COUNTS = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]
FACTORS = (1.0, 2.0, 10.0)


def _cached(cache: Path | None, name: str, make: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    if cache is not None and (cache / f"{name}_rows.parquet").is_file():
        return (pd.read_parquet(cache / f"{name}_rows.parquet"),
                pd.read_parquet(cache / f"{name}_pred.parquet"))
    rows, pred = make()
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        rows.to_parquet(cache / f"{name}_rows.parquet")
        pred.to_parquet(cache / f"{name}_pred.parquet")
    return rows, pred


def _roof_ns(counts: pd.DataFrame, gpus: list[Any]) -> np.ndarray:
    t = np.zeros(len(counts))
    for c, p in (("dram_bytes", None), ("flops_sp", "sp"), ("flops_dp", "dp"),
                 ("int_ops", "int")):
        rate = np.array([g.bandwidth if p is None else g.peak(p) for g in gpus])
        t = np.fmax(t, counts[c].to_numpy(float) / rate * 1e9)
    return t


def figures(rows: pd.DataFrame, pred: pd.DataFrame) -> dict[str, Any]:
    """Predicted and measured time against the slow bound of their own counts, per GPU."""
    rows, pred = rows.reset_index(drop=True), pred.reset_index(drop=True)
    gpus = [get_gpu(g) for g in rows["gpu"]]
    p_ns = pred["time_ns"].to_numpy(float)
    slow = slowest_plausible_ns(pred[COUNTS], gpus)
    meas = pd.DataFrame({c: rows["m_" + c].to_numpy(float) for c in COUNTS})
    m_ns = rows["m_time_ns"].to_numpy(float)
    m_slow = slowest_plausible_ns(meas, gpus)
    reasons = slow_reasons(rows, slow)
    m_reasons = slow_reasons(rows, m_slow)
    has = has_counts(rows)
    below_roof = p_ns < _roof_ns(pred[COUNTS], gpus) * (1 - 1e-9)
    out: dict[str, Any] = {}
    for g in ["all", *sorted(set(rows["gpu"]))]:
        sel = np.ones(len(rows), bool) if g == "all" else (rows["gpu"] == g).to_numpy()
        d: dict[str, Any] = {"rows": int(sel.sum()), "counted": int((sel & has).sum()),
                             "below_roofline": int((sel & below_roof).sum())}
        for who, t, b, why in (("predicted", p_ns, slow, reasons),
                               ("measured", m_ns, m_slow, m_reasons)):
            ratio = t / b
            for f in FACTORS:
                over = sel & (ratio > f)
                d[f"{who}_over_{f:g}x"] = int(over.sum())
                d[f"{who}_over_{f:g}x_counted"] = int((over & has).sum())
                d[f"{who}_over_{f:g}x_with_reason"] = int(sum(
                    1 for i in np.flatnonzero(over) if why[i]))
            over = sel & (ratio > 1.0)
            d[f"{who}_reasons_over_1x"] = {r: int(sum(1 for i in np.flatnonzero(over)
                                                      if r in why[i])) for r in REASONS}
        out[g] = d
    ratio = p_ns / slow
    top = np.argsort(-ratio)[:25]
    out["_top"] = [{"source": rows["source"].iloc[i], "kernel": str(rows["kernel"].iloc[i]),
                    "gpu": rows["gpu"].iloc[i], "counted": bool(has[i]),
                    "predicted_us": p_ns[i] / 1e3, "measured_us": m_ns[i] / 1e3,
                    "slow_bound_us": slow[i] / 1e3, "over": float(ratio[i]),
                    "measured_over": float(m_ns[i] / m_slow[i]), "reasons": reasons[i],
                    "threads": float(np.clip(10.0 ** rows["a_launched"].iloc[i] - 1, 0, None))}
                   for i in top if ratio[i] > 1.0]
    return out


def _shipped(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    full = prepared_rows(table)
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    return hb, shipped_model().predict(hb)


def _print(name: str, figs: dict[str, Any]) -> None:
    for g, d in figs.items():
        if g.startswith("_"):
            continue
        print(f"{name} {g}: rows {d['rows']} (counted {d['counted']}); below roofline "
              f"{d['below_roofline']}; predicted above the {SLOW_SHARE:.0%} slow bound "
              + ", ".join(f">{f:g}x {d[f'predicted_over_{f:g}x']} "
                          f"({d[f'predicted_over_{f:g}x_with_reason']} with a reason)"
                          for f in FACTORS)
              + "; measured " + ", ".join(f">{f:g}x {d[f'measured_over_{f:g}x']} "
                                          f"({d[f'measured_over_{f:g}x_with_reason']})"
                                          for f in FACTORS))
    for r in figs.get("_top", [])[:12]:
        print(f"  {r['over']:7.1f}x {r['source']} {r['kernel'][:40]} on {r['gpu']}: "
              f"predicted {r['predicted_us']:.1f} us, measured {r['measured_us']:.1f} us, "
              f"bound {r['slow_bound_us']:.1f} us, counted {r['counted']}, "
              f"threads {r['threads']:.0f}, reasons {r['reasons'] or '-'}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--sealed", action="store_true",
                    help="also the sealed programs (final report only)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    table = with_loader_measurements(load_table())
    dev = table[~sealed_mask(table)].reset_index(drop=True)
    res: dict[str, Any] = {"shipped (development programs)": figures(*_shipped(dev)),
                           "cv (development programs)": figures(*_cached(
                               args.cache, "dev", lambda: development_predictions(table)))}
    if args.sealed:
        res["shipped (sealed programs)"] = figures(*_shipped(table[sealed_mask(table)]))
        res["sealed (model of the development rows)"] = figures(*_cached(
            args.cache, "sealed", lambda: sealed_predictions(table)))
    for name, figs in res.items():
        _print(name, figs)
    res["provenance"] = provenance(dataset="hecbench", split="development programs"
                                   + (" and sealed programs" if args.sealed else ""),
                                   predictor="learned (shipped model; CV fold models)")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
