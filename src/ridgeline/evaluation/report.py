"""Markdown report of the HeCBench evaluation, with PNG plots beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.evaluation.plots import confusion_plot, roofline_chart, time_scatter
from ridgeline.learning.model import TIME_RANGE

__all__ = ["write_report", "class_row", "time_row"]


def _f(v: Any, pct: bool = True) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "-"
    return f"{100 * v:.1f}%" if pct else f"{v:.3f}"


def class_row(name: str, m: dict[str, Any]) -> str:
    return f"| {name} | {m.get('n', '-')} | {_f(m.get('accuracy'))} | " \
           f"{_f(m.get('macro_f1'))} | {_f(m.get('mcc'), False)} |"


def time_row(name: str, m: dict[str, Any]) -> str:
    return f"| {name} | {int(m.get('n', 0))} | {_f(m.get('median_ape'))} | " \
           f"{_f(m.get('mape'))} | {_f(m.get('within_2x'))} | {_f(m.get('within_25pct'))} |"


_CLASS_HEAD = "| predictor | rows | accuracy | macro-F1 | MCC |\n|---|---|---|---|---|"
_TIME_HEAD = ("| split | rows | median APE | MAPE | within 2x | within 25% |\n"
              "|---|---|---|---|---|---|")


def _paper_a_section(out: Path, pa: dict[str, Any]) -> list[str]:
    lines = ["## Paper-A set (RTX 3080), program-grouped 5-fold CV", "",
             f"{pa['rows']} rows of {pa['programs']} programs ({pa['skipped_rows']} rows whose "
             "program folder could not be analysed are left out). Split: " + pa["split"] + ".",
             "", _CLASS_HEAD,
             class_row("majority class", pa["majority"]),
             class_row("paper's best LLM (o3-mini-high, 340 kernels; published)",
                       {**pa["paper_best_llm"], "n": 340}),
             class_row("analytic (ridgeline)", pa["analytic"]),
             class_row("learned (ridgeline, default)", pa["learned"]), ""]
    for key in ("learned", "analytic"):
        png = confusion_plot(out / f"confusion-paper-a-{key}.png", pa[key]["confusion"],
                             pa[key]["labels"], f"paper-A, {key}")
        lines.append(f"![{key} confusion]({png.name})")
    return lines + [""]


_PROTOCOL_TITLES = {
    "cv": "program-grouped 5-fold CV", "logo": "leave-one-GPU-out (programs seen "
    "on other GPUs; not the target)", "unseen": "unseen GPU AND unseen program",
    "sealed": "sealed programs (model trained on every development row)",
    "sealed_unseen_gpu": "sealed programs on a GPU left out of training"}


def _protocol_section(prot: dict[str, Any]) -> list[str]:
    lines = ["## Paper-A class on all kernel-performance rows (three GPUs)", "",
             "Truth: the paper-A rule applied to the measured counts on the row's GPU.", ""]
    titles = _PROTOCOL_TITLES
    for key, title in titles.items():
        if key not in prot:
            continue
        lines += [f"### {title}", "", "| GPU | rows | learned acc | learned MCC | analytic acc "
                  "| majority acc | time median APE | time within 2x | time in its range "
                  "(width) |", "|---|---|---|---|---|---|---|---|---|"]
        for g, s in prot[key].items():
            if g.startswith("_"):
                continue
            lc, ac, mc, tl = (s["class_learned"], s["class_analytic"], s["class_majority"],
                              s["time_learned"])
            lines.append(f"| {g} | {s['rows']} | {_f(lc['accuracy'])} | "
                         f"{_f(lc['mcc'], False)} | {_f(ac['accuracy'])} | "
                         f"{_f(mc['accuracy'])} | {_f(tl.get('median_ape'))} | "
                         f"{_f(tl.get('within_2x'))} | {_range(s.get('time_range'))} |")
        lines.append("")
    lines += ["The time's range is the one `ridgeline predict` prints (nominally "
              f"{TIME_RANGE:.0%} of measured times inside), from the errors of the "
              "training rows' own program-grouped folds; width is high / low.", ""]
    return lines


def _range(r: dict[str, Any] | None) -> str:
    return "-" if not r else f"{_f(r['inside'])} (x{r['median_width']:.1f})"


def _calibration_section(cal: dict[str, Any]) -> list[str]:
    """The stated confidence of the paper-a class against the share right, by bin."""
    lines = ["## Confidence of the class (program-grouped CV, all GPUs)", "",
             "`ridgeline predict` states how likely its paper-A class is right (`conf`). "
             "Here is that figure against the share of rows whose class was right, by "
             "confidence bin, for rows with CPU-execution counts and rows whose counts are "
             "learned. The confidence's two logistics were fitted on these predictions (four "
             "numbers, `learning.confidence.CONFIDENCE`); `benchmarks/confidence_calibration.py` "
             "checks them on programs left out of the fit.", "",
             "| counts | confidence | rows | mean stated | share right |",
             "|---|---|---|---|---|"]
    for origin in ("counted", "learned"):
        c = cal.get(origin) or {}
        for b in c.get("bins", []):
            lines.append(f"| {origin} | {b['from']:.2f}-{b['to']:.2f} | {b['rows']} | "
                         f"{_f(b['confidence'])} | {_f(b['right'])} |")
    briers = ", ".join(f"{o} {cal[o]['brier']:.3f} ({cal[o]['rows']} rows)"
                       for o in ("counted", "learned") if cal.get(o, {}).get("rows"))
    return lines + ["", f"Brier score: {briers}.", ""]


def _plots(out: Path, prot: dict[str, Any], table: pd.DataFrame) -> list[str]:
    if "cv" not in prot or "_pred" not in prot["cv"]:
        return []
    from ridgeline.evaluation.out_of_program import prepared_rows

    full = prepared_rows(table)
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    pred = prot["cv"]["_pred"]
    lines = ["## Plots (program-grouped CV predictions)", ""]
    png = time_scatter(out / "time-cv.png", hb["m_time_ns"].to_numpy(),
                       pred["time_ns"].to_numpy(), "time, program-grouped 5-fold CV")
    lines.append(f"![time]({png.name})")
    for g in sorted(hb["gpu"].unique()):
        m = (hb["gpu"] == g).to_numpy()
        meas = {"flops": hb.loc[m, ["m_flops_sp", "m_flops_dp", "m_flops_hp"]].sum(axis=1),
                "bytes": hb.loc[m, "m_dram_bytes"], "time_ns": hb.loc[m, "m_time_ns"]}
        pr = pred[m]
        predd = {"flops": pr[["flops_sp", "flops_dp", "flops_hp"]].sum(axis=1),
                 "bytes": pr["dram_bytes"], "time_ns": pr["time_ns"]}
        png = roofline_chart(out / f"roofline-{g.replace(' ', '_')}.png", g, meas, predd)
        lines.append(f"![roofline {g}]({png.name})")
    lines += ["", "## Per-category (program-grouped CV, all GPUs)", ""]
    lines += _category_table(table, hb, pred)
    return lines + [""]


def _category_table(table: pd.DataFrame, hb: pd.DataFrame, pred: pd.DataFrame) -> list[str]:
    from ridgeline.evaluation.hecbench_eval import _classes, _truth

    try:
        from ridgeline import datasets

        cats = datasets.load("hecbench").drop_duplicates("source").set_index("source")["category"]
    except Exception:  # noqa: BLE001 - categories are optional decoration
        return ["(categories unavailable: shared data not found)"]
    truth = _classes(_truth(hb), hb["gpu"])
    got = _classes(pred, hb["gpu"])
    df = pd.DataFrame({"cat": hb["source"].map(cats).fillna("?"),
                       "ok": [a == b for a, b in zip(truth, got, strict=True)],
                       "ratio": pred["time_ns"].to_numpy() / hb["m_time_ns"].to_numpy()})
    lines = ["| category | rows | class accuracy | time within 2x |", "|---|---|---|---|"]
    for c, g in df.groupby("cat"):
        r = g["ratio"].to_numpy(float)
        w2 = float(np.mean((r <= 2) & (r >= 0.5))) if len(r) else float("nan")
        lines.append(f"| {c} | {len(g)} | {_f(float(g['ok'].mean()))} | {_f(w2)} |")
    return lines


def _sealed_section(sealed: dict[str, Any]) -> list[str]:
    lines = ["## Sealed slice", "",
             f"{sealed.get('programs', 0)} programs set aside by the salted-hash rule of "
             "`ridgeline.datasets.sealed` (the CV figures above use the other "
             f"{sealed.get('development_programs', 0)} only). Each figure here comes from a "
             "model trained on every development row.", ""]
    spa = sealed.get("paper_a")
    if spa:
        lines += [_CLASS_HEAD, class_row("learned, sealed paper-A rows", spa["learned"]), ""]
    rest = {k: v for k, v in sealed.items() if k in ("sealed", "sealed_unseen_gpu")}
    return lines + _protocol_section(rest)[4:]


def write_report(out: Path, pa: dict[str, Any], prot: dict[str, Any], table: pd.DataFrame,
                 prov: dict[str, Any], sealed: dict[str, Any] | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# ridgeline HeCBench evaluation", "",
             "Every figure is on programs the model did not see in training "
             "(program-grouped splits, `ridgeline.datasets.group_kfold`). The CV runs on the "
             "development programs; the sealed slice is reported apart.", ""]
    lines += _paper_a_section(out, pa)
    cv = prot.get("cv", {}).get("all")
    if cv:
        lines += ["## Time (learned), program-grouped 5-fold CV", "", _TIME_HEAD,
                  time_row("all GPUs", cv["time_learned"]), ""]
    lines += _protocol_section(prot)
    if sealed:
        lines += _sealed_section(sealed)
    if "_calibration" in prot.get("cv", {}):
        lines += _calibration_section(prot["cv"]["_calibration"])
    lines += _plots(out, prot, table)
    lines += ["## Provenance", "", "```json", json.dumps(prov, indent=2, default=str), "```", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
