"""What a library math call costs in counted GPU FLOPs.

Nsight Compute counts FLOPs per SASS instruction (FADD/FMUL = 1, FFMA = 2; MUFU, FSETP,
FMNMX and conversions are not FLOPs). A CUDA math function compiles to a short sequence of
such instructions, so a source-level ``sqrtf`` is several counted FLOPs on the GPU. The
numbers below are the FADD/FMUL/FFMA content of the sm_80 code of CUDA's libdevice with
default flags (IEEE division and square root, no fast math), rounded; they are estimates
(data-dependent slow paths are not included) and are the main reason FLOP counts from
source differ from measured ones on math-heavy kernels.
"""

from __future__ import annotations

__all__ = ["MATH_FLOPS", "MATH_PREFIX_SKIP", "DIV_EXTRA"]

#: name -> (precision when not given by the name, counted FLOPs per call)
MATH_FLOPS: dict[str, tuple[str, float]] = {
    # single precision
    "sqrtf": ("sp", 4), "expf": ("sp", 8), "exp2f": ("sp", 2), "exp10f": ("sp", 8),
    "expm1f": ("sp", 14), "logf": ("sp", 14), "log2f": ("sp", 6), "log10f": ("sp", 14),
    "log1pf": ("sp", 16), "sinf": ("sp", 22), "cosf": ("sp", 22), "tanf": ("sp", 30),
    "sincosf": ("sp", 34), "asinf": ("sp", 18), "acosf": ("sp", 20), "atanf": ("sp", 22),
    "atan2f": ("sp", 28), "sinhf": ("sp", 18), "coshf": ("sp", 14), "tanhf": ("sp", 16),
    "powf": ("sp", 40), "cbrtf": ("sp", 12), "erff": ("sp", 18), "erfcf": ("sp", 26),
    "hypotf": ("sp", 10), "fmodf": ("sp", 6), "rsqrtf": ("sp", 0), "ldexpf": ("sp", 1),
    "__rl_expf_fast": ("sp", 2), "__rl_logf_fast": ("sp", 1), "__rl_sinf_fast": ("sp", 1),
    "__rl_cosf_fast": ("sp", 1), "__rl_powf_fast": ("sp", 3), "__rl_fdividef": ("sp", 1),
    "__rl_rsqrtf": ("sp", 0), "_Z6rsqrtff": ("sp", 0), "__rl_rcpf": ("sp", 0),
    "__rl_tanf_fast": ("sp", 2),
    "__rl_exp10f_fast": ("sp", 2), "__rl_log2f_fast": ("sp", 0), "__rl_log10f_fast": ("sp", 1),
    # bfloat16 arithmetic of the CUDA layer (cuda_bf16.h): the GPU's BF16 HADD/HMUL/HFMA
    "__rl_bf16_add": ("hp", 1), "__rl_bf16_sub": ("hp", 1), "__rl_bf16_mul": ("hp", 1),
    "__rl_bf16_div": ("hp", 1), "__rl_bf16_fma": ("hp", 2),
    # double precision
    "sqrt": ("dp", 10), "exp": ("dp", 40), "exp2": ("dp", 36), "exp10": ("dp", 40),
    "expm1": ("dp", 44), "log": ("dp", 44), "log2": ("dp", 44), "log10": ("dp", 46),
    "log1p": ("dp", 48), "sin": ("dp", 44), "cos": ("dp", 44), "tan": ("dp", 50),
    "sincos": ("dp", 70), "asin": ("dp", 40), "acos": ("dp", 44), "atan": ("dp", 44),
    "atan2": ("dp", 52), "sinh": ("dp", 46), "cosh": ("dp", 44), "tanh": ("dp", 40),
    "pow": ("dp", 100), "cbrt": ("dp", 24), "erf": ("dp", 40), "erfc": ("dp", 50),
    "hypot": ("dp", 18), "fmod": ("dp", 10), "rsqrt": ("dp", 8), "ldexp": ("dp", 1),
}

#: intrinsics that are not FLOPs on the GPU (min/max, abs, rounding, copysign, conversions)
MATH_PREFIX_SKIP: tuple[str, ...] = (
    "llvm.fabs", "llvm.minnum", "llvm.maxnum", "llvm.minimum", "llvm.maximum", "llvm.floor",
    "llvm.ceil", "llvm.trunc", "llvm.round", "llvm.rint", "llvm.nearbyint", "llvm.copysign",
    "llvm.lifetime", "llvm.dbg", "llvm.memcpy", "llvm.memset", "llvm.memmove", "fabs",
    "fmin", "fmax", "floor", "ceil", "trunc", "round", "copysign",
)

#: extra counted FLOPs of an IEEE division beyond the one the ``fdiv`` itself counts
#: (reciprocal refinement: 5 FFMA in SP = 10 counted FLOPs, checked on HeCBench atan2)
DIV_EXTRA: dict[str, float] = {"sp": 9, "dp": 8, "hp": 0}
