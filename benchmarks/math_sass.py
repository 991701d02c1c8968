"""Counted FLOPs of CUDA math functions, measured from the SASS nvcc emits (the numbers behind
ridgeline.counting.mathops.MATH_FLOPS and DIV_EXTRA).

    python benchmarks/math_sass.py [--arch sm_86] [--out benchmarks/results/math_sass.json]

One kernel per function (``o[i] = f(a[i])``) is compiled with default flags; in each, the
FADD/FMUL (1) and FFMA (2) instructions, and their DADD/DMUL/DFMA double twins, are summed from
the kernel's start to its first unpredicated EXIT (the fast path; slow paths sit after it),
leaving out predicated instructions (fix-ups for denormal or huge inputs, off for ordinary
ones). Printed beside the table's current value. Needs nvcc and cuobjdump (PATH, the CUDA
folder or PyPI nvidia-cuda-cuobjdump).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from ridgeline.compile._tools import find_tool
from ridgeline.counting.mathops import DIV_EXTRA, MATH_FLOPS

UNARY_SP = ["sqrtf", "expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf",
            "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf",
            "cbrtf", "erff", "erfcf", "rsqrtf"]
BINARY_SP = ["powf", "atan2f", "hypotf", "fmodf"]
WEIGHTS = {"FADD": 1, "FMUL": 1, "FFMA": 2, "DADD": 1, "DMUL": 1, "DFMA": 2}
_INSN = re.compile(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def _kernel(name: str, ty: str, nargs: int, expr: str = "") -> str:
    """``k_<name>``: o[i] = expr, by default the call ``name(a[i]{, b[i]})``."""
    params = "".join(f"const {ty}*{v}," for v in "ab"[:nargs])
    expr = expr or f"{name}({','.join(f'{v}[i]' for v in 'ab'[:nargs])})"
    return f"__global__ void k_{name}({params}{ty}*o){{int i=threadIdx.x;o[i]={expr};}}"


def kernels() -> str:
    out = []
    for fs, nargs in ((UNARY_SP, 1), (BINARY_SP, 2)):
        for f in fs:
            out += [_kernel(f, "float", nargs), _kernel(f[:-1], "double", nargs)]
    out += [_kernel("fdiv", "float", 2, "a[i]/b[i]"), _kernel("ddiv", "double", 2, "a[i]/b[i]")]
    return "\n".join(out) + "\n"


def fast_path_flops(sass: str) -> dict[str, dict[str, int]]:
    """{function: {"main": FLOPs to the first EXIT, "predicated": FLOPs left out}}."""
    res = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        m = re.search(r"k_(\w+?)P[KS]", part.split("\n")[0])
        if not m:
            continue
        main = pred = 0
        for line in part.split("\n"):
            ins = _INSN.search(line)
            if not ins:
                continue
            if ins.group(2) == "EXIT" and not ins.group(1):
                break
            w = WEIGHTS.get(ins.group(2), 0)
            if ins.group(1):
                pred += w
            else:
                main += w
        res[m.group(1)] = {"main": main, "predicated": pred}
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", default="sm_86")
    p.add_argument("--out", help="write the measurements as JSON here")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "m.cu", Path(tmp) / "m.cubin"
        src.write_text(kernels())
        subprocess.run([find_tool("nvcc"), f"-arch={a.arch}", "-cubin", "-o", str(cubin),
                        str(src)], check=True)
        sass = subprocess.run([find_tool("cuobjdump"), "-sass", str(cubin)], check=True,
                              capture_output=True, text=True).stdout
    res = fast_path_flops(sass)
    for name, v in sorted(res.items()):
        if name in ("fdiv", "ddiv"):
            table = 1 + DIV_EXTRA["sp" if name == "fdiv" else "dp"]
        else:
            table = MATH_FLOPS.get(name, ("", None))[1]
        v["table"] = table
        print(f"{name:8s} fast path {v['main']:4d}  predicated {v['predicated']:3d}  "
              f"table {table}")
    if a.out:
        Path(a.out).write_text(json.dumps({"arch": a.arch, "functions": res}, indent=1) + "\n")


if __name__ == "__main__":
    main()
