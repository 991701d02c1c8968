"""Counted FLOPs of every CUDA Math API function, measured from the SASS nvcc emits: writes
the table ``ridgeline.counting.mathops`` counts library math calls with.

    python tools/math_sass.py [--arch sm_80 sm_86 ...] [--build default fast]
                              [--out src/ridgeline/data/math/flops.csv]

The functions are those of ``src/ridgeline/data/math/functions.csv``. For each architecture
and build (``default``: nvcc's defaults; ``fast``: ``-use_fast_math``) one ``.cu`` file with
one kernel per function (``o[i] = f(a[i], ...)``) is compiled in one nvcc call, and the
FLOPs of each kernel's fast path are summed (``ridgeline.compile.fastpath``). The double
instructions of a single-precision function are left out: they belong to the inline argument
reduction for huge arguments (trigonometric and Bessel functions, ``|x| >= 105615`` for
``sinf``), which the fast path branches over.
Needs nvcc and cuobjdump (PATH, the CUDA folder or PyPI nvidia-cuda-cuobjdump). Prints how
many documented functions each arch/build covers. sm_100 is not shipped: its double ``pow``
reaches the call to its logarithm and exponential behind a conditional branch, which this
reading takes for a slow path (3 counted FLOPs, not 123).
"""

from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ridgeline.compile.fastpath import fast_path_flops, sass_of
from ridgeline.counting.mathops import documented_functions

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "ridgeline" / "data" / "math" / "flops.csv"
ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
BUILDS = {"default": [], "fast": ["-use_fast_math"]}
#: a kernel's body by the function's signature (functions.csv): ``{f}`` is the function,
#: ``{T}`` the floating-point type; two outputs go to o[2i] and o[2i+1]
_BODY = {
    "s": "{T} s_, c_; {f}(a[i], &s_, &c_); o[2*i] = s_; o[2*i+1] = c_;",
    "v": "o[i] = {f}(4, a + 4*i);",
    "n": "o[i] = {f}(q[i], a[i]);",
    "i": "o[i] = {f}(a[i], q[i]);",
    "l": "o[i] = {f}(a[i], (long)q[i]);",
    "e": "o[i] = {f}(a[i], &q[i]);",
    "m": "{T} p_; o[2*i] = {f}(a[i], &p_); o[2*i+1] = p_;",
    "q": "o[i] = {f}(a[i], b[i], &q[i]);",
    "c": "o[i] = {f}(\"\");",
}


def kernel(name: str, prec: str, sig: str) -> str:
    """``k_<name>``, an extern "C" kernel calling *name* once per thread."""
    ty = "float" if prec == "sp" else "double"
    if sig.isdigit():
        body = f"o[i] = {name}({', '.join('abcd'[k] + '[i]' for k in range(int(sig)))});"
    else:
        body = _BODY[sig].format(f=name, T=ty)
    return (f'extern "C" __global__ void k_{name}(const {ty} *a, const {ty} *b, '
            f"const {ty} *c, const {ty} *d, {ty} *o, int *q) "
            f"{{ int i = threadIdx.x; {body} }}")


def source() -> str:
    return "\n".join(kernel(*f) for f in documented_functions()) + "\n"


def measure(arch: str, build: str) -> dict[str, tuple[dict[str, int], int]]:
    """{function: ({precision: FLOPs}, predicated FLOPs)} of every documented function."""
    res = fast_path_flops(sass_of(source(), arch, BUILDS[build]))
    return {name.removeprefix("k_"): v for name, v in res.items() if name.startswith("k_")}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", nargs="+", default=ARCHS)
    p.add_argument("--build", nargs="+", default=list(BUILDS), choices=list(BUILDS))
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    names = [f[0] for f in documented_functions()]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    jobs = [(arch, build) for arch in a.arch for build in a.build]
    with ThreadPoolExecutor(a.jobs) as pool:
        results = dict(zip(jobs, pool.map(lambda j: measure(*j), jobs), strict=True))
    rows = []
    for (arch, build), res in results.items():
        for name, prec, _ in documented_functions():
            if name in res:
                flops, pred = res[name]
                dp = flops["dp"] if prec == "dp" else 0
                rows.append([name, arch, build, flops["sp"], dp, pred])
        print(f"{arch} {build}: {sum(n in res for n in names)} of {len(names)} documented "
              "functions measured", file=sys.stderr)
    with a.out.open("w", newline="") as f:
        f.write("# counted FLOPs per call (fast path to the first EXIT) from nvcc's SASS: "
                "written by tools/math_sass.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "arch", "build", "sp", "dp", "predicated"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
