"""The physical timing model (:mod:`ridgeline.predictors.physical`) against the learned trees,
on the HeCBench rows of the shipped feature table (whatever counted table is shipped).

    python benchmarks/physical_time.py [--cache DIR] [--json OUT.json] [--unseen]
    python benchmarks/physical_time.py --write-constants [--constants-only]
    python benchmarks/physical_time.py --sealed      # once, at the end, for the report

Protocols (development programs only unless ``--sealed``):

- ``cv``: program-grouped 5-fold CV of the ``hecbench`` task (same folds and seed as the
  learned model's, :func:`ridgeline.evaluation.oop_predictions.development_predictions`):
  the physical constants fitted on four folds' programs, the fifth predicted;
- ``heldout_gpu``: the constants fitted on the other two GPUs' development rows, the third
  GPU predicted (its programs were seen on the other GPUs), each way; beside it the learned
  model trained the same way (``logo``);
- ``heldout_gpu_program`` (``--unseen``): the GPU held out and program-grouped folds, so
  neither the row's GPU nor its program was in the fit (the learned model's ``unseen``
  protocol);
- blends, scored the same way: ``blend`` the geometric mean of the two models' times;
  ``counted-physical`` the physical time where a row has CPU-execution counts, the learned
  one elsewhere (what ``--predictor physical`` gives); with ``--stacked`` also ``stacked``,
  the trees given the physical time (log10 ns, and over the roofline bound) as features.

Figures: within 2x, median APE, MAPE, per GPU, on every timed row and on the rows with
CPU-execution counts. ``--write-constants`` writes ``models/physical-constants.json``: the
constants fitted on every development row and the 80% range from the ``cv`` errors.
``--sealed`` adds the sealed programs predicted by fits on every development row (report
only; choose nothing there). ``--cache DIR`` keeps the learned model's out-of-program
predictions (one model per fold, minutes each) and reuses them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.datasets import group_kfold, sealed_mask
from ridgeline.evaluation import out_of_program as oop
from ridgeline.evaluation.hecbench_eval import load_table
from ridgeline.evaluation.metrics import regression
from ridgeline.evaluation.provenance import provenance
from ridgeline.hardware import GPU, get_gpu
from ridgeline.predictors import physical as ph
from ridgeline.predictors import physical_fit as pf

FOLDS, SEED = 5, 4839
Split = Iterator[tuple[np.ndarray, np.ndarray]]


def _timed(frame: pd.DataFrame) -> np.ndarray:
    t = frame["m_time_ns"].to_numpy(float)
    return np.isfinite(t) & (t > 0)


def _fit_predict(rows: pd.DataFrame, gpus: list[GPU], x: ph.PhysInputs,
                 train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
    y = rows["m_time_ns"].to_numpy(float)
    c = pf.fit_constants(pf.subset(x, train), [gpus[i] for i in train], y[train])
    return ph.time_ns(pf.subset(x, test), [gpus[i] for i in test], c), c


def physical_oop(rows: pd.DataFrame, splits: Split,
                 train_mask: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Physical times of *rows*: each test part predicted by constants fitted on the timed
    rows *train_mask* keeps (given the test part's indices)."""
    gpus = [get_gpu(g) for g in rows["gpu"]]
    x = ph.inputs_from_frame(rows)
    out = np.full(len(rows), np.nan)
    timed = _timed(rows)
    for _, te in splits:
        tr = np.flatnonzero(train_mask(te) & timed)
        out[te], _ = _fit_predict(rows, gpus, x, tr, te)
    return out


def _program_out(rows: pd.DataFrame) -> Callable[[np.ndarray], np.ndarray]:
    progs = rows["program"].to_numpy()
    return lambda te: ~np.isin(progs, progs[te])


def _scores(rows: pd.DataFrame, preds: dict[str, np.ndarray]) -> dict[str, Any]:
    """Per GPU and all, on timed rows and on counted timed rows: each model's time figures."""
    out: dict[str, Any] = {}
    t = rows["m_time_ns"].to_numpy(float)
    timed = _timed(rows)
    has = rows["c_has"].to_numpy(float) == 1.0
    for g in ["all", *sorted(rows["gpu"].unique())]:
        on = timed & ((rows["gpu"] == g).to_numpy() if g != "all" else True)
        out[g] = {}
        for part, sel in (("rows", on), ("counted", on & has)):
            out[g][part] = {"n": int(sel.sum())}
            for name, p in preds.items():
                r = regression(list(t[sel]), list(p[sel]))
                out[g][part][name] = {k: r[k] for k in ("within_2x", "median_ape", "mape")}
    return out


def _blend(rows: pd.DataFrame, preds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """*preds* with the blends: ``blend`` the geometric mean of the two models' times,
    ``counted-physical`` the physical time on rows with CPU-execution counts and the learned
    time on the others."""
    if "learned" in preds and "physical" in preds:
        preds["blend"] = np.sqrt(preds["learned"] * preds["physical"])
        has = rows["c_has"].to_numpy(float) == 1.0
        preds["counted-physical"] = np.where(has, preds["physical"], preds["learned"])
    return preds


def _learned(cache: Path | None, name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    if cache is not None and (cache / f"{name}.npy").is_file():
        return np.load(cache / f"{name}.npy")
    v = make()
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(cache / f"{name}.npy", v)
    return v


def _learned_fold(hb: pd.DataFrame, test: pd.DataFrame, splits: Split,
                  mask: Callable[[pd.DataFrame, set[str]], np.ndarray]) -> np.ndarray:
    parts = []
    for _, te in splits:  # each fold's model never saw the fold's programs
        fold = test.iloc[te]
        model = oop.fit_rows(hb[mask(hb, set(fold["program"]))])
        parts.append(model.predict(fold).set_index(fold.index))
    return pd.concat(parts).sort_index()["time_ns"].to_numpy(float)


#: the physical time as the trees see it (log10 ns, and over the roofline bound ``roof_t_ns``)
STACK_COLUMNS = ("phys_log_ns", "phys_over_roof")


def _with_physical(rows: pd.DataFrame, c: dict[str, float]) -> pd.DataFrame:
    t = np.log10(ph.time_ns(ph.inputs_from_frame(rows), [get_gpu(g) for g in rows["gpu"]], c))
    return rows.assign(phys_log_ns=t, phys_over_roof=t - rows["roof_t_ns"].to_numpy(float))


def stacked(train: pd.DataFrame, test: pd.DataFrame) -> np.ndarray:
    """Times of *test* from the trees trained on *train* with the physical time (constants
    fitted on *train*) as two more features: numbers from counts and the GPU, nothing that
    names a program."""
    c = fit_all(train)
    oop.set_model_params(extra_features=STACK_COLUMNS)
    try:
        model = oop.fit_rows(_with_physical(train, c))
    finally:
        oop.set_model_params()
    return np.asarray(model.predict(_with_physical(test, c))["time_ns"], float)


def _stacked_cv(hb: pd.DataFrame) -> np.ndarray:
    out = np.full(len(hb), np.nan)
    progs = hb["program"].to_numpy()
    for _, te in group_kfold(hb, FOLDS, SEED):
        out[te] = stacked(hb[~np.isin(progs, progs[te])], hb.iloc[te])
    return out


def _heldout_gpu(hb: pd.DataFrame, g: str, cache: Path | None,
                 logo: dict[str, np.ndarray], unseen: dict[str, np.ndarray],
                 with_unseen: bool) -> None:
    """Fill *logo* (fits without GPU *g*) and *unseen* (without *g* and the row's program)
    on *g*'s rows."""
    on = (hb["gpu"] == g).to_numpy()
    idx = np.flatnonzero(on)
    progs = hb["program"].to_numpy()
    logo["physical"][on] = physical_oop(hb, iter([(idx, idx)]), lambda te: ~on)[on]
    logo["learned"][on] = _learned(cache, f"logo_{g}", lambda: oop.fit_rows(
        hb[~on]).predict(hb[on])["time_ns"].to_numpy(float))
    if not with_unseen:
        return
    sub = hb[on].reset_index(drop=True)
    unseen["physical"][idx] = physical_oop(
        hb, ((idx[tr], idx[te]) for tr, te in group_kfold(sub, FOLDS, SEED)),
        lambda te: ~on & ~np.isin(progs, progs[te]))[idx]
    unseen["learned"][on] = _learned(cache, f"unseen_{g}", lambda: _learned_fold(
        hb, sub, group_kfold(sub, FOLDS, SEED),
        lambda f, ps: ((f["gpu"] != g) & ~f["program"].isin(ps)).to_numpy()))


def development(table: pd.DataFrame, cache: Path | None, unseen_learned: bool,
                with_stacked: bool = False) -> dict[str, Any]:
    """The development protocols (``heldout_gpu_program`` with *unseen_learned*: 15 more
    fits of the learned model; the trees with the physical time on cv with
    *with_stacked*)."""
    hb, phys = physical_cv(table)
    res: dict[str, Any] = {}
    cv = {"physical": phys,
          "learned": _learned(cache, "cv", lambda: _learned_fold(
              hb, hb, group_kfold(hb, FOLDS, SEED),
              lambda f, progs: ~f["program"].isin(progs).to_numpy()))}
    if with_stacked:
        cv["stacked"] = _learned(cache, "cv_stacked", lambda: _stacked_cv(hb))
    res["cv"] = _scores(hb, _blend(hb, cv))
    if not unseen_learned:
        res["heldout_gpu"] = _scores(hb, _blend(hb, _heldout(hb, cache, False)[0]))
        return res
    logo, unseen = _heldout(hb, cache, True)
    res["heldout_gpu"] = _scores(hb, _blend(hb, logo))
    res["heldout_gpu_program"] = _scores(hb, _blend(hb, unseen))
    return res


def physical_cv(table: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The development HeCBench rows and their physical times under the cv protocol."""
    full = oop.prepared_rows(table[~sealed_mask(table)].reset_index(drop=True))
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    return hb, physical_oop(hb, group_kfold(hb, FOLDS, SEED), _program_out(hb))


def _heldout(hb: pd.DataFrame, cache: Path | None, with_unseen: bool
             ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    logo = {k: np.full(len(hb), np.nan) for k in ("physical", "learned")}
    unseen = {k: np.full(len(hb), np.nan) for k in ("physical", "learned")}
    for g in sorted(hb["gpu"].unique()):
        _heldout_gpu(hb, g, cache, logo, unseen, with_unseen)
    return logo, unseen


def sealed(table: pd.DataFrame, cache: Path | None, with_stacked: bool = False
           ) -> dict[str, Any]:
    """The sealed programs' rows from fits on every development row (report only)."""
    full = oop.prepared_rows(table)
    seal = sealed_mask(full)
    hb = (full["dataset"] == "hecbench").to_numpy()
    dev = full[hb & ~seal].reset_index(drop=True)
    test = full[hb & seal].reset_index(drop=True)
    c = fit_all(dev)
    preds = {"physical": ph.time_ns(ph.inputs_from_frame(test),
                                    [get_gpu(g) for g in test["gpu"]], c),
             "learned": _learned(cache, "sealed", lambda: oop.fit_rows(dev).predict(test)[
                 "time_ns"].to_numpy(float))}
    if with_stacked:
        preds["stacked"] = _learned(cache, "sealed_stacked", lambda: stacked(dev, test))
    out: dict[str, Any] = {"sealed": _scores(test, _blend(test, preds))}
    held: dict[str, np.ndarray] = {k: np.full(len(test), np.nan) for k in ("physical",
                                                                             "learned")}
    for g in sorted(test["gpu"].unique()):
        on = (test["gpu"] == g).to_numpy()
        tr = dev[dev["gpu"] != g]
        cg = fit_all(tr)
        held["physical"][on] = ph.time_ns(ph.inputs_from_frame(test[on]),
                                          [get_gpu(x) for x in test.loc[on, "gpu"]], cg)
        held["learned"][on] = _learned(cache, f"sealed_unseen_{g}", _fit_predict_learned(
            tr, test[on]))
    out["sealed_heldout_gpu"] = _scores(test, _blend(test, held))
    return out


def _fit_predict_learned(train: pd.DataFrame, test: pd.DataFrame
                         ) -> Callable[[], np.ndarray]:
    return lambda: np.asarray(oop.fit_rows(train).predict(test)["time_ns"], float)


def fit_all(rows: pd.DataFrame) -> dict[str, float]:
    """Constants fitted on every timed row of *rows*."""
    timed = _timed(rows)
    r = rows[timed].reset_index(drop=True)
    return pf.fit_constants(ph.inputs_from_frame(r), [get_gpu(g) for g in r["gpu"]],
                            r["m_time_ns"].to_numpy(float))


def write_constants(table: pd.DataFrame) -> Path:
    """models/physical-constants.json: every development row's fit, per generation, and the
    range from the cv errors."""
    hb, pred = physical_cv(table)
    err = np.log10(hb["m_time_ns"].to_numpy(float) / pred)
    dev = oop.prepared_rows(table[~sealed_mask(table)].reset_index(drop=True))
    dev = dev[dev["dataset"] == "hecbench"].reset_index(drop=True)
    gens = {ph.generation(get_gpu(g)) for g in dev["gpu"]}
    gens_out: dict[str, Any] = {}
    fitted_on: dict[str, list[str]] = {}
    rng = pf.range_factors(err, hb["c_has"].to_numpy(float) == 1.0)
    data: dict[str, Any] = {
        "generations": gens_out, "fitted_on": fitted_on, "range": rng,
        "range_share": pf.TIME_RANGE,
            "date": date.today().isoformat(),
            "how": "python benchmarks/physical_time.py --write-constants: robust (soft L1) "
                   "fit of log10 time on the development HeCBench rows of the shipped "
                   "feature table; range: 10% and 90% quantiles of log10(measured / "
                   "predicted) under program-grouped 5-fold CV"}
    for gen in sorted(gens):
        rows = dev[[ph.generation(get_gpu(g)) == gen for g in dev["gpu"]]]
        gens_out[gen] = pf.describe(fit_all(rows))
        fitted_on[gen] = sorted(rows["gpu"].unique())
    path = Path(ph.__file__).parent.parent / "models" / ph.CONSTANTS_FILE
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def _print(res: dict[str, Any]) -> None:
    for proto, by_gpu in res.items():
        for g, parts in by_gpu.items():
            for part, d in parts.items():
                figs = "  ".join(f"{m} {v['within_2x']:.1%} / {v['median_ape']:.1%} / "
                                 f"{v['mape']:.0%}" for m, v in d.items() if m != "n")
                print(f"{proto:20s} {g:22s} {part:8s} n={d['n']:5d}  {figs}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, help="keep the learned model's predictions here")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--write-constants", action="store_true",
                    help="write models/physical-constants.json from the development fit")
    ap.add_argument("--constants-only", action="store_true",
                    help="with --write-constants: nothing else")
    ap.add_argument("--unseen", action="store_true",
                    help="also the GPU and the program held out together (15 more fits of "
                    "the learned model)")
    ap.add_argument("--stacked", action="store_true",
                    help="also the trees with the physical time as two more features (cv "
                    "and sealed only: 5 more fits of the learned model)")
    ap.add_argument("--sealed", action="store_true",
                    help="also the sealed programs (report only; choose nothing there)")
    args = ap.parse_args(argv)
    table = load_table()
    if args.write_constants:
        print(f"constants: {write_constants(table)}")
        if args.constants_only:
            return 0
    res = development(table, args.cache, args.unseen, args.stacked)
    if args.sealed:
        res.update(sealed(table, args.cache, args.stacked))
    print("within 2x / median APE / MAPE per model")
    _print(res)
    if args.json:
        args.json.write_text(json.dumps({"figures": res, "provenance": provenance(
            dataset="hecbench (shipped feature table)", split="program-grouped 5-fold CV, "
            "held-out GPU; sealed with --sealed", seed=SEED,
            predictor="physical vs learned vs geometric-mean blend")}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
