"""The one predictor interface: ``predict(kernel, launch, gpu) -> Prediction``."""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ridgeline._registry import Registry
from ridgeline.hardware import GPU, Counts, Label, get_rule, rule_names, time_lower_bound
from ridgeline.launch import (
    MAX_BLOCK_DIM,
    MAX_GRID_DIM,
    MAX_THREADS_PER_BLOCK,
    Dim3,
    KernelRef,
    Launch,
    check_launch_limits,
    parse_dim3,
)

__all__ = [
    "Prediction",
    "Predictor",
    "Query",
    "PREDICTORS",
    "PREDICTOR_MODULES",
    "load_predictors",
    "get_predictor",
    # re-exported from ridgeline.launch, where they live
    "Dim3",
    "parse_dim3",
    "check_launch_limits",
    "MAX_THREADS_PER_BLOCK",
    "MAX_BLOCK_DIM",
    "MAX_GRID_DIM",
    "KernelRef",
    "Launch",
]


@dataclass
class Prediction:
    """What a predictor says about one kernel launch on one GPU."""

    kernel: str
    gpu: str
    counts: Counts
    time_s: float | None
    predictor: str
    labels: dict[str, Label] = field(default_factory=dict)
    confidence: float | None = None  # probability the paper-a class is right, when known
    origin: dict[str, str] = field(default_factory=dict)  # which path produced each number
    notes: list[str] = field(default_factory=list)
    #: the range (low, high) that holds the measured time in TIME_RANGE of cases, when known
    time_range_s: tuple[float, float] | None = None

    @classmethod
    def from_counts(
        cls,
        kernel: str,
        gpu: GPU,
        counts: Counts,
        predictor: str,
        time_s: float | None = None,
        **kw: Any,
    ) -> Prediction:
        """Derive every rule's label (and the roofline time bound when no time is given)."""
        labels = {r: get_rule(r).classify(counts, gpu) for r in rule_names()}
        if time_s is None:
            time_s = time_lower_bound(counts, gpu)
        return cls(kernel, gpu.name, counts, time_s, predictor, labels, **kw)

    def to_dict(self) -> dict[str, Any]:
        c = self.counts
        return {
            "kernel": self.kernel,
            "gpu": self.gpu,
            "predictor": self.predictor,
            "flops_sp": c.flops_sp,
            "flops_dp": c.flops_dp,
            "flops_hp": c.flops_hp,
            "int_ops": c.int_ops,
            "dram_bytes": c.dram_bytes,
            "time_s": self.time_s,
            "time_range_s": None if self.time_range_s is None else list(self.time_range_s),
            "class": {k: v.value for k, v in self.labels.items()},
            "intensity": next(
                (v.intensity for v in self.labels.values() if v.intensity), None
            ),
            "confidence": self.confidence,
            "origin": dict(self.origin),
            "notes": list(self.notes),
        }


#: one row of a frame of launches to predict: which kernel, how it is launched, on which GPU
Query = tuple[KernelRef, Launch, GPU]


class Predictor(abc.ABC):
    """Everything that predicts implements this, so one harness compares them."""

    name: str = "predictor"

    @abc.abstractmethod
    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        """Predict counts, time and classes of one launch of *kernel* on *gpu*."""

    def predict_frame(self, queries: Iterable[Query]) -> list[Prediction]:
        """One :class:`Prediction` per (kernel, launch, gpu) row, in order. The default asks
        :meth:`predict` row by row; a predictor with a batch path overrides it and gives the
        same predictions (the conformance tests check it). A row that fails raises, as
        :meth:`predict` does."""
        return [self.predict(kernel, launch, gpu) for kernel, launch, gpu in queries]


#: predictors by name; implementations add themselves: ``PREDICTORS.add("name", Class)``
PREDICTORS: Registry[type[Predictor]] = Registry("predictor")


#: modules that register predictors; imported on demand (their heavy dependencies stay lazy)
PREDICTOR_MODULES = (
    "ridgeline.predictors.learned",
    "ridgeline.predictors.analytic",
    "ridgeline.predictors.physical_predictor",
    "ridgeline.predictors.llm_classifier",
    "ridgeline.predictors.gbm_regressor",
    "ridgeline.predictors.llm_regressor",
)


def load_predictors() -> Registry[type[Predictor]]:
    """The registry with every predictor module imported (a module whose optional
    dependencies are missing is left out; asking for it then names what exists)."""
    import importlib

    for mod in PREDICTOR_MODULES:
        try:
            importlib.import_module(mod)
        except ImportError:
            continue
    return PREDICTORS


def get_predictor(name: str, **params: Any) -> Predictor:
    """A predictor instance by registered name."""
    return load_predictors().get(name)(**params)
