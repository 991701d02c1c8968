"""``ridgeline eval --task sc26``: the SC26FLOPBench intensity protocol on the HeCBench rows.

Per precision (FP16, FP32, FP64) and GPU of the data (RTX 3080, A10, A100): each launch's
measured and predicted intensity classed zero / bandwidth-bound / compute-bound against the
GPU's ridge, recall per measured class, and the share of launches whose predicted intensity
is within ±10% and ±50% of the measured one (rules: :mod:`ridgeline.evaluation.intensity`),
beside the published LLM figures. Predictions are out of program
(:mod:`ridgeline.evaluation.oop_predictions`): development programs under the ``hecbench``
task's program-grouped CV, sealed programs from a model trained on the development rows.
Every figure is given on all rows, on the rows with CPU counts (the shipped counted table, as
``predict --count`` gives them) and on the rest (learned counts). FP16 is given as measured and
with the compiler's HFMA2 constant loads taken out (:mod:`ridgeline.evaluation.fp16_constants`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.evaluation.fp16_constants import fp16_not_arithmetic
from ridgeline.evaluation.hecbench_eval import load_table
from ridgeline.evaluation.intensity import (
    PRECISIONS,
    PUBLISHED_LLM,
    PUBLISHED_SOURCE,
    intensity_figures,
)
from ridgeline.evaluation.oop_predictions import (
    development_predictions,
    sealed_predictions,
    with_loader_measurements,
)
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.tasks import EVAL_TASKS, EvalTask
from ridgeline.learning.counted_columns import has_counts

__all__ = ["FP16_ARITH", "split_figures", "run"]

#: the FP16 entry with the HFMA2 constant loads taken out of the measured counts
FP16_ARITH = "FP16 arith"
_COUNT_COLS = ["flops_sp", "flops_dp", "flops_hp", "dram_bytes"]
SUBSETS = ("all", "counted", "learned", "cuda")


def _measured(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: rows["m_" + c].to_numpy(float) for c in _COUNT_COLS})


def split_figures(rows: pd.DataFrame, pred: pd.DataFrame, not_arith: np.ndarray
                  ) -> dict[str, Any]:
    """The protocol's figures of one split: per subset (all rows, rows with CPU counts, the
    rest, the CUDA programs' rows: SC26FLOPBench's kernels are CUDA), per GPU and precision;
    *not_arith*: per row, whether its measured FP16 FLOPs are the compiler's constant loads
    (1.0 / 0.0 / NaN unidentified)."""
    meas = _measured(rows)
    pr = pred[_COUNT_COLS].reset_index(drop=True)
    has = has_counts(rows)
    gpus = rows["gpu"].astype(str).to_numpy()
    out: dict[str, Any] = {"rows": len(rows), "counted_rows": int(has.sum()),
                           "programs": int(rows["program"].nunique())}
    known = np.isfinite(not_arith)
    clean = meas.assign(flops_hp=np.where(not_arith == 1.0, 0.0, meas["flops_hp"]))
    out["fp16_constant_rows"] = {g: {"judged": int((known & (gpus == g)).sum()),
                                     "constants": int(((not_arith == 1.0) & (gpus == g)
                                                       & (meas["flops_hp"] >= 1)).sum()),
                                     "rows": int((gpus == g).sum())}
                                 for g in sorted(set(gpus))}
    cuda = (rows["model_type"].astype(str) == "cuda").to_numpy()
    for name, sel in (("all", np.ones(len(rows), bool)), ("counted", has),
                      ("learned", ~has), ("cuda", cuda)):
        if not sel.any():
            out[name] = {}
            continue
        figs = intensity_figures(meas[sel], pr[sel], gpus[sel])
        arith = intensity_figures(clean[sel & known], pr[sel & known], gpus[sel & known],
                                  {FP16_ARITH: PRECISIONS["FP16"]})
        for g, d in arith.items():
            figs[g][FP16_ARITH] = d[FP16_ARITH]
        out[name] = figs
    return out


def _pct(v: Any) -> str:
    return "-" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{100 * v:.1f}%"


def _cell(splits: dict[str, Any], subset: str, gpu: str, prec: str, get: Any) -> str:
    vals = []
    for s in splits.values():
        d = s.get(subset, {}).get(gpu, {}).get(prec)
        vals.append(get(d) if d else "-")
    return " / ".join(vals)


def report_lines(splits: dict[str, Any]) -> list[str]:
    """Markdown tables, one per subset: every GPU and precision, the splits side by side."""
    names = " / ".join(splits)
    lines = []
    gpus = sorted({g for s in splits.values() for g in s.get("all", {})})
    for subset in SUBSETS:
        lines += [f"### {subset} rows ({names})", "",
                  "| GPU | precision | rows | measured zero / bandwidth / compute | recall zero "
                  "| recall bandwidth | recall compute | within ±10% | within ±50% | ±10% "
                  "(measured > 0) | ±50% (measured > 0) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for g in gpus:
            for p in [*PRECISIONS, FP16_ARITH]:
                def cls(d: dict[str, Any]) -> str:
                    c = d["classes"]
                    return f"{c['zero']['n']}:{c['bandwidth']['n']}:{c['compute']['n']}"

                cells = [
                    _cell(splits, subset, g, p, lambda d: str(d["rows"])),
                    _cell(splits, subset, g, p, cls),
                    *(_cell(splits, subset, g, p,
                            lambda d, k=k: _pct(d["classes"][k]["recall"]))
                      for k in ("zero", "bandwidth", "compute")),
                    *(_cell(splits, subset, g, p, lambda d, k=k: _pct(d[k]))
                      for k in ("within_10", "within_50", "within_10_nonzero",
                                "within_50_nonzero")),
                ]
                lines.append(f"| {g} | {p} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _published_lines() -> list[str]:
    lines = [f"Published LLM figures ({PUBLISHED_SOURCE}):", "",
             "| GPU | precision | within ±10% | within ±50% |", "|---|---|---|---|"]
    for (g, p), (a, b) in PUBLISHED_LLM.items():
        lines.append(f"| {g} | {p} | {_pct(a)} | {_pct(b)} |")
    return [*lines, ""]


def write_report(out: Path, splits: dict[str, Any], prov: dict[str, Any]) -> Path:
    from ridgeline.evaluation import fp16_constants, intensity, oop_predictions

    text = ["# SC26FLOPBench intensity protocol", "", f"Provenance: `{json.dumps(prov)}`", "",
            "## Rules", "", (intensity.__doc__ or "").strip(), "",
            "## Predictions", "", (oop_predictions.__doc__ or "").strip(), "",
            "## FP16 constant loads", "", (fp16_constants.__doc__ or "").strip(), "",
            f"`{FP16_ARITH}` rows: the measured FP16 FLOPs of rows judged constant loads set "
            "to zero; rows neither rule judges left out. Rows judged (judged / constants / "
            "rows per GPU): " + "; ".join(
                f"{n}: " + ", ".join(f"{g} {v['judged']}/{v['constants']}/{v['rows']}"
                                     for g, v in s["fp16_constant_rows"].items())
                for n, s in splits.items()), "",
            "## Figures", "", *_published_lines(),
            "Cells give " + " / ".join(splits) + "; the class counts are the measured ones "
            "(zero:bandwidth:compute).", "", *report_lines(splits)]
    path = out / "report.md"
    path.write_text("\n".join(text))
    return path


def _print(splits: dict[str, Any]) -> None:
    for name, s in splits.items():
        for subset in SUBSETS:
            for g, per in s.get(subset, {}).items():
                for p, d in per.items():
                    c = d["classes"]
                    pub = d.get("published_llm")
                    print(f"sc26 {name} {subset} {g} {p}: rows {d['rows']} recall zero "
                          f"{_pct(c['zero']['recall'])} bandwidth "
                          f"{_pct(c['bandwidth']['recall'])} compute "
                          f"{_pct(c['compute']['recall'])}; within ±10% "
                          f"{_pct(d['within_10'])} ±50% {_pct(d['within_50'])} (measured > 0: "
                          f"{_pct(d['within_10_nonzero'])} / {_pct(d['within_50_nonzero'])})"
                          + (f"; published LLM {_pct(pub['within_10'])} / "
                             f"{_pct(pub['within_50'])}" if pub else ""))


def run(args: argparse.Namespace) -> int:
    table = with_loader_measurements(load_table(getattr(args, "sources", None), args.data_dir),
                                     args.data_dir)
    if args.limit:
        table = table.head(args.limit)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    splits: dict[str, Any] = {}
    for name, (rows, pred) in (
            ("development CV", development_predictions(table, args.folds, args.seed)),
            ("sealed", sealed_predictions(table))):
        verdict, _ = fp16_not_arithmetic(rows, args.data_dir)
        splits[name] = split_figures(rows, pred, verdict)
    prov = provenance(dataset="hecbench (kernel-performance.csv)",
                      split=f"development programs: program-grouped {args.folds}-fold CV; "
                      "sealed programs: a model trained on every development row",
                      seed=args.seed, predictor="learned (CountModel; CPU counts where the "
                      "shipped counted table has them)")
    path = write_report(out, splits, prov)
    (out / "results.json").write_text(json.dumps({"splits": splits, "provenance": prov,
                                                  "published_llm": {
                                                      f"{g} {p}": v for (g, p), v in
                                                      PUBLISHED_LLM.items()}},
                                                 indent=2, default=str))
    print(f"report: {path}")
    _print(splits)
    return 0


EVAL_TASKS.add("sc26", EvalTask(
    "sc26", "SC26FLOPBench intensity protocol: zero / bandwidth / compute recall and "
    "within ±10% / ±50% per GPU and precision (development CV and sealed programs)", run))
