"""Memory like a GPU's: device buffers up to a large GPU's memory are reserved, not
committed, so a program sized for an 80 GB GPU counts when it touches little of them; a
program that touches more than the budget is stopped, and the reason gives both figures."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ridgeline.counting import ProgramRunError, count_run
from ridgeline.counting.runner import device_memory_gb

pytestmark = pytest.mark.slow

#: more than this machine's RAM (24 GiB), less than the largest cataloged GPU's memory
BIG_GIB = 48


def test_the_address_space_holds_the_largest_cataloged_gpu() -> None:
    assert device_memory_gb() >= 80
    assert device_memory_gb() > BIG_GIB


@pytest.mark.parametrize("program", ["bigdev-cuda", "bigdev-omp"])
def test_a_huge_device_buffer_counts_when_little_of_it_is_touched(
        toolchain: None, libomp: None, programs: Path, program: str) -> None:
    # 48 GiB reserved (cudaMalloc / omp_target_alloc), 100 MiB of it touched, 8 GiB budget
    recs = count_run(programs / program, str(BIG_GIB), gpu="a100")
    assert len(recs) == 1 and recs.stopped is None
    assert recs[0].flops_sp == 2 * 1024


def test_touching_more_than_the_budget_is_stopped_with_its_figures(
        toolchain: None, programs: Path) -> None:
    t0 = time.monotonic()
    with pytest.raises(ProgramRunError) as ei:
        count_run(programs / "hog-cuda", "", memory_gb=1.0)
    assert ei.value.cause == "memory"
    assert "touched" in ei.value.detail and "more than the 1 GiB budget" in ei.value.detail
    assert time.monotonic() - t0 < 60  # the build and a second or two of running


def test_a_host_buffer_mostly_untouched_counts_under_a_small_budget(
        toolchain: None, programs: Path) -> None:
    # 4 GiB of host memory asked, 4 bytes touched: no longer refused by a 1 GiB cap
    recs = count_run(programs / "bigalloc-cuda", "", memory_gb=1.0)
    assert [r.kernel for r in recs] == ["fill"]


def test_an_allocation_beyond_the_address_space_is_refused_and_named(
        toolchain: None, programs: Path) -> None:
    # 2^40 floats (4 TiB): more than the budget, the largest GPU's memory and the slack
    with pytest.raises(ProgramRunError) as ei:
        count_run(programs / "bigalloc-cuda", str(1 << 40), memory_gb=1.0)
    assert ei.value.cause == "memory"
    assert "allocation of 4194304 MiB failed" in str(ei.value)
    assert "an allocation was refused" in str(ei.value)
