"""``ridgeline eval``: run a named evaluation task and write its report."""

from __future__ import annotations

import argparse

from ridgeline.cli._common import add_data_dir, add_gpu_file
from ridgeline.cli.llm import add_call_limits
from ridgeline.evaluation.tasks import TASK_MODULES, load_tasks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate predictors on ground truth (program-grouped splits)",
        description="Run an evaluation task and write a report with provenance. Every figure "
        "is measured on programs the model did not see (program-grouped splits).",
        epilog="examples:\n"
        "  ridgeline eval --task hecbench --out runs/eval\n"
        "  ridgeline eval --task paper-a --predictor llm --model smollm2 --scenario zero-shot\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--task", default=None, help="task name (see --list)")
    p.add_argument("--list", action="store_true", help="list tasks and exit")
    p.add_argument("--predictor", default=None, help="predictor name (task default if omitted)")
    p.add_argument("--model", default=None, help="model name or path (LLM / regressor tasks)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (LLM tasks)")
    p.add_argument("--scenario", default=None, help="LLM scenario (LLM tasks)")
    add_call_limits(p)
    p.add_argument("--folds", type=int, default=5, help="program-grouped folds (default 5)")
    p.add_argument("--seed", type=int, default=4839, help="random seed (default 4839)")
    p.add_argument("--limit", type=int, default=None, help="evaluate only the first N rows")
    p.add_argument("--pocl-time", choices=("median", "min"), default="median",
                   help="pocl-regression: a sample's time is the median of its repeats "
                   "(default) or the fastest, free of the runtime's thread wake-ups")
    p.add_argument("--out", default="runs/eval", help="output folder for the report")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars (none either when stderr is not a terminal)")
    add_data_dir(p)
    add_gpu_file(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    tasks = load_tasks()
    if args.list or args.task is None:
        if not TASK_MODULES:
            print("no evaluation tasks are installed")
        for name in tasks:
            print(f"{name:20s} {tasks.get(name).help}")
        return 0
    return tasks.get(args.task).run(args)
