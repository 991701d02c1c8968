"""Metrics, provenance and evaluation tasks."""

from ridgeline.evaluation.metrics import CLASSES, classification, regression
from ridgeline.evaluation.provenance import git_hash, provenance
from ridgeline.evaluation.tasks import EVAL_TASKS, TASK_MODULES, EvalTask, load_tasks

__all__ = [
    "CLASSES",
    "classification",
    "regression",
    "git_hash",
    "provenance",
    "EVAL_TASKS",
    "TASK_MODULES",
    "EvalTask",
    "load_tasks",
]
