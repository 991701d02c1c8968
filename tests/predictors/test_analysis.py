"""Launch analysis on small programs written for the tests: exact hand counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.analysis.kernel import analyze_launch
from ridgeline.errors import KernelNotFoundError, LaunchError
from ridgeline.hardware import get_gpu
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors.analytic import AnalyticPredictor


def test_sizes_and_trip_counts_from_argv_through_a_helper(stencil_dir: Path) -> None:
    a = analyze_launch(KernelRef("stencil", (stencil_dir,)), Launch(args="1000 4"))
    assert a.grid == (8, 1, 1) and a.block == (128, 1, 1)  # (1000 + 127) / 128 blocks
    assert a.bound == {"n": 1000, "steps": 4}  # through run(n, steps, ...) called by main
    assert a.threads == 1000  # `if (i >= n) return;` guard
    # 4 steps x 5 radius points x (one multiply + one add) in double
    assert a.stats.fp["dp"] == 40
    assert a.stats.load_bytes == 4 * 5 * 8 and a.stats.store_bytes == 8
    assert a.stats.unknown_loops == 0
    c = a.counts()
    assert c.flops_dp == 40_000 and c.dram_bytes == 168_000
    assert any("launch site" in n for n in a.notes)


def test_defaults_when_argc_branches_are_not_taken(stencil_dir: Path) -> None:
    a = analyze_launch(KernelRef("stencil", (stencil_dir,)), Launch())
    assert a.bound == {"n": 4096, "steps": 3}
    assert a.grid == (32, 1, 1)


def test_given_launch_overrides_the_source(stencil_dir: Path) -> None:
    a = analyze_launch(KernelRef("stencil", (stencil_dir,)),
                       Launch.parse("(16, 1, 1)", "64", "100 1"))
    assert a.grid == (16, 1, 1) and a.block == (64, 1, 1)
    assert a.origin["grid"] == "given"
    assert a.threads == 100


def test_openmp_region_totals(omp_dir: Path) -> None:
    a = analyze_launch(KernelRef("main_l8", (omp_dir,)), Launch(args="5000"))
    assert a.language == "omp"
    assert a.stats.fp["sp"] == 2 * 5000
    assert a.stats.load_bytes == 2 * 4 * 5000 and a.stats.store_bytes == 4 * 5000
    assert a.block == (256, 1, 1)  # thread_limit(256)


def test_unknown_kernel_lists_known_ones(stencil_dir: Path) -> None:
    with pytest.raises(KernelNotFoundError, match="stencil"):
        analyze_launch(KernelRef("stencl", (stencil_dir,)), Launch())


def test_unevaluable_size_is_an_error_not_a_guess(tmp_path: Path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    (d / "k.cu").write_text(
        "__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n"
        "int main() { int n = read_size(); k<<<n / 32, 32>>>(0); }\n")
    a = analyze_launch(KernelRef("k", (d,)), Launch())
    assert a.grid is None and a.block == (32, 1, 1)
    with pytest.raises(LaunchError, match="launch size unknown"):
        AnalyticPredictor().predict(KernelRef("k", (d,)), Launch(), get_gpu("rtx3080"))


def test_analytic_prediction_classes(stencil_dir: Path) -> None:
    p = AnalyticPredictor().predict(KernelRef("stencil", (stencil_dir,)),
                                    Launch(args="1000 4"), get_gpu("a100"))
    assert p.counts.flops_dp == 40_000
    assert p.labels["paper-a"].value == "Bandwidth"  # 40k DP FLOP / 168 kB < DP ridge 6.3
    assert p.time_s is not None and p.time_s > 0
    # the same bytes on GA102 GPUs; the A10's profiler counts 1.15 of them per data byte
    ga102 = [AnalyticPredictor().predict(KernelRef("stencil", (stencil_dir,)),
                                         Launch(args="1000 4"), get_gpu(g)).counts.dram_bytes
             for g in ("rtx3080", "a10")]
    assert ga102[0] == p.counts.dram_bytes and ga102[1] == pytest.approx(1.15 * ga102[0])


def test_launch_inside_a_loop_sees_the_first_iteration(tmp_path: Path) -> None:
    d = tmp_path / "loop"
    d.mkdir()
    (d / "main.cu").write_text(
        "#include <cstdlib>\n"
        "__global__ void k(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }\n"
        "int main(int argc, char **argv) {\n"
        "  int rows = atoi(argv[1]);\n"
        "  for (int g = rows / 4; g <= rows; g += rows / 4) {\n"
        "    dim3 grid(g);\n"
        "    k<<<grid, 64>>>(0, rows);\n"
        "  }\n"
        "}\n")
    a = analyze_launch(KernelRef("k", (d,)), Launch(args="8192"))
    assert a.grid == (2048, 1, 1) and a.block == (64, 1, 1)
    assert a.bound["n"] == 8192
