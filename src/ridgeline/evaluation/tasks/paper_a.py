"""``ridgeline eval --task paper-a --predictor llm --model NAME --scenario zero-shot``."""

from __future__ import annotations

import argparse
import sys

from ridgeline.errors import UsageError
from ridgeline.evaluation.tasks import EVAL_TASKS, EvalTask
from ridgeline.tables import print_table

__all__ = ["run_task"]


def run_task(args: argparse.Namespace) -> int:
    from ridgeline.evaluation.paper_a_run import PaperARun, run_paper_a
    from ridgeline.llm.runner import Failures

    predictor = (args.predictor or "llm").lower()
    if predictor not in ("llm", "llm-classifier"):
        raise UsageError(
            f"task 'paper-a' evaluates LLMs (--predictor llm); got --predictor {predictor!r}. "
            "Count predictors are compared on the hecbench task."
        )
    if not args.model:
        raise UsageError("task 'paper-a' needs --model (e.g. smollm2, openai:gpt-4o-mini)")
    run = PaperARun.from_cli(args)
    scenario = run.scenario
    frame, table, out = run_paper_a(run)
    print(f"paper-a, scenario {scenario}, model {args.model}: {len(frame)} kernels "
          f"({int(frame.cached.fillna(False).astype(bool).sum())} from cache, "
          f"{int(frame.error.notna().sum())} errors)")
    print_table(list(table.columns), table.itertuples(index=False))
    print(f"results: {out}")
    bad = frame[frame.error.notna()]
    fails = Failures(len(frame), [(str(i), int(n), str(e)) for i, n, e in
                                  zip(bad.id, bad.attempts, bad.error, strict=True)])
    fails.raise_if_all_failed(f" (results: {out})")
    if fails.failed:
        print(fails.warning(), file=sys.stderr)
    return 0


EVAL_TASKS.add(
    "paper-a",
    EvalTask("paper-a", "2025 roofline paper: LLM says Compute/Bandwidth for 243 HeCBench "
             "kernels (--predictor llm --model NAME --scenario zero-shot|few-shot|...)",
             run_task),
)
