"""Speed of ingestion on all HeCBench CUDA and OpenMP programs: kernels + static features
per program (total and per-program median), and compiled features with and without the
compile cache on a sample of CUDA programs (compiling all of them takes hours on 2 cores).

    RIDGELINE_DATA=/work/shared/data nice python benchmarks/ingestion_speed.py \
        [--limit N] [--compile-sample 12]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "external" / "gpuFLOPBench" / "src"


def source_pass(folders: list[Path]) -> list[float]:
    from ridgeline.features import static_features
    from ridgeline.sources import load_program

    times = []
    for i, f in enumerate(folders):
        t = time.perf_counter()
        try:
            prog = load_program(f)
            for k in prog.kernels:
                if k.has_body:
                    static_features(k)
        except Exception as e:  # measured, reported, never stops the run
            print(f"\n{f.name}: {type(e).__name__}: {e}", file=sys.stderr)
        times.append(time.perf_counter() - t)
        print(f"\r{i + 1}/{len(folders)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return times


def compile_pass(folders: list[Path], arch: str) -> list[float]:
    from ridgeline.compile import compile_cuda

    times = []
    for f in folders:
        t = time.perf_counter()
        for cu in sorted(f.rglob("*.cu")):
            try:
                compile_cuda(cu, arch=arch)
            except Exception as e:
                print(f"{f.name}/{cu.name}: {str(e).splitlines()[0][:120]}", file=sys.stderr)
        times.append(time.perf_counter() - t)
    return times


def _line(label: str, times: list[float]) -> None:
    print(f"{label}: {len(times)} programs, total {sum(times):.1f} s, per-program median "
          f"{statistics.median(times):.3f} s, max {max(times):.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--compile-sample", type=int, default=12, help="0 = no compile pass")
    ap.add_argument("--arch", default="sm_86")
    args = ap.parse_args()
    folders = sorted(p for p in SRC.iterdir() if p.name.endswith(("-cuda", "-omp")))
    if args.limit:
        folders = folders[: args.limit]
    for lang in ("cuda", "omp"):
        sel = [f for f in folders if f.name.endswith("-" + lang)]
        times = source_pass(sel)
        _line(f"sources+static features, {lang}", times)
        slow = sorted(zip(times, (f.name for f in sel), strict=True), reverse=True)[:5]
        print("  slowest: " + ", ".join(f"{n} {t:.1f} s" for t, n in slow))
    cuda = [f for f in folders if f.name.endswith("-cuda")]
    if not args.compile_sample:
        return 0
    sample = sorted(random.Random(4839).sample(cuda, min(args.compile_sample, len(cuda))))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RIDGELINE_CACHE"] = tmp
        cold = compile_pass(sample, args.arch)
        warm = compile_pass(sample, args.arch)
    _line(f"compile {args.arch}, cold cache (sample)", cold)
    _line(f"compile {args.arch}, warm cache (sample)", warm)
    est = statistics.mean(cold) * len(cuda)
    print(f"estimated cold compile of all {len(cuda)} CUDA programs: {est / 60:.0f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
