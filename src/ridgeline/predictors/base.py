"""The one predictor interface: ``predict(kernel, launch, gpu) -> Prediction``."""

from __future__ import annotations

import abc
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ridgeline._registry import Registry
from ridgeline.errors import LaunchError
from ridgeline.hardware import GPU, Counts, Label, get_rule, rule_names, time_lower_bound
from ridgeline.sources.build import ProgramBuild

__all__ = [
    "Dim3",
    "parse_dim3",
    "check_launch_limits",
    "MAX_THREADS_PER_BLOCK",
    "MAX_BLOCK_DIM",
    "MAX_GRID_DIM",
    "KernelRef",
    "Launch",
    "Prediction",
    "Predictor",
    "PREDICTORS",
    "PREDICTOR_MODULES",
    "load_predictors",
    "get_predictor",
]

Dim3 = tuple[int, int, int]


def _dim_inner(text: str) -> str:
    """*text* without its blanks and one enclosing bracket of each side ("" when brackets
    remain), read in one pass: the pattern that did it had three runs of blanks in a row,
    which split a long run of blanks every way (cubic time)."""
    s = text.strip()
    if s.startswith(("(", "[")):
        s = s[1:]
    if s.endswith((")", "]")):
        s = s[:-1]
    s = s.strip()
    return "" if any(c in s for c in "()[]") else s


def parse_dim3(text: str | int | tuple[int, ...] | list[int] | None, what: str = "size") -> Dim3:
    """Read a grid or block size given as ``(256, 1, 1)``, ``256``, ``256,1,1`` or ``256x2``."""
    if text is None:
        raise LaunchError(f"{what} is missing")
    if isinstance(text, int):
        vals = [text]
    elif isinstance(text, tuple | list):
        vals = list(text)
    else:
        parts = [x for x in re.split(r"[,x\s]+", _dim_inner(str(text))) if x]
        try:
            vals = [int(float(x)) if float(x).is_integer() else -1 for x in parts]
        except ValueError:
            raise LaunchError(
                f"{what} {text!r} is not understood; use forms like '(256, 1, 1)', '256' or "
                "'256,1,1'"
            ) from None
    if not 1 <= len(vals) <= 3 or any(v < 1 for v in vals):
        raise LaunchError(
            f"{what} {text!r} must have 1 to 3 positive integers, e.g. '(256, 1, 1)' or '256'"
        )
    vals += [1] * (3 - len(vals))
    return (int(vals[0]), int(vals[1]), int(vals[2]))


#: CUDA's launch limits (compute capability 3.0 and later): threads per block, which every
#: cataloged GPU shares (NVIDIA's and AMD's alike), the block's x, y, z and the grid's x, y, z
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM: Dim3 = (1024, 1024, 64)
MAX_GRID_DIM: Dim3 = (2**31 - 1, 65535, 65535)


def check_launch_limits(grid: Dim3 | None, block: Dim3 | None, grid_name: str = "grid",
                        block_name: str = "block",
                        max_threads: int = MAX_THREADS_PER_BLOCK) -> None:
    """Raise :class:`LaunchError` when *grid* or *block* (None: not given) exceeds what CUDA
    can launch; the names (a flag, a column) say where in the message."""
    if block is not None:
        for axis, v, top in zip("xyz", block, MAX_BLOCK_DIM, strict=True):
            if v > top:
                raise LaunchError(
                    f"{block_name} {_dims(block)}: {_num(v)} threads in {axis}; allowed per block: "
                    f"x <= {MAX_BLOCK_DIM[0]}, y <= {MAX_BLOCK_DIM[1]}, z <= {MAX_BLOCK_DIM[2]}"
                    f" and x*y*z <= {max_threads}")
        if block[0] * block[1] * block[2] > max_threads:
            raise LaunchError(
                f"{block_name} {_dims(block)}: {block[0] * block[1] * block[2]} threads per "
                f"block; allowed at most {max_threads} (x*y*z)")
    if grid is not None:
        for axis, v, top in zip("xyz", grid, MAX_GRID_DIM, strict=True):
            if v > top:
                raise LaunchError(
                    f"{grid_name} {_dims(grid)}: {_num(v)} blocks in {axis}; allowed x <= "
                    f"{MAX_GRID_DIM[0]} (2^31-1), y <= {MAX_GRID_DIM[1]}, z <= {MAX_GRID_DIM[2]}")


def _dims(d: Dim3) -> str:
    return "(" + ", ".join(_num(v) for v in d) + ")"


def _num(v: int) -> str:
    return f"{v:.4g}" if v > 10**12 else str(v)


@dataclass(frozen=True)
class KernelRef:
    """Which kernel: its name and the program that holds it."""

    name: str
    sources: tuple[Path, ...] = ()
    language: str | None = None  # "cuda", "omp", "opencl"; None: detect
    defines: tuple[str, ...] = ()
    #: how the program is built (-D, -I, compile_commands.json; see
    #: :class:`ridgeline.sources.ProgramBuild`); None: the given *defines* alone
    build: ProgramBuild | None = None

    @property
    def program_dir(self) -> Path | None:
        if not self.sources:
            return None
        first = self.sources[0]
        return first if first.is_dir() else first.parent


@dataclass(frozen=True)
class Launch:
    """How the kernel is launched: grid and block (None: take them from the source) and the
    program's command-line arguments."""

    grid: Dim3 | None = None
    block: Dim3 | None = None
    args: str = ""
    #: the mangled name of the instantiation a CPU run launched (``_Z11copy_kernelIdEv...``):
    #: template parameters the launch site does not spell out; "" when unknown
    instance: str = ""

    @classmethod
    def parse(cls, grid: Any = None, block: Any = None, args: str | None = "") -> Launch:
        return cls(
            grid=None if grid in (None, "") else parse_dim3(grid, "grid"),
            block=None if block in (None, "") else parse_dim3(block, "block"),
            args="" if args is None else str(args),
        )

    @property
    def threads(self) -> int | None:
        if self.grid is None or self.block is None:
            return None
        g, b = self.grid, self.block
        return g[0] * g[1] * g[2] * b[0] * b[1] * b[2]


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


class Predictor(abc.ABC):
    """Everything that predicts implements this, so one harness compares them."""

    name: str = "predictor"

    @abc.abstractmethod
    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        """Predict counts, time and classes of one launch of *kernel* on *gpu*."""


#: predictors by name; implementations add themselves: ``PREDICTORS.add("name", Class)``
PREDICTORS: Registry[type[Predictor]] = Registry("predictor")


#: modules that register predictors; imported on demand (their heavy dependencies stay lazy)
PREDICTOR_MODULES = (
    "ridgeline.predictors.learned",
    "ridgeline.predictors.analytic",
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
