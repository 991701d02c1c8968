"""What a library math call costs in counted GPU FLOPs.

Nsight Compute counts FLOPs per SASS instruction whose predicate is on (FADD/FMUL = 1,
FFMA = 2; MUFU, FSETP, FMNMX and conversions are not FLOPs). A CUDA math function compiles to
a short sequence of such instructions, so a source-level ``logf`` is many counted FLOPs on
the GPU. The numbers below are the FADD/FMUL/FFMA (DADD/DMUL/DFMA) content of each function's
fast path as nvcc 13 compiles it for sm_86 with default flags (IEEE division and square
root, no fast math): the instructions from the kernel's start to its first EXIT, leaving out
predicated ones (denormal and overflow fix-ups that are off for ordinary inputs) and the
out-of-line slow paths; double ``pow``'s fast path calls a subroutine (logarithm and
exponential) that is counted with it. ``benchmarks/math_sass.py`` re-measures them. Functions
whose fast path loops (``fmod``, ``fmodf``) keep estimates. ``sincosf`` /
``sincos`` (one range reduction, two polynomials: 24 / 36) are read off the same listing
without the one-instruction infinite-argument branch the fast path jumps over. ``sinf(x)``
and ``cosf(x)`` of one value share their range reduction (``SIN_COS_REDUCTION``; each keeps
its own polynomial and quadrant fix-ups, ``instrument.shared_sin_cos``).
"""

from __future__ import annotations

__all__ = ["MATH_FLOPS", "MATH_PREFIX_SKIP", "INT_CALL_OPS", "DIV_EXTRA", "RCP_EXTRA",
           "DDIV_SP_CHECK", "SIN_COS_REDUCTION", "SINH_COSH_SHARED",
           "FAST_MATH_FLOPS", "APPROX_SQRTF_FLOPS"]

#: name -> (precision when not given by the name, counted FLOPs per call)
MATH_FLOPS: dict[str, tuple[str, float]] = {
    # single precision
    "sqrtf": ("sp", 6), "expf": ("sp", 10), "exp2f": ("sp", 0), "exp10f": ("sp", 10),
    "expm1f": ("sp", 20), "logf": ("sp", 24), "log2f": ("sp", 26), "log10f": ("sp", 25),
    "log1pf": ("sp", 26), "sinf": ("sp", 18), "cosf": ("sp", 18), "tanf": ("sp", 21),
    "sincosf": ("sp", 24), "asinf": ("sp", 21), "acosf": ("sp", 22), "atanf": ("sp", 18),
    "atan2f": ("sp", 31), "sinhf": ("sp", 19), "coshf": ("sp", 11), "tanhf": ("sp", 13),
    "powf": ("sp", 62), "cbrtf": ("sp", 10), "erff": ("sp", 15), "erfcf": ("sp", 53),
    "hypotf": ("sp", 13), "fmodf": ("sp", 6), "rsqrtf": ("sp", 0), "ldexpf": ("sp", 1),
    "__rl_expf_fast": ("sp", 2), "__rl_logf_fast": ("sp", 1), "__rl_sinf_fast": ("sp", 1),
    "__rl_cosf_fast": ("sp", 1), "__rl_powf_fast": ("sp", 3), "__rl_fdividef": ("sp", 1),
    "__rl_rsqrtf": ("sp", 0), "_Z6rsqrtff": ("sp", 0), "__rl_rcpf": ("sp", 5),
    "__rl_tanf_fast": ("sp", 2),
    "__rl_exp10f_fast": ("sp", 2), "__rl_log2f_fast": ("sp", 0), "__rl_log10f_fast": ("sp", 1),
    # bfloat16 arithmetic of the CUDA layer (cuda_bf16.h): the GPU's BF16 HADD/HMUL/HFMA
    "__rl_bf16_add": ("hp", 1), "__rl_bf16_sub": ("hp", 1), "__rl_bf16_mul": ("hp", 1),
    "__rl_bf16_div": ("hp", 1), "__rl_bf16_fma": ("hp", 2),
    # double precision
    "sqrt": ("dp", 13), "exp": ("dp", 30), "exp2": ("dp", 29), "exp10": ("dp", 33),
    "expm1": ("dp", 35), "log": ("dp", 44), "log2": ("dp", 47), "log10": ("dp", 47),
    "log1p": ("dp", 84), "sin": ("dp", 23), "cos": ("dp", 23), "tan": ("dp", 55),
    "sincos": ("dp", 36), "asin": ("dp", 74), "acos": ("dp", 73), "atan": ("dp", 48),
    "atan2": ("dp", 63), "sinh": ("dp", 70), "cosh": ("dp", 38), "tanh": ("dp", 62),
    "pow": ("dp", 123), "cbrt": ("dp", 17), "erf": ("dp", 79), "erfc": ("dp", 113),
    "hypot": ("dp", 17), "fmod": ("dp", 10), "rsqrt": ("dp", 8), "ldexp": ("dp", 1),
}

#: runtime functions of the CUDA layer that stand for one GPU integer instruction each (the
#: byte and halfword dot products ``__dp4a`` / ``__dp2a_lo`` / ``__dp2a_hi``: IDP4A, IDP2A):
#: name -> (operation kind, count). Written out inline they were some 14 integer operations
INT_CALL_OPS: dict[str, tuple[str, float]] = {"__rl_dp4a": ("int_arith", 1),
                                              "__rl_dp2a": ("int_arith", 1)}

#: intrinsics that are not FLOPs on the GPU (min/max, abs, rounding, copysign, conversions)
MATH_PREFIX_SKIP: tuple[str, ...] = (
    "llvm.fabs", "llvm.minnum", "llvm.maxnum", "llvm.minimum", "llvm.maximum", "llvm.floor",
    "llvm.ceil", "llvm.trunc", "llvm.round", "llvm.rint", "llvm.nearbyint", "llvm.copysign",
    "llvm.lifetime", "llvm.dbg", "llvm.memcpy", "llvm.memset", "llvm.memmove", "fabs",
    "fmin", "fmax", "floor", "ceil", "trunc", "round", "copysign",
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

#: single-precision functions whose cost changes when nvcc builds with ``-use_fast_math``
#: (the ``__sinf``-style approximations): one MUFU plus at most a multiply or two, read off
#: nvcc 13's sm_86 SASS the same way. Division becomes a reciprocal and a multiply (no
#: refinement: ``DIV_EXTRA`` does not apply); the sine and cosine of one value share only
#: their multiply (``FAST_SIN_COS_SHARED``).
FAST_MATH_FLOPS: dict[str, float] = {
    "sinf": 1, "cosf": 1, "tanf": 2, "expf": 1, "exp10f": 1, "logf": 1, "log10f": 1,
    "log2f": 0, "powf": 1, "sqrtf": 0, "tanhf": 0, "hypotf": 7,
}

#: ``sqrtf`` where libdevice takes its approximate branch (``sqrt.approx.f32``: multi-function
#: unit instructions, no counted FLOP), as clang builds whose NVVM reflection leaves
#: ``__CUDA_PREC_SQRT`` at 0 do (CUDA and OpenMP offload through libdevice). The RTX 3080
#: rows behind the paper-A set measured hellinger's ``sum += sqrtf(a * b)`` at 2 FLOPs per
#: iteration (7.28 G for 2.36 M threads x 1536 iterations); kernel-performance.csv, whose
#: build keeps the IEEE square root, at 8 (28.9 G)
APPROX_SQRTF_FLOPS = 0.0
