"""Counted FLOPs of CUDA math functions, measured from the SASS nvcc emits (the numbers behind
ridgeline.counting.mathops.MATH_FLOPS and DIV_EXTRA).

    python benchmarks/math_sass.py [--arch sm_86] [--out benchmarks/results/math_sass.json]

One kernel per function (``o[i] = f(a[i])``), and one per division and reciprocal, is
compiled with default flags, and the FLOPs of each kernel's fast path are summed
(``ridgeline.compile.fastpath``); printed beside the value the counting uses. Needs nvcc and
cuobjdump (PATH, the CUDA folder or PyPI nvidia-cuda-cuobjdump). ``tools/math_sass.py`` measures
every documented function for the shipped table; this one checks the division and reciprocal
constants of ``counting.mathops`` with the same reading.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ridgeline.compile.fastpath import fast_path_flops, sass_of
from ridgeline.counting.mathops import DDIV_SP_CHECK, DIV_EXTRA, MATH_FLOPS, RCP_EXTRA

UNARY_SP = ["sqrtf", "expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf",
            "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf",
            "cbrtf", "erff", "erfcf", "rsqrtf"]
BINARY_SP = ["powf", "atan2f", "hypotf", "fmodf"]
def _kernel(name: str, ty: str, nargs: int, expr: str = "") -> str:
    """``k_<name>``: o[i] = expr, by default the call ``name(a[i]{, b[i]})``."""
    params = "".join(f"const {ty}*{v}," for v in "ab"[:nargs])
    expr = expr or f"{name}({','.join(f'{v}[i]' for v in 'ab'[:nargs])})"
    return (f'extern "C" __global__ void k_{name}({params}{ty}*o)'
            f"{{int i=threadIdx.x;o[i]={expr};}}")


def kernels() -> str:
    out = []
    for fs, nargs in ((UNARY_SP, 1), (BINARY_SP, 2)):
        for f in fs:
            out += [_kernel(f, "float", nargs), _kernel(f[:-1], "double", nargs)]
    out += [_kernel("fdiv", "float", 2, "a[i]/b[i]"), _kernel("ddiv", "double", 2, "a[i]/b[i]"),
            _kernel("frcp", "float", 1, "1.0f/a[i]"), _kernel("drcp", "double", 1, "1.0/a[i]")]
    return "\n".join(out) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", default="sm_86")
    p.add_argument("--out", help="write the measurements as JSON here")
    a = p.parse_args()
    res = {}
    for name, (flops, pred) in fast_path_flops(sass_of(kernels(), a.arch)).items():
        res[name.removeprefix("k_")] = {"main": flops["sp"] + flops["dp"], "predicated": pred}
    for name, v in sorted(res.items()):
        if name in ("fdiv", "ddiv"):
            # a double division's quotient check is one single-precision FFMA
            table = 1 + DIV_EXTRA["sp" if name == "fdiv" else "dp"] + (
                DDIV_SP_CHECK if name == "ddiv" else 0)
        elif name in ("frcp", "drcp"):
            table = 1 + RCP_EXTRA["sp" if name == "frcp" else "dp"]
        else:
            table = MATH_FLOPS.get(name, ("", None))[1]
        v["table"] = table
        print(f"{name:8s} fast path {v['main']:4d}  predicated {v['predicated']:3d}  "
              f"table {table}")
    if a.out:
        Path(a.out).write_text(json.dumps({"arch": a.arch, "functions": res}, indent=1) + "\n")


if __name__ == "__main__":
    main()
