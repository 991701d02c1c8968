"""What a library math call costs in counted GPU FLOPs.

Nsight Compute counts FLOPs per SASS instruction whose predicate is on (FADD/FMUL = 1,
FFMA = 2; MUFU, FSETP, FMNMX and conversions are not FLOPs). A CUDA math function compiles to
a short sequence of such instructions, so a source-level ``logf`` is many counted FLOPs on
the GPU. Every function of the CUDA Math API lists (single and double precision functions
and intrinsics, ``data/math/functions.csv``) has its FADD/FMUL/FFMA (DADD/DMUL/DFMA) content
per architecture and build in ``data/math/flops.csv``: the fast path, from the kernel's start
to its first EXIT, as nvcc 13 compiles it with default flags (IEEE division and square root)
and with ``-use_fast_math``, leaving out predicated instructions (denormal and overflow
fix-ups that are off for ordinary inputs) and the out-of-line slow paths; double ``pow``'s
fast path calls a subroutine (logarithm and exponential) that is counted with it.
``tools/math_sass.py`` writes that table. Minimum, maximum, absolute value, rounding,
``copysign`` and conversions are no FLOPs on the GPU: they count zero whatever their SASS
(``fabsf`` may be an ``FADD`` with a negated zero). No documented function falls to being
counted as the CPU's libm runs it: a function of the list without a table entry is an error
(:func:`math_table`). ``sinf(x)`` and ``cosf(x)`` of one value share their range reduction
(``SIN_COS_REDUCTION``; each keeps its own polynomial and quadrant fix-ups,
``instrument.shared_sin_cos``).
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache, cached_property
from importlib import resources
from typing import TypeVar

from ridgeline.errors import DataError
from ridgeline.hardware import GPU, get_gpu

log = logging.getLogger(__name__)
V = TypeVar("V")

__all__ = ["MATH_FLOPS", "MATH_PREFIX_SKIP", "INT_CALL_OPS", "DIV_EXTRA", "RCP_EXTRA",
           "DDIV_SP_CHECK", "SIN_COS_REDUCTION", "SINH_COSH_SHARED", "FAST_MATH_FLOPS",
           "APPROX_SQRTF_FLOPS",
           "DEFAULT_ARCH", "MATH_BUILDS", "documented_functions", "non_flops", "math_table",
           "shipped_archs", "math_arch", "MathEntry"]

#: the architecture counted when the target GPU's is unknown or not in the table (RTX 3080,
#: A10: the GPUs most counted programs were measured on)
DEFAULT_ARCH = "sm_86"
#: the table's builds: nvcc's defaults, and ``-use_fast_math``
MATH_BUILDS = ("default", "fast")

#: a math function's precision and its counted FLOPs per call by precision (a double
#: division's quotient check is a single-precision FFMA)
MathEntry = tuple[str, dict[str, float]]

#: read off the SASS by hand where the table's straight-line reading does not hold, by build,
#: for every architecture: ``sincosf`` / ``sincos`` (one range reduction, two polynomials)
#: without the infinite-argument branch the fast path jumps over and the inline slow
#: reduction; ``fmodf`` / ``fmod``, whose fast path loops, keep estimates
HAND_READ: dict[str, dict[str, MathEntry]] = {
    "default": {"sincosf": ("sp", {"sp": 24}), "sincos": ("dp", {"dp": 36}),
                "fmodf": ("sp", {"sp": 6}), "fmod": ("dp", {"dp": 10})},
    "fast": {"fmodf": ("sp", {"sp": 6}), "fmod": ("dp", {"dp": 10})},
}

#: the CPU layer's names for the intrinsics (``runtime/rl_cuda.h``) -> the documented ones
ALIASES: dict[str, str] = {
    "__rl_expf_fast": "__expf", "__rl_logf_fast": "__logf", "__rl_sinf_fast": "__sinf",
    "__rl_cosf_fast": "__cosf", "__rl_powf_fast": "__powf", "__rl_fdividef": "__fdividef",
    "__rl_rsqrtf": "rsqrtf", "__rl_rcpf": "__frcp_rn", "__rl_tanf_fast": "__tanf",
    "__rl_exp10f_fast": "__exp10f", "__rl_log2f_fast": "__log2f",
    "__rl_log10f_fast": "__log10f",
}

#: bfloat16 arithmetic of the CUDA layer (cuda_bf16.h): the GPU's BF16 HADD/HMUL/HFMA
EXTRA: dict[str, MathEntry] = {
    "__rl_bf16_add": ("hp", {"hp": 1}), "__rl_bf16_sub": ("hp", {"hp": 1}),
    "__rl_bf16_mul": ("hp", {"hp": 1}), "__rl_bf16_div": ("hp", {"hp": 1}),
    "__rl_bf16_fma": ("hp", {"hp": 2}),
}


def _rows(name: str) -> list[dict[str, str]]:
    text = (resources.files("ridgeline") / "data" / "math" / name).read_text()
    return list(csv.DictReader(ln for ln in text.splitlines() if not ln.startswith("#")))


@cache
def documented_functions() -> tuple[tuple[str, str, str], ...]:
    """(name, precision, signature) of every function of the CUDA Math API lists
    (``data/math/functions.csv``)."""
    return tuple((r["name"], r["precision"], r["signature"]) for r in _rows("functions.csv"))


@cache
def non_flops() -> frozenset[str]:
    """The documented functions that are no FLOPs on the GPU (group ``nonflop``: minimum,
    maximum, absolute value, rounding, ``copysign``, conversions to integers, ``nan``)."""
    return frozenset(r["name"] for r in _rows("functions.csv") if r["group"] == "nonflop")


@cache
def _measured() -> dict[tuple[str, str], dict[str, dict[str, float]]]:
    out: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for r in _rows("flops.csv"):
        flops = {p: float(r[p]) for p in ("sp", "dp") if float(r[p])}
        out.setdefault((r["arch"], r["build"]), {})[r["name"]] = flops
    return out


@cache
def shipped_archs() -> tuple[str, ...]:
    """The architectures ``data/math/flops.csv`` has, in order."""
    return tuple(sorted({a for a, _ in _measured()}, key=lambda a: int(a[3:])))


def check_table(names: Iterable[tuple[str, str, str]],
                measured: dict[str, dict[str, float]], where: str) -> None:
    """Raise DataError when a documented function (not a named non-FLOP) has no measured
    FLOPs in *measured*: it would otherwise be counted as the CPU's libm runs it."""
    missing = [n for n, _, _ in names if n not in measured and n not in non_flops()]
    if missing:
        raise DataError(f"data/math/flops.csv has no {where} entry for {len(missing)} "
                        f"documented math functions ({', '.join(missing[:8])}...); rerun "
                        "tools/math_sass.py")


@cache
def math_table(arch: str = DEFAULT_ARCH, build: str = "default") -> dict[str, MathEntry]:
    """name -> (precision, counted FLOPs per call by precision) of every documented math
    function (zero for the named non-FLOPs), the CPU layer's intrinsic names and its
    bfloat16 arithmetic, as nvcc builds for *arch* (``sm_86``) with *build* (``default``
    or ``fast``). Raises DataError for an architecture or build the table lacks, or a
    documented function without an entry."""
    measured = _measured().get((arch, build))
    if measured is None:
        raise DataError(f"no math FLOPs for {arch} / {build} in data/math/flops.csv; "
                        f"architectures {', '.join(shipped_archs())}, builds "
                        f"{', '.join(MATH_BUILDS)}")
    check_table(documented_functions(), measured, f"{arch} / {build}")
    table: dict[str, MathEntry] = {}
    for name, prec, _ in documented_functions():
        table[name] = (prec, {} if name in non_flops() else dict(measured[name]))
    table.update(HAND_READ.get(build, {}))
    for alias, name in ALIASES.items():
        table[alias] = table[name]
    table.update(EXTRA)
    return table


def math_arch(gpus: Sequence[str | GPU] | None) -> str:
    """The architecture whose math FLOPs a run counts: the first target GPU's (the catalog's
    compute capability) when the table has it, else :data:`DEFAULT_ARCH` (logged)."""
    for g in gpus or []:
        try:
            arch = get_gpu(g).sm_arch
        except (KeyError, ValueError):
            arch = None
        if arch in shipped_archs():
            return arch
        log.info("math FLOPs: no table for %s (%s); counting as %s",
                 getattr(g, "name", g), arch, DEFAULT_ARCH)
        return DEFAULT_ARCH
    return DEFAULT_ARCH


class _Lazy(Mapping[str, V]):
    """A table built from the data files on first use (not on import)."""

    def __init__(self, build: Callable[[], dict[str, V]]) -> None:
        self._build = build

    @cached_property
    def _table(self) -> dict[str, V]:
        return self._build()

    def __getitem__(self, key: str) -> V:
        return self._table[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


def _default_totals() -> dict[str, tuple[str, float]]:
    return {n: (p, sum(f.values())) for n, (p, f) in math_table().items()
            if n not in non_flops()}


def _fast_totals() -> dict[str, float]:
    default, fast = math_table(), math_table(DEFAULT_ARCH, "fast")
    return {n: sum(f.values()) for n, (p, f) in fast.items()
            if p == "sp" and f != default[n][1]}


#: name -> (precision, counted FLOPs per call) on :data:`DEFAULT_ARCH`, default build
MATH_FLOPS: Mapping[str, tuple[str, float]] = _Lazy(_default_totals)
#: the single-precision functions whose counted FLOPs change under ``-use_fast_math``
#: (:data:`DEFAULT_ARCH`): name -> counted FLOPs per call
FAST_MATH_FLOPS: Mapping[str, float] = _Lazy(_fast_totals)


#: runtime functions of the CUDA layer that stand for one GPU integer instruction each (the
#: byte and halfword dot products ``__dp4a`` / ``__dp2a_lo`` / ``__dp2a_hi``: IDP4A, IDP2A):
#: name -> (operation kind, count). Written out inline they were some 14 integer operations
INT_CALL_OPS: dict[str, tuple[str, float]] = {"__rl_dp4a": ("int_arith", 1),
                                              "__rl_dp2a": ("int_arith", 1)}

#: LLVM intrinsics that are not FLOPs on the GPU (min/max, abs, rounding, copysign, and
#: the bookkeeping ones); the library's own such functions are :func:`non_flops`
MATH_PREFIX_SKIP: tuple[str, ...] = (
    "llvm.fabs", "llvm.minnum", "llvm.maxnum", "llvm.minimum", "llvm.maximum", "llvm.floor",
    "llvm.ceil", "llvm.trunc", "llvm.round", "llvm.rint", "llvm.nearbyint", "llvm.copysign",
    "llvm.lrint", "llvm.llrint", "llvm.lround", "llvm.llround",
    "llvm.lifetime", "llvm.dbg", "llvm.memcpy", "llvm.memset", "llvm.memmove",
)

#: extra counted FLOPs of an IEEE division beyond the one the ``fdiv`` itself counts
#: (reciprocal refinement, fast path on sm_86: five FFMA, 10 counted FLOPs, in SP; seven DFMA
#: and a DMUL, 15, in DP)
DIV_EXTRA: dict[str, float] = {"sp": 9, "dp": 14, "hp": 0}

#: the same for a reciprocal, ``1 / x`` (nvcc's ``__frcp_rn`` / ``__drcp_rn``): FFMA, FADD,
#: FFMA (5 counted FLOPs) in SP, five DFMA (10) in DP
RCP_EXTRA: dict[str, float] = {"sp": 4, "dp": 9, "hp": 0}

#: the single-precision FFMA with which a double division checks its quotient's range
#: (``FFMA R0, RZ, hi(b), hi(q)``): 2 counted SP FLOPs per DP division. Without it the
#: double programs' divisions showed up as 2 DP FLOPs too many and 2 SP FLOPs missing
#: (lid-driven-cavity: 262 K SP FLOPs measured beside 131 K divisions)
DDIV_SP_CHECK = 2.0

#: the range reduction (x * 2/pi, then three FMAs: 7 counted FLOPs) that nvcc computes once
#: when a kernel takes the single-precision sine and cosine of the same value; the
#: double-precision pair keeps two reductions (seen in nvcc 13's sm_86 SASS)
SIN_COS_REDUCTION: dict[str, float] = {"sp": 7, "dp": 0}

#: ``sinhf(x)`` and ``coshf(x)`` of one value: nvcc computes the exponential and its
#: reciprocal once (langevin's ``coshf(x)/sinhf(x)``: 22 counted FLOPs for the pair, 24 where
#: sinhf's small-argument polynomial runs, instead of 11 + 19); double precision not measured
SINH_COSH_SHARED: dict[str, float] = {"sp": 7, "dp": 0}

#: ``__sinf(x)`` and ``__cosf(x)`` of one value (or ``__sincosf``, or ``sinf`` and ``cosf``
#: under ``-use_fast_math``): one ``FMUL.RZ`` by 1/(2 pi) feeds both ``MUFU.SIN`` and
#: ``MUFU.COS`` (nvcc 13, sm_86; fhd's loop: 15 FLOPs per iteration measured, 16 without)
FAST_SIN_COS_SHARED: dict[str, float] = {"sp": 1, "dp": 0}

#: ``sqrtf`` where libdevice takes its approximate branch (``sqrt.approx.f32``: multi-function
#: unit instructions, no counted FLOP), as clang builds whose NVVM reflection leaves
#: ``__CUDA_PREC_SQRT`` at 0 do (CUDA and OpenMP offload through libdevice). The RTX 3080
#: rows behind the paper-A set measured hellinger's ``sum += sqrtf(a * b)`` at 2 FLOPs per
#: iteration (7.28 G for 2.36 M threads x 1536 iterations); kernel-performance.csv, whose
#: build keeps the IEEE square root, at 8 (28.9 G)
APPROX_SQRTF_FLOPS = 0.0

