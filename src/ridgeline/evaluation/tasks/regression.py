"""``ridgeline eval --task clgen-regression``: the LLMPerf-style time regressors on CLgen's
GTX 970 and HD 7970 ``runtime_gpu`` rows, kernel-grouped 90/10 (held-out kernels only);
``--task pocl-regression --model DATAGEN_DIR`` does the same on a local datagen run."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ridgeline.evaluation.tasks import EVAL_TASKS, EvalTask

__all__ = ["run_clgen", "run_pocl"]

_KINDS = {"gbm-regressor": "gbm", "gbm": "gbm", "llm-regressor": "llm", "llm": "llm"}


def _kinds(args: argparse.Namespace) -> list[str]:
    p = getattr(args, "predictor", None)
    if p is None:
        return ["gbm"]
    if p == "all":
        return ["gbm", "llm"]
    if p not in _KINDS:
        from ridgeline.errors import UnknownNameError

        raise UnknownNameError("regressor", p, [*_KINDS, "all"])
    return [_KINDS[p]]


def _progress(args: argparse.Namespace) -> bool:
    """Progress bars on a terminal, unless --quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _write(out: Path, name: str, report: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(report, indent=2, default=str))
    print(json.dumps(report, indent=2, default=str))


def run_clgen(args: argparse.Namespace) -> int:
    from ridgeline.datagen.clgen import CLGEN_GPUS, clgen_rows
    from ridgeline.evaluation.provenance import provenance
    from ridgeline.evaluation.regressors import evaluate_split, make_regressor

    results = {}
    for which in ("nvidia", "amd"):
        rows = clgen_rows(which, getattr(args, "data_dir", None))
        if args.limit:
            keep = sorted(rows["kernel_file"].unique())[: args.limit]
            rows = rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)
        for kind in _kinds(args):
            reg = make_regressor(kind, getattr(args, "model", None), False, args.seed)
            m, _ = evaluate_split(rows, reg, args.seed, _progress(args))
            results[f"{CLGEN_GPUS[which][1]} / {kind}"] = m
    _write(Path(args.out), "clgen-regression", {
        "task": "clgen-regression", "split": f"kernel-grouped 90/10, seed {args.seed}",
        "target": "runtime_gpu (ms, includes transfers), modelled as log2(us)",
        "results": results, "provenance": provenance(seed=args.seed)})
    return 0


def run_pocl(args: argparse.Namespace) -> int:
    from ridgeline.datagen.store import datagen_rows
    from ridgeline.errors import UsageError
    from ridgeline.evaluation.provenance import provenance
    from ridgeline.evaluation.regressors import evaluate_folds, evaluate_split, make_regressor

    if not getattr(args, "model", None):
        raise UsageError("--task pocl-regression needs --model DATAGEN_DIR (a datagen output)")
    stat = getattr(args, "pocl_time", "median") or "median"
    rows = datagen_rows(args.model, stat)
    results: dict[str, Any] = {}
    for kind in _kinds(args):
        m, _ = evaluate_split(rows, make_regressor(kind, None, False, args.seed), args.seed,
                              _progress(args))
        results[kind] = m
        results[f"{kind} / 5-fold"] = evaluate_folds(
            rows, lambda kind=kind: make_regressor(kind, None, False, args.seed), 5, args.seed,
            _progress(args))
    _write(Path(args.out), "pocl-regression", {
        "task": "pocl-regression", "datagen": str(args.model),
        "split": f"kernel-grouped 90/10 and 5-fold, seed {args.seed}",
        "target": f"kernel time log2(us), {stat} of each sample's repeats",
        "results": results, "provenance": provenance(seed=args.seed)})
    return 0


EVAL_TASKS.add("clgen-regression", EvalTask(
    "clgen-regression", "OpenCL time regression on CLgen GTX 970 / HD 7970 (held-out kernels)",
    run_clgen))
EVAL_TASKS.add("pocl-regression", EvalTask(
    "pocl-regression", "OpenCL time regression on a local datagen run (--model DIR)",
    run_pocl))
