"""CUDA math functions through the real count-run path: each call counts the measured
table's FLOPs (data/math/flops.csv) for the target GPU's architecture and the build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgeline.counting import LaunchCount, count_run
from ridgeline.counting.mathops import math_table, non_flops

pytestmark = pytest.mark.slow
N = 256


def _function(r: LaunchCount) -> str:
    return r.kernel.split("(")[0].split("@")[0].split("k_", 1)[1]


def _check(recs: list[LaunchCount], arch: str, build: str) -> set[str]:
    """Every kernel (one math call per thread) counts the table's FLOPs; returns the
    functions seen."""
    table = math_table(arch, build)
    seen = set()
    for r in recs:
        name = _function(r)
        seen.add(name)
        flops = table[name][1]
        got = (r.flops_sp / N, r.flops_dp / N)
        assert got == (flops.get("sp", 0), flops.get("dp", 0)), (name, arch, build)
    return seen


def test_math_calls_count_the_table_for_sm86(toolchain: None, programs: Path) -> None:
    recs = count_run(programs / "mathlib-cuda", str(N), gpu="rtx3080", code_size=False)
    seen = _check(recs, "sm_86", "default")
    # a sample of every group of the list: roots, exponentials and logarithms, trigonometric,
    # hyperbolic, special functions, arithmetic, non-FLOPs, intrinsics, in both precisions
    assert len(seen) == 108
    assert {"rcbrtf", "norm3df", "sinpif", "normcdff", "lgammaf", "j0f", "__saturatef",
            "normcdf", "sinpi", "__ddiv_rn", "ldexp", "erfinvf", "normcdfinvf",
            "cyl_bessel_i1", "rnorm4df", "__fadd_rd"} <= seen
    assert len(seen & non_flops()) >= 6
    # the CPU layer's inline definitions count as the GPU's function, not as their bodies
    by = {_function(r): r for r in recs}
    assert by["__saturatef"].flops_sp == N  # FADD.SAT; the CPU's clamp has no FLOP
    assert by["normcdff"].flops_sp == N * 60


def test_math_calls_follow_the_target_architecture(toolchain: None, programs: Path) -> None:
    recs = count_run(programs / "mathlib-cuda", str(N), gpu="a100", code_size=False,
                     kernel="pif")
    assert _check(recs, "sm_80", "default") == {"sinpif", "cospif"}
    assert recs[0].flops_sp == N * 12  # 20 on sm_86


def test_fast_math_build_from_the_makefile_or_named(toolchain: None, programs: Path,
                                                    tmp_path: Path) -> None:
    prog = tmp_path / "mathlib-cuda"
    shutil.copytree(programs / "mathlib-cuda", prog)
    mk = prog / "Makefile"
    mk.write_text(mk.read_text().replace("-O3", "-O3 -use_fast_math"))
    recs = count_run(prog, str(N), gpu="rtx3080", code_size=False)
    assert len(_check(recs, "sm_86", "fast")) == 108
    assert {_function(r): r.flops_sp for r in recs}["powf"] == N  # __powf's one FMUL
    # named on the command line: the original Makefile's program counted as fast math
    named = count_run(programs / "mathlib-cuda", str(N), gpu="rtx3080", code_size=False,
                      kernel="k_expf", math_build="fast")
    assert _check(named, "sm_86", "fast") == {"expf"}
