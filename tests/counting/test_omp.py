"""OpenMP target regions run on the host, against counts computed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting import count_run

pytestmark = pytest.mark.slow
N = 4096


def test_omp_regions_counted(libomp: None, programs: Path) -> None:
    recs = count_run(programs / "saxpy-omp", str(N), gpu="rtx3080")
    names = [r.kernel for r in recs]
    saxpy = [r for r in recs if "saxpy" in r.kernel]
    main = [r for r in recs if r.kernel.startswith("main_l")]
    assert len(saxpy) == 2, names  # three launches, two counted
    assert len(main) == 1, names
    s = saxpy[0]
    assert s.backend == "omp"
    assert s.kernel.endswith("_l6")  # line of the target pragma
    assert s.flops_sp == 2 * N and s.flops_dp == 0
    assert s.global_load_bytes == 8 * N and s.global_store_bytes == 4 * N
    assert s.global_loads == 2 * N and s.global_stores == N  # scalar, as on a GPU thread
    assert not s.spmd_partial
    assert s.dram_bytes == 12 * N
    d = main[0]
    assert d.flops_dp == 3 * N and d.flops_sp == 0
    assert d.global_store_bytes == 8 * N and d.dram_bytes == 16 * N


def test_kernel_filter(libomp: None, programs: Path) -> None:
    recs = count_run(programs / "saxpy-omp", str(N), kernel="main_l", launches=1)
    assert [r.kernel.startswith("main_l") for r in recs] == [True]


def test_spmd_region_flagged(libomp: None, programs: Path) -> None:
    # work split by omp_get_team_num/omp_get_thread_num: one host thread does only its share
    (r,) = count_run(programs / "spmd-omp", "")
    assert r.spmd_partial
    assert r.flops_sp < 256
