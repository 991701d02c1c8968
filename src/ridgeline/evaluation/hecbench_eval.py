"""``ridgeline eval --task hecbench``: the count predictors on HeCBench, program-grouped.

Protocols (every one keeps a program out of training when it is tested):
- ``paper-a``: the paper's balanced RTX 3080 set, program-grouped 5-fold CV; models trained on
  the kernel-performance rows of the other folds' programs.
- ``cv``: program-grouped 5-fold CV over all kernel-performance rows (three GPUs).
- ``logo``: leave-one-GPU-out (programs seen on other GPUs; reported, not the target).
- ``unseen``: each GPU held out in turn AND program-grouped folds, so neither the row's GPU
  nor its program is in training.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets import group_kfold
from ridgeline.evaluation.metrics import classification, regression
from ridgeline.evaluation.out_of_program import (
    fit_rows,
    out_of_program_predictions,
    prepared_rows,
)
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.tasks import EVAL_TASKS, EvalTask
from ridgeline.hardware import Counts, get_gpu, get_rule
from ridgeline.learning.confidence import margin_confidence, ridge_margin
from ridgeline.learning.counted_columns import has_counts

__all__ = ["load_table", "cv_paper_a", "run_protocols", "PAPER_BEST"]

PAPER_BEST = {"accuracy": 0.641, "macro_f1": 0.623, "mcc": 0.314}
_COUNT_COLS = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]


def load_table(sources: str | None = None, data_dir: str | None = None) -> pd.DataFrame:
    """The feature table: rebuilt from *sources* when given, else the shipped one."""
    if sources:
        from ridgeline.predictors.training import build_table

        return build_table(sources, data_dir)
    from importlib import resources

    from ridgeline.learning.shipped import TABLE_FILE

    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        return pd.read_parquet(fh)


def _classes(counts: pd.DataFrame, gpus: pd.Series, rule: str = "paper-a") -> list[str]:
    r = get_rule(rule)
    out = []
    for row, g in zip(counts[_COUNT_COLS].itertuples(index=False), gpus, strict=True):
        out.append(r.classify(Counts(*(float(v) for v in row)), get_gpu(g)).value or "")
    return out


def _analytic(test: pd.DataFrame) -> pd.DataFrame:
    cols = {"flops_sp": "a_sp", "flops_dp": "a_dp", "flops_hp": "a_hp", "int_ops": "a_int",
            "dram_bytes": "a_bytes"}
    return pd.DataFrame({k: np.clip(10 ** test[v].to_numpy(float) - 1, 0, None)
                         for k, v in cols.items()})


def cv_paper_a(table: pd.DataFrame, folds: int = 5, seed: int = 4839) -> dict[str, Any]:
    full = prepared_rows(table)
    pa = full[full["dataset"] == "paper-a"].reset_index(drop=True)
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    pred = out_of_program_predictions(hb, pa, folds, seed)
    y_true = list(pa["label"])
    learned = _classes(pred, pa["gpu"])
    analytic = _classes(_analytic(pa), pa["gpu"])
    majority = []
    for tr, te in group_kfold(pa, folds, seed):
        maj = pd.Series(pa["label"].iloc[tr]).mode().iloc[0]
        majority += [(i, maj) for i in te]
    maj_pred = [m for _, m in sorted(majority)]
    has = has_counts(pa)
    sub = [i for i in range(len(pa)) if has[i]]
    counted: dict[str, Any] = {"rows": len(sub), "coverage": len(sub) / max(len(pa), 1)}
    if sub:
        counted["learned"] = classification([y_true[i] for i in sub], [learned[i] for i in sub])
        counted["analytic"] = classification([y_true[i] for i in sub],
                                             [analytic[i] for i in sub])
        counted["learned_uncounted_rows"] = classification(
            [y_true[i] for i in range(len(pa)) if not has[i]],
            [learned[i] for i in range(len(pa)) if not has[i]])
    return {
        "rows": len(pa), "programs": int(pa["program"].nunique()),
        "counted_rows": counted,
        "skipped_rows": int((table["dataset"] == "paper-a").sum() - len(pa)),
        "split": f"program-grouped {folds}-fold CV (seed {seed})",
        "learned": classification(y_true, learned),
        "analytic": classification(y_true, analytic),
        "majority": classification(y_true, maj_pred),
        "paper_best_llm": PAPER_BEST,
        "_pred": pd.DataFrame({"label": y_true, "learned": learned, "analytic": analytic,
                               "gpu": pa["gpu"], "source": pa["source"]}),
    }


def _truth(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[["m_" + c for c in _COUNT_COLS]].rename(columns=lambda c: c[2:])


def _summ(rows: pd.DataFrame, pred: pd.DataFrame, sub_counted: bool = True) -> dict[str, Any]:
    truth = _classes(_truth(rows), rows["gpu"])
    ok = [t != "" for t in truth]
    learned = _classes(pred, rows["gpu"])
    analytic = _classes(_analytic(rows), rows["gpu"])
    keep = np.array(ok)
    y = [t for t, k in zip(truth, ok, strict=True) if k]
    maj = pd.Series(y).mode().iloc[0]
    mt = rows["m_time_ns"].to_numpy(float)
    tm = np.isfinite(mt) & (mt > 0)
    out = {
        "rows": len(rows),
        "class_learned": classification(y, [p for p, k in zip(learned, ok, strict=True) if k]),
        "class_analytic": classification(y, [p for p, k in zip(analytic, ok, strict=True)
                                             if k]),
        "class_majority": classification(y, [maj] * len(y)),
        "time_learned": regression(mt[tm], pred["time_ns"].to_numpy(float)[tm]),
        "time_range": time_range_hits(mt[tm], pred["time_lo_ns"].to_numpy(float)[tm],
                                      pred["time_hi_ns"].to_numpy(float)[tm])
        if "time_lo_ns" in pred else {},
    }
    del keep
    if "c_has" in rows and sub_counted:
        has = has_counts(rows)
        cr: dict[str, Any] = {"rows": int(has.sum()), "coverage": float(has.mean())}
        if has.sum() >= 2:
            cr.update(_summ(rows[has], pred[has], sub_counted=False))
        out["counted_rows"] = cr
    return out


def time_range_hits(measured: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> dict[str, Any]:
    """How often the predicted time range held the measured time (rows with a range), how
    often it fell below and above, and the range's median width (high / low)."""
    ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(measured)
    if not ok.any():
        return {}
    m, lo, hi = measured[ok], lo[ok], hi[ok]
    return {"n": int(ok.sum()), "inside": float(np.mean((m >= lo) & (m <= hi))),
            "below": float(np.mean(m < lo)), "above": float(np.mean(m > hi)),
            "median_width": float(np.median(hi / np.maximum(lo, 1e-12)))}


#: the confidence bins of the calibration table (lower edges; the last bin ends at 1)
CONFIDENCE_BINS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)


def class_outcomes(rows: pd.DataFrame, pred: pd.DataFrame
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row of *rows* with predicted counts *pred*: the distance |m| (log10) of the
    predicted counts' deciding intensity from its ridge (NaN without a class), whether the
    predicted paper-a class is the measured one (1.0 or 0.0), whether the row has both (a
    measured class and a margin), and whether its counts come from CPU execution."""
    truth = _classes(_truth(rows), rows["gpu"])
    learned = _classes(pred, rows["gpu"])
    margin = np.array([np.nan if m is None else abs(m) for m in (
        ridge_margin(Counts(*(float(v) for v in row)), get_gpu(g))
        for row, g in zip(pred[_COUNT_COLS].itertuples(index=False), rows["gpu"],
                          strict=True))], float)
    right = np.array([t == p for t, p in zip(truth, learned, strict=True)], float)
    keep = np.array([t != "" for t in truth]) & np.isfinite(margin)
    has = has_counts(rows)
    return margin, right, keep, has


def calibration(rows: pd.DataFrame, pred: pd.DataFrame) -> dict[str, Any]:
    """How well the stated confidence of the predicted paper-a class
    (:func:`ridgeline.learning.confidence.class_confidence`) matches the share of rows whose
    class is right, by confidence bin, for rows with CPU-execution counts and without; with
    the Brier score of each."""
    margin, right, keep, has = class_outcomes(rows, pred)
    conf = np.array([margin_confidence(m, bool(h)) if k else np.nan
                     for m, h, k in zip(margin, has, keep, strict=True)])
    out: dict[str, Any] = {}
    for origin, sel in (("counted", has), ("learned", ~has)):
        m = keep & sel
        out[origin] = {"rows": int(m.sum()), "bins": confidence_bins(conf[m], right[m]),
                       "brier": float(np.mean((conf[m] - right[m]) ** 2)) if m.any()
                       else float("nan")}
    return out


def confidence_bins(conf: np.ndarray, right: np.ndarray) -> list[dict[str, float]]:
    """Rows, mean stated confidence and share right (*right*: 1.0 or 0.0 per row) in each
    :data:`CONFIDENCE_BINS` bin that has rows."""
    edges = [*CONFIDENCE_BINS, 1.0 + 1e-9]
    bins = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        b = (conf >= lo) & (conf < hi)
        if b.any():
            bins.append({"from": lo, "to": min(hi, 1.0), "rows": int(b.sum()),
                         "confidence": float(conf[b].mean()), "right": float(right[b].mean())})
    return bins


def run_protocols(table: pd.DataFrame, folds: int = 5, seed: int = 4839,
                  which: tuple[str, ...] = ("cv", "logo", "unseen")) -> dict[str, Any]:
    full = prepared_rows(table)
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    res: dict[str, Any] = {}
    if "cv" in which:
        pred = out_of_program_predictions(hb, hb, folds, seed)
        res["cv"] = {"all": _summ(hb, pred), "_pred": pred,
                     "_calibration": calibration(hb, pred)}
        for g in sorted(hb["gpu"].unique()):
            m = (hb["gpu"] == g).to_numpy()
            res["cv"][g] = _summ(hb[m], pred[m])
    if "logo" in which:
        res["logo"] = {}
        for g in sorted(hb["gpu"].unique()):
            test = hb[hb["gpu"] == g]
            model = fit_rows(hb[hb["gpu"] != g])
            res["logo"][g] = _summ(test, model.predict(test).set_index(test.index))
    if "unseen" in which:
        res["unseen"] = {}
        for g in sorted(hb["gpu"].unique()):
            test = hb[hb["gpu"] == g].reset_index(drop=True)
            pred = out_of_program_predictions(hb[hb["gpu"] != g], test, folds, seed)
            res["unseen"][g] = _summ(test, pred)
    return res


def run(args: argparse.Namespace) -> int:
    from ridgeline.evaluation.report import write_report

    table = load_table(getattr(args, "sources", None), args.data_dir)
    if args.limit:
        table = table.head(args.limit)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from ridgeline.evaluation.sealed_eval import development_rows, sealed_figures

    dev = development_rows(table)
    pa = cv_paper_a(dev, args.folds, args.seed)
    prot = run_protocols(dev, args.folds, args.seed)
    sealed = sealed_figures(table)
    prov = provenance(dataset="hecbench + paper-a",
                      split="program-grouped CV on the development programs; sealed slice "
                      "predicted by models trained on every development row", seed=args.seed,
                      predictor="learned (CountModel) vs analytic vs majority")
    path = write_report(out, pa, prot, dev, prov, sealed)
    clean = {"paper_a": {k: v for k, v in pa.items() if not k.startswith("_")},
             "protocols": _strip(prot), "sealed": sealed, "provenance": prov}
    if "_calibration" in prot.get("cv", {}):
        clean["confidence_calibration"] = prot["cv"]["_calibration"]
    (out / "results.json").write_text(json.dumps(clean, indent=2, default=str))
    print(f"report: {path}")
    print(f"paper-a (RTX 3080, program-grouped CV): learned accuracy "
          f"{pa['learned']['accuracy']:.3f} MCC {pa['learned']['mcc']:.3f}; "
          f"analytic {pa['analytic']['accuracy']:.3f}; majority {pa['majority']['accuracy']:.3f}")
    _print_summary(pa, prot)
    _print_sealed(sealed)
    return 0


def _print_sealed(sealed: dict[str, Any]) -> None:
    """The sealed slice's figures, one line each, in the format of the CV lines."""
    spa = sealed.get("paper_a")
    if spa:
        print(f"sealed paper-a: rows {spa['rows']} ({spa['programs']} programs) learned "
              f"{_fmt_cls(spa['learned'])}")
    for name in ("sealed", "sealed_unseen_gpu"):
        for g, r in sealed.get(name, {}).items():
            print(_protocol_line(name, g, r))


def _fmt_cls(d: dict[str, Any]) -> str:
    return f"acc {d['accuracy']:.3f} MCC {d['mcc']:.3f}"


def _fmt_time(d: dict[str, Any], rng: dict[str, Any] | None = None) -> str:
    out = (f"median APE {d['median_ape']:.3f} within-2x {d['within_2x']:.3f} "
           f"MAPE {d['mape']:.3f}")
    if rng:
        out += f" in-range {rng['inside']:.3f} (x{rng['median_width']:.1f} wide)"
    return out


def _print_summary(pa: dict[str, Any], prot: dict[str, Any]) -> None:
    """Overall figures and the same on the rows with CPU-execution counts (coverage)."""
    c = pa.get("counted_rows", {})
    if c.get("rows"):
        print(f"paper-a rows with counts: {c['rows']}/{pa['rows']} ({c['coverage']:.1%}): "
              f"learned {_fmt_cls(c['learned'])}; rows without counts: "
              f"{_fmt_cls(c['learned_uncounted_rows'])}")
    for name in ("cv", "unseen", "logo"):
        for g, r in prot.get(name, {}).items():
            if g.startswith("_") or not isinstance(r, dict) or "class_learned" not in r:
                continue
            print(_protocol_line(name, g, r))


def _protocol_line(name: str, gpu: str, r: dict[str, Any]) -> str:
    """One protocol's class and time figures on one GPU, then on its rows with counts."""
    line = (f"{name} {gpu}: rows {r['rows']} class {_fmt_cls(r['class_learned'])}; "
            f"time {_fmt_time(r['time_learned'], r.get('time_range'))}")
    cr = r.get("counted_rows")
    if cr and cr.get("rows"):
        line += (f" | counted rows {cr['rows']} ({cr['coverage']:.1%}): class "
                 f"{_fmt_cls(cr['class_learned'])}; time "
                 f"{_fmt_time(cr['time_learned'], cr.get('time_range'))}")
    return line


def _strip(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _strip(v) for k, v in d.items() if not str(k).startswith("_")}
    return d


EVAL_TASKS.add("hecbench", EvalTask(
    "hecbench", "count predictors on HeCBench: paper-A set CV, 5-fold CV, leave-one-GPU-out, "
    "unseen GPU + unseen program", run))
