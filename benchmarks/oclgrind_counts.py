"""Oclgrind counts against hand-computed counts on small kernels (the tests' kernels), and
the time one count takes.

    python benchmarks/oclgrind_counts.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.opencl.kernels import MATMUL, REDUCE, SAXPY, STENCIL, TILED, VADD  # noqa: E402

from ridgeline.profiles.oclgrind import Buffer, LocalBuffer, Scalar, count_kernel  # noqa: E402

N, G = 32, 4096
CASES = [
    # name, source, kernel, global, local, args, hand-computed counts
    ("vector add", VADD, "vadd", G, 64, [Buffer(4 * G)] * 3 + [Scalar(G)],
     {"flops_sp": G, "global_load_bytes": 8 * G, "global_store_bytes": 4 * G,
      "sectors_read": 8 * G // 32, "sectors_written": 4 * G // 32}),
    ("SAXPY", SAXPY, "saxpy", G, 64, [Buffer(4 * G), Buffer(4 * G), Scalar(2.0, "float"),
                                      Scalar(G)],
     {"flops_sp": 2 * G, "global_load_bytes": 8 * G, "global_store_bytes": 4 * G}),
    ("naive matmul", MATMUL, "matmul", [N, N], [8, 8], [Buffer(4 * N * N)] * 3 + [Scalar(N)],
     {"flops_sp": 2 * N**3, "global_load_bytes": 8 * N**3, "global_store_bytes": 4 * N * N,
      "sectors_read": 2 * 4 * N * N // 32}),
    ("tiled matmul", TILED, "tiled", [N, N], [4, 4], [Buffer(4 * N * N)] * 3 + [Scalar(N)],
     {"flops_sp": 2 * N**3, "global_load_bytes": 8 * N * N * (N // 4),
      "local_load_bytes": 8 * N**3, "barriers": (N // 4) ** 2 * (N // 4) * 2}),
    ("reduction", REDUCE, "reduce", G, 64, [Buffer(4 * G), Buffer(4 * G // 64),
                                           LocalBuffer(4 * 64)],
     {"flops_sp": (G // 64) * 63, "global_load_bytes": 4 * G,
      "global_store_bytes": 4 * (G // 64), "barriers": (G // 64) * 7}),
    ("stencil", STENCIL, "stencil", G, 64, [Buffer(4 * G), Buffer(4 * G), Scalar(G)],
     {"flops_sp": 5 * (G - 2), "global_load_bytes": 12 * (G - 2),
      "global_store_bytes": 4 * (G - 2)}),
]


def main() -> None:
    rows, ok_all = [], True
    for name, src, k, g, loc, args, want in CASES:
        t = time.perf_counter()
        c = count_kernel(src, k, g, loc, args)
        dt = time.perf_counter() - t
        got = {key: getattr(c, key) for key in want}
        ok = got == want
        ok_all &= ok
        rows.append({"kernel": name, "match": ok, "seconds": round(dt, 2), "counts": got,
                     "expected": want})
        print(f"{name:14s} {'OK ' if ok else 'MISMATCH'} {dt:6.2f}s {got}")
    print(json.dumps({"all_match": ok_all, "cases": len(rows)}))


if __name__ == "__main__":
    main()
