"""Helpers for the counting tests: the toolchain is required (skips locally, fails in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require

PROGRAMS = Path(__file__).parent / "programs"


def check_sampled_stencil(program: Path, floor: float, code: bool = False) -> None:
    """rows-cuda / rows-omp: 510 rows of 16 blocks (teams) of 256 threads (sampled), each
    reading three rows of a 4096 x 512 image. On the GPU the input (8 MB) comes from DRAM once
    and the output goes back once: the blocks run before each sampled one (warm_blocks) leave
    their rows in the L2 model. A block counted alone reads all three rows from DRAM. *floor*:
    the launch's bytes besides its data (plus the kernel's code with *code*)."""
    from ridgeline.counting import count_run

    w, h = 4096, 512
    (r,) = count_run(program, str(h), gpu="rtx3080")
    assert r.blocks_counted < r.blocks_total == w * (h - 2) // 256
    if code:
        assert r.code_bytes, "no code size: is nvcc installed?"
        floor += r.code_bytes
    data = 4 * w * h + 4 * w * (h - 2)
    # within the spread of eight sampled blocks (the full run gives the data exactly)
    assert r.dram_bytes == pytest.approx(data + floor, rel=0.15)
    (alone,) = count_run(program, str(h), gpu="rtx3080", warm_blocks=0)
    assert alone.dram_bytes > 1.5 * data
    # the warm blocks are not counted: the operations are the same either way
    assert r.flops_sp == alone.flops_sp == pytest.approx(2 * w * (h - 2), rel=1e-9)


def _toolchain_ok() -> bool:
    from ridgeline.counting.toolchain import find_toolchain
    from ridgeline.errors import MissingDependencyError

    try:
        find_toolchain()
    except MissingDependencyError:
        return False
    return True


def _libomp_ok() -> bool:
    return any(Path(f"/usr/lib/llvm-{v}/lib/libomp.so").exists() for v in (15, 16, 17, 18, 19))


@pytest.fixture(scope="session")
def toolchain() -> None:
    require("clang/opt (LLVM >= 15)", _toolchain_ok())


@pytest.fixture(scope="session")
def libomp(toolchain: None) -> None:
    require("LLVM libomp (libomp-15-dev)", _libomp_ok())


@pytest.fixture(scope="session")
def programs() -> Path:
    return PROGRAMS


def kept(written: float, gpu: str = "rtx3080") -> float:
    """Bytes of the *written* ones a launch leaves dirty in *gpu*'s L2 past its end, not
    counted as its DRAM traffic (the catalog's l2_exit_kept_mib: 0.5 MiB on the RTX 3080)."""
    from ridgeline.hardware import get_gpu

    return min(written, get_gpu(gpu).l2_exit_kept_mib * 2**20)
