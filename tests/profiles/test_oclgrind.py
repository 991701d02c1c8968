"""Oclgrind counts equal hand-computed counts on small kernels written for these tests."""

from __future__ import annotations

import pytest

from ridgeline.errors import CompileError, ExecutionError, LaunchError
from ridgeline.profiles.oclgrind import (
    Buffer,
    LocalBuffer,
    Scalar,
    count_kernel,
    oclgrind_available,
)
from tests.conftest import require
from tests.opencl.kernels import (
    BROKEN,
    DAXPY,
    HANG,
    MATMUL,
    REDUCE,
    SAXPY,
    STENCIL,
    TILED,
    VADD,
    VEC4,
)


@pytest.fixture(autouse=True)
def _need_oclgrind() -> None:
    require("oclgrind with liboclgrind-dev, llvm-14-dev, g++", oclgrind_available())


def test_vector_add_with_guard() -> None:
    # 256 work-items, only 200 pass i < n: 200 adds, 2 loads + 1 store of 4 bytes each
    c = count_kernel(VADD, "vadd", 256, 64, [Buffer(1024), Buffer(1024), Buffer(1024),
                                               Scalar(200)])
    assert (c.flops_sp, c.flops_dp, c.fma_sp) == (200, 0, 0)
    assert c.int_ops == 256  # the one i < n compare per work-item
    assert (c.global_load_bytes, c.global_store_bytes) == (1600, 800)
    assert (c.sectors_read, c.sectors_written) == (2 * 800 // 32, 800 // 32)
    assert c.dram_bytes == 32 * 75
    # 6 full warps x 3 accesses x 4 sectors + the partial warp (8 items): 3 x 1 sector
    assert (c.warp_requests, c.warp_sector_requests) == (21, 75)
    assert c.args[0].hi == 800 and c.args[2].store_bytes == 800


def test_saxpy_fma_counts_two() -> None:
    n = 512
    c = count_kernel(SAXPY, "saxpy", n, 128, [Buffer(4 * n), Buffer(4 * n),
                                              Scalar(2.0, "float"), Scalar(n)])
    assert (c.flops_sp, c.fma_sp) == (2 * n, n)
    assert (c.global_load_bytes, c.global_store_bytes) == (8 * n, 4 * n)


def test_double_precision_goes_to_dp() -> None:
    n = 128
    c = count_kernel(DAXPY, "daxpy", n, 64, [Buffer(8 * n), Buffer(8 * n),
                                             Scalar(2.0, "double"), Scalar(n)])
    assert (c.flops_sp, c.flops_dp) == (0, 2 * n)
    assert c.global_load_bytes == 16 * n


def test_vector_types_count_per_lane() -> None:
    c = count_kernel(VEC4, "vec4add", 64, 16, [Buffer(16 * 64), Buffer(16 * 64)])
    assert c.flops_sp == 64 * 4 * 2


def test_naive_matmul() -> None:
    n = 16
    c = count_kernel(MATMUL, "matmul", [n, n], [4, 4],
                     [Buffer(4 * n * n), Buffer(4 * n * n), Buffer(4 * n * n), Scalar(n)])
    assert c.flops_sp == 2 * n**3
    assert c.global_load_bytes == 2 * n**3 * 4
    assert c.global_store_bytes == n * n * 4
    assert c.sectors_read == 2 * n * n * 4 // 32  # every element of A and B, once


def test_tiled_matmul_local_memory_and_barriers() -> None:
    n, t = 16, 4
    c = count_kernel(TILED, "tiled", [n, n], [t, t],
                     [Buffer(4 * n * n), Buffer(4 * n * n), Buffer(4 * n * n), Scalar(n)])
    assert c.flops_sp == 2 * n**3
    assert c.global_load_bytes == 2 * n * n * (n // t) * 4
    assert c.local_store_bytes == 2 * n * n * (n // t) * 4
    assert c.local_load_bytes == 2 * n**3 * 4
    assert c.barriers == (n // t) ** 2 * (n // t) * 2


def test_tree_reduction() -> None:
    g, loc = 256, 64
    c = count_kernel(REDUCE, "reduce", g, loc, [Buffer(4 * g), Buffer(4 * g // loc),
                                                LocalBuffer(4 * loc)])
    groups = g // loc
    assert c.flops_sp == groups * (loc - 1)
    assert (c.global_load_bytes, c.global_store_bytes) == (4 * g, 4 * groups)
    assert c.local_store_bytes == 4 * (g + groups * (loc - 1))
    assert c.local_load_bytes == 4 * (2 * groups * (loc - 1) + groups)
    assert c.barriers == groups * (1 + 6)


def test_three_point_stencil() -> None:
    n = 256
    c = count_kernel(STENCIL, "stencil", n, 64, [Buffer(4 * n), Buffer(4 * n), Scalar(n)])
    inner = n - 2
    assert c.flops_sp == 5 * inner  # one multiply, two multiply-adds
    assert (c.global_load_bytes, c.global_store_bytes) == (12 * inner, 4 * inner)
    assert (c.sectors_read, c.sectors_written) == (n * 4 // 32, n * 4 // 32)


def test_out_of_bounds_is_recorded_not_fatal() -> None:
    c = count_kernel(VADD, "vadd", 64, 16, [Buffer(128), Buffer(256), Buffer(256),
                                             Scalar(64)])
    assert c.errors and "Invalid read" in c.errors[0]
    assert c.args[0].hi == 256  # the extent asked for, beyond the 128-byte buffer


def test_bad_kernels_raise_typed_errors() -> None:
    with pytest.raises(CompileError):
        count_kernel(BROKEN, "broken", 16, 16, [Buffer(64)])
    with pytest.raises(ExecutionError, match="did not finish"):
        count_kernel(HANG, "hang", 4, 4, [Buffer(16), Scalar(4)], timeout=3)
    with pytest.raises(LaunchError):
        count_kernel(VADD, "vadd", 100, 64, [Buffer(4), Buffer(4), Buffer(4), Scalar(1)])
