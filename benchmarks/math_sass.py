"""Counted FLOPs of CUDA math functions, measured from the SASS nvcc emits (the numbers behind
ridgeline.counting.mathops.MATH_FLOPS and DIV_EXTRA).

    python benchmarks/math_sass.py [--arch sm_86] [--out benchmarks/results/math_sass.json]

One kernel per function (``o[i] = f(a[i])``) is compiled with default flags; in each, the
FADD/FMUL (1) and FFMA (2) instructions, and their DADD/DMUL/DFMA double twins, are summed from
the kernel's start to its first unpredicated EXIT (the fast path; slow paths sit after it),
leaving out predicated instructions (fix-ups for denormal or huge inputs, off for ordinary
ones). A subroutine the fast path calls unconditionally (no conditional branch jumps over the
call: double ``pow``'s logarithm and exponential) is summed the same way from its entry to its
first RET. Printed beside the table's current value. Needs nvcc and cuobjdump (PATH, the CUDA
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
from ridgeline.counting.mathops import DDIV_SP_CHECK, DIV_EXTRA, MATH_FLOPS, RCP_EXTRA

UNARY_SP = ["sqrtf", "expf", "exp2f", "exp10f", "expm1f", "logf", "log2f", "log10f", "log1pf",
            "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf",
            "cbrtf", "erff", "erfcf", "rsqrtf"]
BINARY_SP = ["powf", "atan2f", "hypotf", "fmodf"]
WEIGHTS = {"FADD": 1, "FMUL": 1, "FFMA": 2, "DADD": 1, "DMUL": 1, "DFMA": 2}
#: address, guard predicate, opcode, branch/call target (after an optional predicate operand)
_INSN = re.compile(r"/\*([0-9a-f]{4})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(?:\.[\w.]+)?\s*"
                   r"(?:!?U?P\w+,\s*)?(0x[0-9a-f]+)?")


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
    out += [_kernel("fdiv", "float", 2, "a[i]/b[i]"), _kernel("ddiv", "double", 2, "a[i]/b[i]"),
            _kernel("frcp", "float", 1, "1.0f/a[i]"), _kernel("drcp", "double", 1, "1.0/a[i]")]
    return "\n".join(out) + "\n"


def _count(insns: list[tuple[int, str, str, str]], start: int, stop: str) -> tuple[int, int]:
    """(FLOPs, predicated FLOPs) from address *start* to the first unpredicated *stop*
    (EXIT or RET), with the subroutines called unconditionally on the way."""
    main = pred = 0
    skipped_to = -1  # a conditional branch ahead jumps to here: what lies before may not run
    for addr, guard, op, target in insns:
        if addr < start:
            continue
        if op == stop and not guard:
            break
        if op == "BRA" and guard and target:
            skipped_to = max(skipped_to, int(target, 16))
        if op == "CALL" and not guard and target and stop == "EXIT" and addr >= skipped_to:
            m, p = _count(insns, int(target, 16), "RET")
            main, pred = main + m, pred + p
        w = WEIGHTS.get(op, 0)
        if guard:
            pred += w
        else:
            main += w
    return main, pred


def fast_path_flops(sass: str) -> dict[str, dict[str, int]]:
    """{function: {"main": FLOPs to the first EXIT, "predicated": FLOPs left out}}."""
    res = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        m = re.search(r"k_(\w+?)P[KS]", part.split("\n")[0])
        if not m:
            continue
        insns = [(int(i.group(1), 16), i.group(2) or "", i.group(3), i.group(4) or "")
                 for i in map(_INSN.search, part.split("\n")) if i]
        main, pred = _count(insns, 0, "EXIT")
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
