"""Speed of `ridgeline predict` (cold and warm process) and of `predict-batch` on all shared rows.

  python benchmarks/predict_speed.py [--batch]   # --batch needs external/gpuFLOPBench/src

Prints wall times; `predict` runs as a fresh process (what a user waits for), so each run
includes interpreter start, imports and loading the shipped model.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _time(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", action="store_true", help="also time predict-batch")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    exe = [shutil.which("ridgeline") or "ridgeline"]
    cmd = exe + ["predict", "--sample", "saxpy", "--gpu", "rtx3080"]
    times = [_time(cmd) for _ in range(a.repeat)]
    print(f"predict --sample saxpy (fresh process): min {min(times):.2f} s, "
          f"all {[round(t, 2) for t in times]}")
    from ridgeline.cli.predict import sample_dir
    from ridgeline.hardware import get_gpu
    from ridgeline.launch import KernelRef, Launch
    from ridgeline.learning.shipped import shipped_model
    from ridgeline.predictors.learned import LearnedPredictor

    t = time.perf_counter()
    shipped_model()
    print(f"model load in process: {time.perf_counter() - t:.3f} s")
    p, g = LearnedPredictor(), get_gpu("a100")
    k = KernelRef("polyeval", (sample_dir("polyeval"),))
    t = time.perf_counter()
    for _ in range(20):
        p.predict(k, Launch(args="1048576 64 16"), g)
    print(f"warm predict in process: {(time.perf_counter() - t) / 20 * 1000:.1f} ms per call")
    if a.batch:
        src = ROOT / "external" / "gpuFLOPBench" / "src"
        data = Path(os.environ.get("RIDGELINE_DATA", ROOT.parent / "shared" / "data"))
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "out.csv"
            dt = _time(exe + ["predict-batch", str(data / "hecbench" / "kernel-performance.csv"),
                              "--sources", str(src), "--out", str(out)])
            print(f"predict-batch over kernel-performance.csv: {dt:.1f} s")


if __name__ == "__main__":
    main()
