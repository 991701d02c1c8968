"""MPI + offload programs build against the single-rank MPI of the OpenMP runtime shim."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ridgeline.counting import count_run

pytestmark = pytest.mark.slow


def test_mpi_program_counted_on_one_rank(libomp: None, programs: Path, tmp_path: Path) -> None:
    n = 1024
    (r,) = count_run(programs / "mpi-omp", str(n), workdir=tmp_path)
    assert r.kernel.endswith("main_l24")
    # 0.5 * (u[i] + u[i + 2]): one add and one multiply in double per element
    assert r.flops_dp == 2 * n and r.flops_sp == 0
    assert r.global_load_bytes == 16 * n and r.global_store_bytes == 8 * n
    # the halo exchange with itself delivered the periodic neighbours, the sum is right
    exe = next(tmp_path.glob("*/build/prog"))
    out = subprocess.run([str(exe), str(n)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "RL_OUT": str(tmp_path / "x.jsonl"),
                              "OMP_NUM_THREADS": "1"})
    assert out.stdout.startswith("OK"), out.stdout + out.stderr
