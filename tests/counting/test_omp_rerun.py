"""OpenMP programs that stop early when sampled or skipped launches leave wrong results:
the counting run is repeated with every team and launch executed (unsampled ones uncounted)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ridgeline.counting import count_run

pytestmark = pytest.mark.slow
N = 1 << 20  # no num_teams: 4096 teams of 256 iterations, 8 of them counted


def _by_line(recs: list) -> dict:  # noqa: ANN001
    return {r.kernel.rsplit("_l", 1)[-1]: r for r in recs}


def test_sampled_region_fails_the_programs_check(libomp: None, programs: Path) -> None:
    # without expected kernels nothing is retried: the check after region 1 fails, exit 1
    recs = count_run(programs / "check-omp", str(N), launches=1)
    assert sorted(_by_line(recs)) == ["14"]


def test_rerun_with_every_team_reaches_the_next_region(libomp: None, programs: Path) -> None:
    recs = _by_line(count_run(programs / "check-omp", str(N), launches=1,
                              expect=["main_l14", "main_l24"]))
    assert sorted(recs) == ["14", "24"]
    r1, r2 = recs["14"], recs["24"]
    # counts are still sampled and extrapolated: same figures as the fast run
    assert r1.blocks_total == N // 256 and r1.blocks_counted == 10
    assert r1.flops_sp == pytest.approx(N, rel=1e-9) and r1.flops_dp == 0
    assert r1.global_load_bytes == pytest.approx(4 * N, rel=1e-9)
    assert r1.global_store_bytes == pytest.approx(4 * N, rel=1e-9)
    # y * 0.5 + s in double: 2 FLOPs per element, and the GPU's reduction trees: six combines
    # per iteration (a chunk of one iteration per thread) and 64 per chunk of a 128-thread
    # block (two steps of the four warps' tree in double precision: 0.5 per element)
    assert r2.flops_dp == pytest.approx((2 + 6 + 0.5) * N, rel=1e-2)
    assert r2.blocks_total == N // 256 and r2.blocks_counted == 10


def test_unsampled_teams_run_uncounted(libomp: None, programs: Path, tmp_path: Path) -> None:
    # RL_SAMPLE_SKIP=0: the sampled launch's other teams execute (uncounted), the program's
    # results are right and its counts equal the fast run's
    fast = _by_line(count_run(programs / "check-omp", str(N), launches=1,
                              workdir=tmp_path))["14"]
    exe = next(tmp_path.glob("*/build/prog"))
    out = tmp_path / "valid.jsonl"
    run = subprocess.run([str(exe), str(N)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "RL_OUT": str(out), "RL_SAMPLE_SKIP": "0",
                              "RL_LAUNCHES": "1", "OMP_NUM_THREADS": "1"})
    assert run.stdout.startswith("OK"), run.stdout + run.stderr
    from ridgeline.counting.records import read_raw

    raws = read_raw(out)
    first = next(r for r in raws if r["kernel"].endswith("_l14"))
    assert first["blocks_total"] == N // 256 and first["blocks_counted"] == 10
    assert first["global_load"][1] == pytest.approx(fast.global_load_bytes, rel=1e-9)
