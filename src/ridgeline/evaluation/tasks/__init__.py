"""Evaluation tasks by name. ``ridgeline eval --task NAME`` runs one.

A task is a callable taking the parsed CLI namespace and returning an exit code; it registers
itself with ``EVAL_TASKS.add("name", EvalTask(...))`` in its own module, listed in
``TASK_MODULES`` so that it is imported lazily when ``eval`` runs.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ridgeline._registry import Registry

__all__ = ["EvalTask", "EVAL_TASKS", "TASK_MODULES", "load_tasks"]


@dataclass(frozen=True)
class EvalTask:
    name: str
    help: str
    run: Callable[[argparse.Namespace], int]


EVAL_TASKS: Registry[EvalTask] = Registry("evaluation task")

#: modules that register tasks (imported on demand by load_tasks)
TASK_MODULES: list[str] = [
    "ridgeline.evaluation.hecbench_eval",
    "ridgeline.evaluation.sc26_eval",
    "ridgeline.evaluation.tasks.paper_a",
    "ridgeline.evaluation.tasks.regression",
]


def load_tasks() -> Registry[EvalTask]:
    for mod in TASK_MODULES:
        importlib.import_module(mod)
    return EVAL_TASKS
