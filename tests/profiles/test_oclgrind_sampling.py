"""Sampled work-groups (Oclgrind --quick, scaled) against running every group, on kernels
written for these tests; and build options reaching Oclgrind."""

from __future__ import annotations

import pytest

from ridgeline.errors import CompileError
from ridgeline.profiles.oclgrind import Buffer, Scalar, count_kernel, oclgrind_available
from ridgeline.profiles.oclgrind_sampling import scale_record, should_sample
from tests.conftest import require

# the same work in every group: a short loop of FMAs per item
UNIFORM = """
__kernel void poly(__global const float* x, __global float* y, const int n) {
  int i = get_global_id(0);
  float v = x[i], acc = 0.0f;
  for (int k = 0; k < 8; ++k) acc = acc * v + 1.5f;
  if (i < n) y[i] = acc;
}
"""

# group j runs j iterations: the work grows linearly with the group index
TRIANGLE = """
__kernel void tri(__global float* y) {
  float acc = 0.0f;
  for (int k = 0; k < (int)get_group_id(0); ++k) acc += 1.0f;
  y[get_global_id(0)] = acc;
}
"""

NEEDS_MACRO = """
__kernel void scale(__global float* a) { a[get_global_id(0)] = a[get_global_id(0)] * SCALE; }
"""


@pytest.fixture(autouse=True)
def _need_oclgrind() -> None:
    require("oclgrind with liboclgrind-dev, llvm-14-dev, g++", oclgrind_available())


def _uniform(g: int, sample_above: int | None):
    return count_kernel(UNIFORM, "poly", g, 64, [Buffer(4 * g), Buffer(4 * g), Scalar(g)],
                        sample_above=sample_above)


def test_sampled_counts_match_exact_on_uniform_work() -> None:
    g = 64 * 256  # 256 work-groups
    exact, sampled = _uniform(g, None), _uniform(g, 64)
    assert not exact.sampled and exact.groups_run == exact.groups_total == 256
    assert sampled.sampled and (sampled.groups_run, sampled.groups_total) == (2, 256)
    assert "2 of 256 work-groups" in sampled.sample_note and "128" in sampled.sample_note
    assert sampled.flops_sp == exact.flops_sp == 2 * 8 * g  # one FMA (2) per iteration
    for k in ("instructions", "int_ops", "global_load_bytes", "global_store_bytes",
              "sectors_read", "sectors_written", "warp_sector_requests", "branches"):
        e, s = getattr(exact, k), getattr(sampled, k)
        assert s == pytest.approx(e, rel=0.03), k
    assert sampled.args[1].hi == exact.args[1].hi == 4 * g  # the last group reaches the end
    assert sampled.args[1].store_bytes == exact.args[1].store_bytes


def test_small_launch_stays_exact() -> None:
    c = _uniform(64 * 64, 64)  # 64 groups: not above the threshold
    assert not c.sampled and c.groups_run == 64 and c.sample_note == ""


def test_linear_work_is_averaged_by_first_and_last_group() -> None:
    n = 100
    args = [Buffer(4 * 32 * n)]
    exact = count_kernel(TRIANGLE, "tri", 32 * n, 32, args)
    sampled = count_kernel(TRIANGLE, "tri", 32 * n, 32, args, sample_above=8)
    assert sampled.flops_sp == exact.flops_sp == 32 * n * (n - 1) // 2
    assert "work differs" in sampled.sample_note  # group 0 does none, group 99 the most


def test_scale_and_sector_cap() -> None:
    rec = {"kernel": "k", "global": [4096, 1, 1], "local": [64, 1, 1], "groups": 2,
           "flops_sp": 256, "global_sectors_load": 10, "global_sectors_store": 4,
           "args": {"0": {"lo": 0, "hi": 16384, "load_bytes": 512, "store_bytes": 0}}}
    out = scale_record(rec, 64, footprint_bytes=32 * 100)
    assert out["flops_sp"] == 256 * 32 and out["groups_total"] == 64
    assert out["global_sectors_load"] == 100  # 320 scaled, but the buffers hold 100
    assert out["global_sectors_store"] == 100  # each direction capped alike
    assert out["args"]["0"]["hi"] == 16384 and out["args"]["0"]["load_bytes"] == 512 * 32
    assert should_sample((4096, 1, 1), (64, 1, 1), 8)
    assert not should_sample((4096, 1, 1), (64, 1, 1), None)
    assert not should_sample((128, 1, 1), (64, 1, 1), 0)  # two groups: nothing to save


def test_build_options_reach_oclgrind() -> None:
    with pytest.raises(CompileError):
        count_kernel(NEEDS_MACRO, "scale", 64, 64, [Buffer(256)])
    c = count_kernel(NEEDS_MACRO, "scale", 64, 64, [Buffer(256)],
                     build_options="-DSCALE=3.0f")
    assert c.flops_sp == 64
