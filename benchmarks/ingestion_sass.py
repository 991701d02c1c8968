"""SASS agreement: our nvcc opcode histograms vs the static SASS histograms in
sass-imix.csv.gz (same architecture; the compiler versions differ, so the distribution of the
difference is reported, not a pass/fail).

    RIDGELINE_DATA=/work/shared/data nice python benchmarks/ingestion_sass.py --sample 40

Per kernel (matched on the mangled name): total-variation distance between the two opcode
distributions (0 = identical mix, 1 = disjoint), and the ratio of instruction counts.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "external" / "gpuFLOPBench" / "src"
ARCH = {"3080": "sm_86", "A10": "sm_86", "A100": "sm_80", "H100": "sm_90"}


def compile_folder(folder: Path, arch: str) -> tuple[dict, list[str]]:
    from ridgeline.compile import compile_cuda

    funcs: dict = {}
    errors = []
    for f in sorted(folder.rglob("*.cu")):
        try:
            funcs.update(compile_cuda(f, arch=arch)["functions"])
        except Exception as e:  # one failing file never stops the rest
            errors.append(f"{f.name}: {str(e).splitlines()[0][:150]}")
    return funcs, errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sample", type=int, default=40, help="programs (0 = all)")
    ap.add_argument("--device", default="3080", choices=sorted(ARCH))
    ap.add_argument("--seed", type=int, default=4839)
    args = ap.parse_args()
    d = Path(os.environ.get("RIDGELINE_DATA", ROOT.parent / "shared" / "data"))
    sass = pd.read_csv(d / "hecbench" / "sass-imix.csv.gz")
    sass = sass[(sass.model_type == "cuda") & (sass.device.astype(str) == args.device)]
    opcols = [c for c in sass.columns if c.startswith("opcode_")]
    sources = sorted(s for s in sass.source.unique() if (SRC / s).is_dir())
    if args.sample:
        sources = sorted(random.Random(args.seed).sample(sources, min(args.sample, len(sources))))
    arch = ARCH[args.device]
    rows, fails, t0 = [], [], time.time()
    for i, src in enumerate(sources):
        funcs, errs = compile_folder(SRC / src, arch)
        fails += [f"{src}/{e}" for e in errs]
        for r in sass[sass.source == src].drop_duplicates("Kernel Name").itertuples():
            ref = {c[7:]: float(getattr(r, c)) for c in opcols
                   if getattr(r, c) == getattr(r, c) and getattr(r, c) > 0}
            ours = funcs.get(r[1])
            if ours is None:
                rows.append({"source": src, "kernel": r[1], "found": False})
                continue
            rows.append({"source": src, "kernel": r[1], "found": True,
                         **_compare(ours["opcodes"], ref)})
        print(f"\r{i + 1}/{len(sources)} programs, {time.time() - t0:.0f} s", end="",
              file=sys.stderr)
    print(file=sys.stderr)
    _report(pd.DataFrame(rows), fails, arch, len(sources))
    return 0


def _compare(ours: dict[str, int], ref: dict[str, float]) -> dict[str, float]:
    keys = set(ours) | set(ref)
    a = np.array([ours.get(k, 0) for k in keys], float)
    b = np.array([ref.get(k, 0) for k in keys], float)
    tvd = 0.5 * np.abs(a / max(a.sum(), 1) - b / max(b.sum(), 1)).sum()
    return {"tvd": tvd, "ratio": a.sum() / max(b.sum(), 1), "ours": a.sum(), "ref": b.sum()}


def _report(df: pd.DataFrame, fails: list[str], arch: str, n: int) -> None:
    print(f"SASS agreement on {arch}: {n} programs, {len(df)} reference kernels")
    if df.empty:
        return
    found = df[df.found]
    print(f"  kernels compiled and matched by mangled name: {len(found)}/{len(df)} "
          f"({100 * len(found) / len(df):.1f}%)")
    if len(found):
        q = found.tvd.quantile([0.1, 0.25, 0.5, 0.75, 0.9])
        print("  total-variation distance of opcode mix: "
              + ", ".join(f"p{int(k * 100)}={v:.3f}" for k, v in q.items())
              + f", mean={found.tvd.mean():.3f}")
        lr = np.log2(found.ratio.clip(lower=1e-3))
        q = lr.quantile([0.1, 0.25, 0.5, 0.75, 0.9])
        print("  log2(instructions ours / reference): "
              + ", ".join(f"p{int(k * 100)}={v:+.2f}" for k, v in q.items()))
        print(f"  instruction count within 10%: {100 * (abs(found.ratio - 1) <= 0.1).mean():.1f}%,"
              f" within 2x: {100 * (abs(lr) <= 1).mean():.1f}%, identical histogram share "
              f"(tvd<0.01): {100 * (found.tvd < 0.01).mean():.1f}%")
    print(f"  files that failed to compile: {len(fails)}")
    for f in fails[:15]:
        print(f"    {f}")


if __name__ == "__main__":
    raise SystemExit(main())
