"""``ridgeline eval --task clgen-regression``: the LLMPerf-style time regressors on CLgen's
GTX 970 and HD 7970 ``runtime_gpu`` rows, kernel-grouped 90/10 (held-out kernels only);
``--task pocl-regression --model DATAGEN_DIR`` does the same on a local datagen run.

:func:`clgen_report` and :func:`pocl_report` take a :class:`RegressionTask` and return the
report; ``run_clgen`` and ``run_pocl`` are the ``eval`` entries that write and print it."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline.datagen.store import datagen_rows
from ridgeline.errors import UnknownNameError, UsageError
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.regressors import evaluate_folds, evaluate_split, make_regressor
from ridgeline.evaluation.tasks import EVAL_TASKS, EvalTask

__all__ = ["RegressionTask", "clgen_report", "pocl_report", "run_clgen", "run_pocl"]

_KINDS = {"gbm-regressor": "gbm", "gbm": "gbm", "llm-regressor": "llm", "llm": "llm"}


@dataclass(frozen=True)
class RegressionTask:
    """Settings of a regression task: which regressors (``gbm``, ``llm``), the LLM backbone
    (clgen) or the datagen folder (pocl) as *model*, the first *limit* kernels (clgen), the
    time statistic of a datagen sample's repeats (pocl)."""

    kinds: tuple[str, ...] = ("gbm",)
    model: str | None = None
    data_dir: str | None = None
    limit: int | None = None
    seed: int = 4839
    time: str = "median"
    progress: bool = False

    @classmethod
    def from_cli(cls, args: Any) -> RegressionTask:
        """From ``ridgeline eval``'s flags: --predictor (gbm, llm, all), --model, --data-dir,
        --limit, --seed, --pocl-time; progress bars on a terminal unless --quiet."""
        return cls(kinds=_kinds(getattr(args, "predictor", None)),
                   model=getattr(args, "model", None), data_dir=getattr(args, "data_dir", None),
                   limit=getattr(args, "limit", None), seed=args.seed,
                   time=getattr(args, "pocl_time", "median") or "median",
                   progress=not getattr(args, "quiet", False) and sys.stderr.isatty())


def _kinds(predictor: str | None) -> tuple[str, ...]:
    if predictor is None:
        return ("gbm",)
    if predictor == "all":
        return ("gbm", "llm")
    if predictor not in _KINDS:
        raise UnknownNameError("regressor", predictor, [*_KINDS, "all"])
    return (_KINDS[predictor],)


def clgen_report(task: RegressionTask) -> dict[str, Any]:
    """Each regressor fitted on 90% of CLgen's kernels per GPU, scored on the rest."""
    from ridgeline.datagen.clgen import CLGEN_GPUS, clgen_rows

    results = {}
    for which in ("nvidia", "amd"):
        rows = clgen_rows(which, task.data_dir)
        if task.limit:
            keep = sorted(rows["kernel_file"].unique())[: task.limit]
            rows = rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)
        for kind in task.kinds:
            reg = make_regressor(kind, task.model, False, task.seed)
            m, _ = evaluate_split(rows, reg, task.seed, task.progress)
            results[f"{CLGEN_GPUS[which][1]} / {kind}"] = m
    return {"task": "clgen-regression", "split": f"kernel-grouped 90/10, seed {task.seed}",
            "target": "runtime_gpu (ms, includes transfers), modelled as log2(us)",
            "results": results, "provenance": provenance(seed=task.seed)}


def pocl_report(task: RegressionTask) -> dict[str, Any]:
    """Each regressor on the datagen folder *task.model*: 90/10 and 5-fold, kernel-grouped."""
    if not task.model:
        raise UsageError("--task pocl-regression needs --model DATAGEN_DIR (a datagen output)")
    rows = datagen_rows(task.model, task.time)
    results: dict[str, Any] = {}
    for kind in task.kinds:
        m, _ = evaluate_split(rows, make_regressor(kind, None, False, task.seed), task.seed,
                              task.progress)
        results[kind] = m
        results[f"{kind} / 5-fold"] = evaluate_folds(
            rows, lambda kind=kind: make_regressor(kind, None, False, task.seed), 5, task.seed,
            task.progress)
    return {"task": "pocl-regression", "datagen": str(task.model),
            "split": f"kernel-grouped 90/10 and 5-fold, seed {task.seed}",
            "target": f"kernel time log2(us), {task.time} of each sample's repeats",
            "results": results, "provenance": provenance(seed=task.seed)}


def _write(out: Path, name: str, report: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(report, indent=2, default=str))
    print(json.dumps(report, indent=2, default=str))


def run_clgen(args: argparse.Namespace) -> int:
    _write(Path(args.out), "clgen-regression", clgen_report(RegressionTask.from_cli(args)))
    return 0


def run_pocl(args: argparse.Namespace) -> int:
    _write(Path(args.out), "pocl-regression", pocl_report(RegressionTask.from_cli(args)))
    return 0


EVAL_TASKS.add("clgen-regression", EvalTask(
    "clgen-regression", "OpenCL time regression on CLgen GTX 970 / HD 7970 (held-out kernels)",
    run_clgen))
EVAL_TASKS.add("pocl-regression", EvalTask(
    "pocl-regression", "OpenCL time regression on a local datagen run (--model DIR)",
    run_pocl))
