"""Counted numbers as predictor inputs: kernel matching, the derived table, predict --count."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.counting.records import DRAM_MODEL
from ridgeline.learning.counted import attach_counted, build_counted_table
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, launch_record_features
from ridgeline.learning.matching import (
    by_size_rank,
    demangle,
    fragment_in,
    launched_threads,
    match_kernel,
    pick_launch,
    template_args,
)
from tests.conftest import require


def test_match_kernel_omp_tails_and_prefixes() -> None:
    names = ["_Z9compute_fiPKfS0_Pf_l269", "_Z9compute_iiPKfS0_Pi_l306", "main_l57",
             "_Z7runTestIhEiPhS0_ii_l187", "_Z7runTestIjEiPhS0_ii_l187"]
    assert match_kernel("Pf_l269", names, "omp") == "_Z9compute_fiPKfS0_Pf_l269"
    assert match_kernel("__omp_offloading_10309_2f04138_main_l57", names, "omp") == "main_l57"
    assert match_kernel("ii_l187", names, "omp") is None  # two instantiations: ambiguous
    assert match_kernel("main_l99", names, "omp") is None
    assert match_kernel("add_kernel", ["add_kernel", "add_kernel_v2"], "cuda") == "add_kernel"
    assert match_kernel("int>", ["add_kernel"], "cuda") is None
    # kernels renamed between the profiled and the present version of a program: the one
    # kernel the name starts or ends with; none when several or none do
    assert match_kernel("attention_kernel1", ["kernel1", "kernel2"], "cuda") == "kernel1"
    assert match_kernel("gemm_impl1", ["gemm", "init"], "cuda") == "gemm"
    assert match_kernel("jaccard_is_opt", ["jaccard_is", "jaccard_jw"], "cuda") == "jaccard_is"
    assert match_kernel("sum_kernel", ["kernel", "sum_k"], "cuda") is None  # ambiguous
    assert match_kernel("compare", ["compute"], "cuda") is None
    assert match_kernel("int>", ["int_kernel"], "cuda") is None  # fragments: sizes only
    # a profiled build a few lines off: the nearest region of the same function within 8
    # lines, none when two are equally near or all are farther
    regions = ["main_l185", "main_l207", "main_l212", "_Z6renderPhiiiP5Plane_l303"]
    assert match_kernel("main_l190", regions, "omp") == "main_l185"
    assert match_kernel("main_l210", regions, "omp") == "main_l212"
    assert match_kernel("Plane_l309", regions, "omp") == "_Z6renderPhiiiP5Plane_l303"
    assert match_kernel("main_l196", ["main_l192", "main_l200"], "omp") is None
    assert match_kernel("main_l250", regions, "omp") is None
    # the profiled sources declared parameters int that the exported ones say unsigned
    # (boxfilter-omp: the profile's ..._S_iiiff_l127, ours ..._S_jjiff_l127)
    box = ["_Z12BoxFilterGPUPjS_S_jjiff_l127", "_Z12BoxFilterGPUPjS_S_jjiff_l174"]
    assert match_kernel("iiiff_l127", box, "omp") == box[0]
    assert match_kernel("iiiff_l174", box, "omp") == box[1]
    assert match_kernel("iiidf_l127", box, "omp") is None
    # ... or size_t (recursiveGaussian-omp: the profile's ..._PjmmffffffffFF_l194, ours
    # ..._PjiiffffffffFF_l194); tried last, so a region of the same widths is preferred
    rg = ["_Z13RecursiveRGBAPKjPjiiffffffff_l194", "_Z9TransposePKjPjii_l77"]
    assert match_kernel("Z13RecursiveRGBAPKjPjmmffffffff_l194", rg, "omp") == rg[0]
    assert match_kernel("Z9TransposePKjPjmm_l77", rg, "omp") == rg[1]
    assert match_kernel("Z9TransposePKjPjmf_l77", rg, "omp") is None
    two = ["_Z1fPfii_l10", "_Z1fPfmm_l12"]
    assert match_kernel("fPfmm_l11", two, "omp") == two[1]  # both one line off: same widths
    # a function renamed since the profiled build (pointwise-omp: the profile's whole
    # ..._Z11elementwiseiiPKfS0_S0_PfS1_S1_S0_S1__l53, ours elementWise_fp at l58): the
    # region of the same parameter types within the slack; tried after every tier that keeps
    # the name, and never from a truncated tail (no name length to cut the parameters at)
    pw = ["_Z14elementWise_fpiiPKfS0_S0_PfS1_S1_S0_S1__l58", "_Z4initPfi_l99"]
    whole = "__omp_offloading_fd01_18343c__Z11elementwiseiiPKfS0_S0_PfS1_S1_S0_S1__l53"
    assert match_kernel(whole, pw, "omp") == pw[0]
    assert match_kernel("wiseiiPKfS0_S0_PfS1_S1_S0_S1__l53", pw, "omp") is None
    assert match_kernel(whole.replace("_l53", "_l40"), pw, "omp") is None  # 18 lines off
    assert match_kernel("__omp_offloading_fd01_1__Z5resetPfi_l97", pw, "omp") == pw[1]
    assert match_kernel("__omp_offloading_fd01_1__Z5resetPfl_l97", pw, "omp") is None
    same_line = ["_Z1gPfi_l30", "_Z1hPfi_l30"]  # both fit equally: ambiguous
    assert match_kernel("__omp_offloading_1_2__Z1fPfi_l31", same_line, "omp") is None
    # a name that keeps its function goes first: the renamed tier never overrides it
    kept = ["_Z1fPfi_l36", "_Z1gPfi_l31"]
    assert match_kernel("__omp_offloading_1_2__Z1fPfi_l31", kept, "omp") == kept[0]


def _record(kernel: str, sp: float, dram: dict[str, float], **kw: object) -> dict[str, object]:
    """A launch record of the current DRAM model (older ones are brought up to it)."""
    return {"kernel": kernel, "launch": 0, "backend": "omp", "dram_model": DRAM_MODEL,
            "flops_sp": sp, "flops_dp": 0.0,
            "flops_hp": 0.0, "int_ops": 1000.0, "global_load_bytes": 800.0,
            "global_store_bytes": 400.0, "dram_bytes": None, "dram_bytes_by_gpu": dram,
            "int_detail": {"int_arith": 600.0, "int_gep": 400.0}, **kw}


def test_most_atomics_on_one_address_known_none_or_unknown() -> None:
    # log10(1 + n) of the reported count; a record without atomics has none on any address;
    # one with atomics from before the count was reported says nothing (NaN)
    base = {"flops_sp": 10.0, "int_ops": 5.0, "dram_bytes": 64.0}
    hot = launch_record_features({**base, "atomics": 300.0, "atomics_hot": 99.0,
                                  "atomics_hot_fp": 9.0}, None)
    assert (hot["c_atom_hot"], hot["c_atom_hot_fp"]) == pytest.approx((2.0, 1.0))
    for col in ("c_atom_hot", "c_atom_hot_fp"):
        assert launch_record_features({**base, "atomics": 0.0}, None)[col] == 0.0
        assert np.isnan(launch_record_features({**base, "atomics": 300.0}, None)[col])


def test_a_later_run_adds_the_longest_thread_without_replacing_counts(tmp_path: Path) -> None:
    # the counting result keeps its counts; the thread-work run adds its per-thread fields to
    # the same launch (kernel, instantiation, sizes), and nothing to another kernel's
    res, tw = tmp_path / "counts.jsonl", tmp_path / "threadwork.jsonl"
    sized = {"backend": "cuda", "grid": [4, 1, 1], "block": [64, 1, 1]}
    res.write_text(json.dumps({"source": "foo-cuda", "args": "9", "launches": [
        _record("walk", 2e6, {"GeForce RTX 3080": 1e6}, **sized),
        _record("other", 5e3, {"GeForce RTX 3080": 1e3}, **sized)]}) + "\n")
    tw.write_text(json.dumps({"source": "foo-cuda", "args": "9", "launches": [
        _record("walk", 1.0, {"GeForce RTX 3080": 1.0}, thread_work_max=999.0,
                warp_issue_factor=10.0, **sized),
        _record("other", 1.0, {"GeForce RTX 3080": 1.0}, thread_work_max=5.0,
                warp_issue_factor=1.0, backend="cuda", grid=[8, 1, 1],
                block=[64, 1, 1])]}) + "\n")
    rows = pd.DataFrame({"source": ["foo-cuda"] * 2, "exe_args": ["9"] * 2,
                         "kernel": ["walk", "other"], "model_type": ["cuda"] * 2,
                         "gpu": ["GeForce RTX 3080"] * 2})
    t = attach_counted(rows, build_counted_table([res], rows, [tw]))
    np.testing.assert_allclose(t.loc[0, "c_sp"], np.log10(1 + 2e6))
    np.testing.assert_allclose([t.loc[0, "c_tw_max"], t.loc[0, "c_warp_issue"]],
                               [np.log10(1000.0), 1.0])
    assert np.isnan(t.loc[1, "c_tw_max"]) and np.isnan(t.loc[1, "c_warp_issue"])
    without = attach_counted(rows, build_counted_table([res], rows))
    assert np.isnan(without.loc[0, "c_tw_max"])


def test_thread_work_from_a_run_that_named_the_instantiation() -> None:
    # counting results from before runs named the instantiation take the later run's fields
    # when it launched one instantiation of the kernel at those sizes, none when it launched two
    from ridgeline.learning.counted import with_thread_work

    sized = {"kernel": "k", "grid": [4, 1, 1], "block": [64, 1, 1]}
    old = {**sized, "flops_sp": 7.0}
    one = [{**sized, "instance": "_Z1kIfEv", "thread_work_max": 50.0,
            "warp_issue_factor": 2.0}]
    got = with_thread_work(old, one)
    assert (got["thread_work_max"], got["warp_issue_factor"], got["flops_sp"]) == (50.0, 2.0,
                                                                                   7.0)
    two = one + [{**one[0], "instance": "_Z1kIdEv", "thread_work_max": 90.0}]
    assert with_thread_work(old, two) is old
    named = {**old, "instance": "_Z1kIdEv"}
    assert with_thread_work(named, two)["thread_work_max"] == 90.0
    assert with_thread_work({**old, "grid": [8, 1, 1]}, one).get("thread_work_max") is None


def test_counted_table_matches_rows_and_gpus(tmp_path: Path) -> None:
    res = tmp_path / "counts.jsonl"
    lines = [
        {"source": "foo-omp", "args": "100 2",
         "launches": [_record("_Z3fooPf_l10", 2e6, {"GeForce RTX 3080": 1e6, "NVIDIA A10": 2e6}),
                      _record("main_l40", 5.0, {"GeForce RTX 3080": 10.0},
                              spmd_partial=True)]},
        {"source": "bar-omp", "args": "", "error": {"cause": "timeout", "detail": "x"}},
    ]
    res.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    rows = pd.DataFrame({
        "source": ["foo-omp", "foo-omp", "foo-omp", "foo-omp", "bar-omp"],
        "exe_args": ["100 2", "100 2", "7", "100 2", ""],
        "kernel": ["Pf_l10", "Pf_l10", "Pf_l10", "main_l40", "main_l3"],
        "model_type": ["omp"] * 5,
        "gpu": ["GeForce RTX 3080", "NVIDIA A10", "GeForce RTX 3080", "GeForce RTX 3080",
                "NVIDIA A10"],
    })
    t = build_counted_table([res], rows)
    # other args, partial (SPMD) counts and failed runs are left out
    assert sorted(t["gpu"]) == ["GeForce RTX 3080", "NVIDIA A10"]
    got = attach_counted(rows, t)
    assert list(got["c_has"].fillna(0)) == [1.0, 1.0, 0.0, 0.0, 0.0]
    np.testing.assert_allclose(got.loc[0, "c_dram"], np.log10(1 + 1e6))
    np.testing.assert_allclose(got.loc[1, "c_dram"], np.log10(1 + 2e6))
    np.testing.assert_allclose(got.loc[0, "c_sp"], np.log10(1 + 2e6))
    assert set(COUNTED_COLUMNS) <= set(got.columns)


def test_an_unreached_region_does_not_take_its_neighbours_counts(tmp_path: Path) -> None:
    # the profiled build had regions at lines 205 and 212; the run here reached only 212
    res = tmp_path / "counts.jsonl"
    tail = "_Z7computeiPPc"
    line = {"source": "mm-omp", "args": "1",
            "launches": [_record(f"{tail}_l212", 3e6, {"GeForce RTX 3080": 1e6})]}
    res.write_text(json.dumps(line) + "\n")
    rows = pd.DataFrame({"source": "mm-omp", "exe_args": "1",
                         "kernel": ["iPPc_l205", "iPPc_l212"], "model_type": "omp",
                         "gpu": "GeForce RTX 3080"})
    t = build_counted_table([res], rows)
    assert list(t["kernel"]) == ["iPPc_l212"]  # l205 is not l212's neighbour here
    # a row alone, a few lines off the counted region (a profiled build of other sources),
    # still takes it
    alone = build_counted_table([res], rows.iloc[:1])
    assert list(alone["counted_kernel"]) == [f"{tail}_l212"]
    # a name of another profile (paper-a's build of the sources, its lines a few off) does
    # not take the region from this one's row
    two = rows.assign(dataset=["hecbench", "paper-a"])
    assert sorted(build_counted_table([res], two)["kernel"]) == ["iPPc_l205", "iPPc_l212"]


def test_paper_a_rows_take_the_clang_build_counts_where_a_run_has_them(tmp_path: Path) -> None:
    # one program counted as nvcc builds it and as clang builds it; another only as nvcc
    res = tmp_path / "counts.jsonl"
    gpu = {"GeForce RTX 3080": 1e6}
    lines = [
        {"source": "foo-cuda", "args": "1", "launches": [_record("foo", 8e6, gpu)]},
        {"source": "foo-cuda", "args": "1", "build": "clang",
         "launches": [_record("foo", 2e6, gpu)]},
        {"source": "bar-cuda", "args": "1", "launches": [_record("bar", 5e6, gpu)]},
    ]
    res.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    rows = pd.DataFrame({"source": ["foo-cuda", "foo-cuda", "bar-cuda"], "exe_args": "1",
                         "kernel": ["foo", "foo", "bar"], "model_type": "cuda",
                         "gpu": "GeForce RTX 3080",
                         "dataset": ["hecbench", "paper-a", "paper-a"]})
    t = build_counted_table([res], rows)
    assert sorted(t["build"]) == ["clang", "nvcc", "nvcc"]
    got = attach_counted(rows, t)
    # kernel-performance rows keep the default build, paper-a rows take the clang one, or
    # the default where no clang run exists
    np.testing.assert_allclose(10 ** got["c_sp"] - 1, [8e6, 2e6, 5e6])
    # a table without builds (older files) is the default build throughout
    np.testing.assert_allclose(10 ** attach_counted(rows, t[t["build"] == "nvcc"].drop(
        columns="build"))["c_sp"] - 1, [8e6, 8e6, 5e6])


def test_rows_take_the_launch_with_their_sizes_and_fragments_match_on_sizes_alone(
        tmp_path: Path) -> None:
    # a templated kernel launched at two sizes (int, then float), and a second kernel; upstream
    # names the instantiations "int>" and "float>"
    def rec(kernel: str, launch: int, grid: list[int], sp: float, variant: int = 0
            ) -> dict[str, object]:
        return {**_record(kernel, sp, {"NVIDIA A10": 10.0 * sp}), "backend": "cuda",
                "launch": launch, "grid": grid, "block": [256, 1, 1], "variant": variant}

    launches = [rec("scale", 0, [64, 1, 1], 1e3), rec("scale", 1, [128, 1, 1], 2e3, 1),
                rec("other", 0, [8, 1, 1], 5.0)]
    assert pick_launch(launches, "scale", "cuda", (128, 1, 1), (256, 1, 1))["flops_sp"] == 2e3
    # sizes no launch had: the kernel's first launch; no sizes: the same
    assert pick_launch(launches, "scale", "cuda", (7, 1, 1), (256, 1, 1))["flops_sp"] == 1e3
    assert pick_launch(launches, "scale", "cuda")["flops_sp"] == 1e3
    # a fragment needs sizes that some launch had
    assert pick_launch(launches, "float>", "cuda", (128, 1, 1), (256, 1, 1))["launch"] == 1
    assert pick_launch(launches, "int>", "cuda", (7, 1, 1), (256, 1, 1)) is None
    assert pick_launch(launches, "int>", "cuda") is None
    assert pick_launch(launches, "missing_kernel", "cuda", (8, 1, 1), (256, 1, 1)) is None
    # OpenMP: a mangled tail that two counted instantiations end with takes the first launched
    # with the row's sizes, else the first launched
    omp = [rec("_Z3runILi1EEvPj_l56", 0, [256, 1, 1], 1e3),
           rec("_Z3runILi3EEvPj_l56", 0, [512, 1, 1], 3e3)]
    assert pick_launch(omp, "vPj_l56", "omp", (512, 1, 1), (256, 1, 1))["flops_sp"] == 3e3
    assert pick_launch(omp, "vPj_l56", "omp", (9, 1, 1), (256, 1, 1))["flops_sp"] == 1e3
    assert pick_launch(omp, "vPj_l99", "omp") is None
    # ... unless the rows of that name were launched with as many sizes as the instantiations
    # were: the GPU's sizes (2 and 6 teams of 128) are not the host's (256 and 512 threads
    # here) but rank alike
    gpu_sizes = [256.0, 768.0]
    assert pick_launch(omp, "vPj_l56", "omp", (6, 1, 1), (128, 1, 1),
                       row_sizes=gpu_sizes)["flops_sp"] == 3e3
    assert pick_launch(omp, "vPj_l56", "omp", (2, 1, 1), (128, 1, 1),
                       row_sizes=gpu_sizes)["flops_sp"] == 1e3
    # a row size the siblings do not have, or a count that does not pair: no ranking
    assert pick_launch(omp, "vPj_l56", "omp", (6, 1, 1), (128, 1, 1),
                       row_sizes=[768.0])["flops_sp"] == 1e3

    res = tmp_path / "counts.jsonl"
    res.write_text(json.dumps({"source": "t-cuda", "args": "", "launches": launches}) + "\n")
    rows = pd.DataFrame({"source": "t-cuda", "exe_args": "", "model_type": "cuda",
                         "gpu": "NVIDIA A10", "kernel": ["int>", "float>", "scale", "scale"],
                         "grid_size": ["(64, 1, 1)", "128", "128,1,1", "(9, 1, 1)"],
                         "block_size": ["(256, 1, 1)", "256", "256", "(256, 1, 1)"]})
    t = build_counted_table([res], rows)
    got = attach_counted(rows, t)
    np.testing.assert_allclose(10 ** got["c_sp"] - 1, [1e3, 2e3, 2e3, 1e3])
    np.testing.assert_allclose(10 ** got["c_dram"] - 1, [1e4, 2e4, 2e4, 1e4])


def test_rows_alike_pair_with_instantiations_in_mangled_name_order(tmp_path: Path) -> None:
    # one kernel name launched for int, long, float and double at the same sizes (extrema's
    # relextrema_1D): the profile lists its four rows in mangled-name order (double, float,
    # int, long); the launch order is another
    types = [("i", 4.0), ("l", 8.0), ("f", 4.0), ("d", 8.0)]

    def rec(t: str, width: float, variant: int) -> dict[str, object]:
        return {**_record("rel", 1.0, {"NVIDIA A10": 1e6 * width}), "backend": "cuda",
                "launch": 0, "grid": [10, 1, 1], "block": [256, 1, 1], "variant": variant,
                "instance": f"_Z3relI{t}EvPKT_Pb"}

    launches = [rec(t, w, v) for v, (t, w) in enumerate(types)]
    assert demangle("_Z3relIdEvPKT_Pb") == "void rel<double>(double const*, bool*)"
    sizes = ((10, 1, 1), (256, 1, 1))
    got = [pick_launch(launches, "rel", "cuda", *sizes, dup=(k, 4))["instance"]
           for k in range(4)]
    assert got == [f"_Z3relI{t}EvPKT_Pb" for t in "dfil"]
    # more instantiations than rows alike (langford's dfs_gpu<15>, which the profile lacks):
    # the first three launched (int, long, float), in mangled-name order (float, int, long)
    got = [pick_launch(launches, "rel", "cuda", *sizes, dup=(k, 3))["instance"]
           for k in range(3)]
    assert got == [f"_Z3relI{t}EvPKT_Pb" for t in "fil"]
    # fewer instantiations than rows alike, or a row alone: the first launch
    assert pick_launch(launches[:2], "rel", "cuda", *sizes, dup=(2, 3))["variant"] == 0
    assert pick_launch(launches, "rel", "cuda", *sizes)["variant"] == 0
    # a launch that names no instantiation among them: the rows cannot be told apart
    unnamed = [*launches, {**launches[0], "instance": None, "variant": 4}]
    assert pick_launch(unnamed, "rel", "cuda", *sizes, dup=(2, 3))["variant"] == 0

    res = tmp_path / "counts.jsonl"
    res.write_text(json.dumps({"source": "x-cuda", "args": "", "launches": launches}) + "\n")
    rows = pd.DataFrame({"source": "x-cuda", "exe_args": "", "model_type": "cuda",
                         "gpu": "NVIDIA A10", "kernel": ["rel"] * 4 + ["rel"],
                         "grid_size": ["(10, 1, 1)"] * 4 + ["(20, 1, 1)"],
                         "block_size": "(256, 1, 1)",
                         "dataset": ["hecbench"] * 4 + ["paper-a"]})
    t = build_counted_table([res], rows)
    assert sorted(t["dup"]) == [-1, 0, 1, 2, 3]
    got = attach_counted(rows, t)
    np.testing.assert_allclose(10 ** got["c_dram"] - 1, [8e6, 4e6, 4e6, 8e6, 4e6])


def test_rows_alike_pair_with_openmp_instantiations_in_mangled_name_order() -> None:
    # aligned-types-omp: runTest<T>'s region for T = uchar, ushort, uint, ... shares the
    # profile's name ii_l196 and its grid (3200 teams), while the host runs each at its own
    # size; the profile lists its rows in mangled-name order of the first n launched
    def rec(t: str, teams: int) -> dict[str, object]:
        return {**_record(f"_Z7runTestI{t}EiPhS0_ii_l196", 0.0, {"NVIDIA A10": 1e6}),
                "grid": [teams, 1, 1], "block": [256, 1, 1], "int_ops": float(teams)}

    launches = [rec("h", 195312), rec("t", 97656), rec("j", 48828)]
    sizes = ((3200, 1, 1), (256, 1, 1))

    def picked(k: int, n: int) -> object:
        return pick_launch(launches, "ii_l196", "omp", *sizes, row_sizes=[819200.0],
                           dup=(k, n))["kernel"]

    assert [picked(k, 3) for k in range(3)] == [
        "_Z7runTestIhEiPhS0_ii_l196", "_Z7runTestIjEiPhS0_ii_l196", "_Z7runTestItEiPhS0_ii_l196"]
    # the A100's profile has fewer rows: the first ones launched (uchar, ushort)
    assert [picked(k, 2) for k in range(2)] == [
        "_Z7runTestIhEiPhS0_ii_l196", "_Z7runTestItEiPhS0_ii_l196"]
    # a row alone, or more rows than instantiations: the first launched
    assert picked(0, 1) == picked(3, 4) == "_Z7runTestIhEiPhS0_ii_l196"


def test_template_fragments_pair_with_the_instantiations_they_are_arguments_of() -> None:
    # resize's rows "char," and "short," (resize<char, 8ul>, resize<short, 8ul>): a launch
    # that names its instantiation pairs only with a fragment among its template arguments
    def rec(inst: str, sp: float) -> dict[str, object]:
        return {**_record("resize", sp, {"NVIDIA A10": sp}), "backend": "cuda", "launch": 0,
                "grid": [8, 1, 1], "block": [256, 1, 1], "instance": inst}

    char, short = "_Z6resizeIhLm8EEvPT_m", "_Z6resizeIsLm8EEvPT_m"
    assert fragment_in("char,", char) and not fragment_in("short,", char)
    assert fragment_in("short,", short) and not fragment_in("int,", short)
    # the CPU layer's __half is _Float16 (DF16_), read as nvcc's __half
    assert fragment_in("__half>", "_Z3cvtIfDF16_EvPT_PKT0_i")
    assert not fragment_in("__half>", "_Z3cvtIDF16_fEvPT_PKT0_i")
    sizes = ((8, 1, 1), (256, 1, 1))
    launches = [rec(char, 1.0), rec(short, 2.0)]
    assert pick_launch(launches, "short,", "cuda", *sizes)["flops_sp"] == 2.0
    assert pick_launch(launches, "char,", "cuda", *sizes)["flops_sp"] == 1.0
    # an instantiation the run never reached (int): no counts rather than another's
    assert pick_launch(launches, "int,", "cuda", *sizes) is None
    # records without instantiations (older runs) pair on sizes alone, as before
    bare = [{k: v for k, v in x.items() if k != "instance"} for x in launches]
    assert pick_launch(bare, "int,", "cuda", *sizes)["flops_sp"] == 1.0


def test_a_fragment_takes_the_nearest_launch_size_and_never_another_rows_counts(
        tmp_path: Path) -> None:
    # quicksort's "int>" rows: gqsort_kernel<unsigned int> at 512 blocks, and
    # lqsort_kernel<unsigned int> at a data-dependent 4100-4200 that the run's 4185 is near
    def rec(kernel: str, grid: int, sp: float) -> dict[str, object]:
        return {**_record(kernel, sp, {"NVIDIA A10": sp}), "backend": "cuda",
                "grid": [grid, 1, 1], "block": [128, 1, 1]}

    launches = [rec("gqsort_kernel", 512, 1.0), rec("lqsort_kernel", 4185, 2.0)]
    block = (128, 1, 1)
    assert pick_launch(launches, "int>", "cuda", (512, 1, 1), block)["flops_sp"] == 1.0
    assert pick_launch(launches, "int>", "cuda", (4151, 1, 1), block)["flops_sp"] == 2.0
    # nothing within a tenth of the row's threads, or another block: no counts
    assert pick_launch(launches, "int>", "cuda", (2048, 1, 1), block) is None
    assert pick_launch(launches, "int>", "cuda", (4151, 1, 1), (256, 1, 1)) is None

    res = tmp_path / "counts.jsonl"
    res.write_text(json.dumps({"source": "q-cuda", "args": "", "launches": launches}) + "\n")
    rows = pd.DataFrame({"source": "q-cuda", "exe_args": "", "model_type": "cuda",
                         "gpu": "NVIDIA A10", "kernel": ["int>", "int>", "int>", "lqsort_kernel"],
                         "grid_size": ["(512, 1, 1)", "(4151, 1, 1)", "(2048, 1, 1)",
                                       "(2048, 1, 1)"],
                         "block_size": "(128, 1, 1)"})
    got = attach_counted(rows, build_counted_table([res], rows))
    # the row whose size no launch had stays uncounted rather than borrowing the "int>"
    # entry of another row (another kernel); a named kernel still takes its other sizes'
    np.testing.assert_allclose(got["c_has"], [1.0, 1.0, np.nan, 1.0])
    np.testing.assert_allclose(10 ** got["c_sp"] - 1, [1.0, 2.0, np.nan, 2.0])
    # a GPU without entries of its own: a fragment row takes another GPU's entry with its
    # sizes (the tier by sizes across GPUs), still none without them
    a100 = attach_counted(rows.assign(gpu="NVIDIA A100 SXM4 40GB"),
                          build_counted_table([res], rows))
    np.testing.assert_allclose(a100["c_has"], [1.0, 1.0, np.nan, 1.0])
    np.testing.assert_allclose(10 ** a100["c_sp"] - 1, [1.0, 2.0, np.nan, 2.0])


def test_a_full_kernel_name_picks_its_instantiation(tmp_path: Path) -> None:
    # paper-a's rows give the profiler's full name (``Kernel Name``): expdist's
    # reduce_cross_term<double> row takes the double launch, not the first (float) one
    assert template_args("void k<float, 2048>(T1 *, int)", "k") == "float,2048"
    assert template_args("void cross_kernel<float, int>(int, T1 *)", "cross_kernel") == \
        "float,int"
    assert template_args("filter(int *, int *)", "filter") is None

    def rec(t: str, sp: float, dp: float) -> dict[str, object]:
        return {**_record("red", sp, {"GeForce RTX 3080": 1e3 * (sp + dp)}), "flops_dp": dp,
                "backend": "cuda", "launch": 0, "grid": [4, 1, 1], "block": [64, 1, 1],
                "instance": f"_Z3redI{t}EvPT_i"}

    launches = [rec("f", 10.0, 0.0), rec("d", 0.0, 10.0)]
    sizes = ((4, 1, 1), (64, 1, 1))
    assert pick_launch(launches, "red", "cuda", *sizes,
                       signature="void red<double>(T1 *, int)")["flops_dp"] == 10.0
    # no template arguments, or none that a launch has: the first launch
    for sig in ("red(float *, int)", "void red<long>(T1 *, int)", ""):
        assert pick_launch(launches, "red", "cuda", *sizes, signature=sig)["flops_sp"] == 10.0

    res = tmp_path / "counts.jsonl"
    res.write_text(json.dumps({"source": "e-cuda", "args": "", "launches": launches}) + "\n")
    rows = pd.DataFrame({"source": "e-cuda", "exe_args": "", "model_type": "cuda",
                         "gpu": "GeForce RTX 3080", "kernel": "red",
                         "grid_size": "(4, 1, 1)", "block_size": "(64, 1, 1)",
                         "dataset": ["hecbench", "paper-a"],
                         "kernel_signature": ["", "void red<double>(T1 *, int)"]})
    got = attach_counted(rows, build_counted_table([res], rows))
    np.testing.assert_allclose(10 ** got["c_dp"] - 1, [0.0, 10.0])


def test_predict_count_auto_falls_back_and_says_why(
        stencil_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a single file is not a program folder: counting is skipped, the learned path answers
    assert main(["predict", str(stencil_dir / "main.cu"), "--kernel", "stencil", "--gpu",
                 "a10", "--args", "4096 3", "--count", "auto", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)[0]
    assert any("counting skipped" in n for n in out["notes"])
    assert out["origin"]["counts"].startswith("learned")


@pytest.fixture
def count_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The OpenMP counting toolchain (required) and a fresh count cache."""
    from tests.counting.conftest import _libomp_ok, _toolchain_ok

    require("clang/opt (LLVM >= 15)", _toolchain_ok())
    require("LLVM libomp (libomp-15-dev)", _libomp_ok())
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.slow
def test_predict_count_always_uses_cpu_execution(
        omp_dir: Path, count_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cmd = ["predict", str(omp_dir), "--kernel", "main_l8", "--gpu", "rtx3080", "--args",
           "4096", "--count", "always", "--json"]
    assert main(cmd) == 0
    out = json.loads(capsys.readouterr().out)[0]
    assert out["origin"]["flops"] == "counted (omp CPU execution)"
    assert out["flops_sp"] == pytest.approx(2 * 4096)  # y = 2x + y: one mul, one add
    # x and y read; the 16 kB of y written stay in the RTX 3080's L2 past the launch
    assert 2 * 4 * 4096 <= out["dram_bytes"] <= 3 * 4 * 4096
    assert main(cmd) == 0
    again = json.loads(capsys.readouterr().out)[0]
    assert any("(cached)" in n for n in again["notes"])
    assert again["flops_sp"] == out["flops_sp"]


def test_model_fits_without_any_counted_rows() -> None:
    from importlib import resources

    from ridgeline.learning.columns import FEATURES, TARGETS
    from ridgeline.learning.model import CountModel
    from ridgeline.learning.shipped import TABLE_FILE
    from ridgeline.learning.training import with_gpu_features

    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        t = pd.read_parquet(fh)
    t = t[(t["dataset"] == "hecbench") & (t["error"].fillna("") == "")].head(200)
    empty = pd.DataFrame(columns=["source", "exe_args", "kernel", "gpu", *COUNTED_COLUMNS])
    x = with_gpu_features(t, empty)
    assert x["c_has"].isna().all()
    m = CountModel(max_iter=10).fit(x[FEATURES], t[TARGETS].reset_index(drop=True))
    assert (m.predict(x)["time_ns"] > 0).all()


@pytest.mark.slow
def test_predict_batch_count_auto_runs_each_program_once(
        omp_dir: Path, tmp_path: Path, count_cache: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "source,kernel,model_type,block_size,grid_size,exe_args,device\n"
        "axpy-omp,main_l8,omp,\"(256, 1, 1)\",\"(16, 1, 1)\",4096,3080\n"
        "axpy-omp,main_l8,omp,\"(256, 1, 1)\",\"(16, 1, 1)\",4096,A100\n"
        "nowhere-omp,main_l8,omp,\"(256, 1, 1)\",\"(16, 1, 1)\",4096,3080\n")
    out = tmp_path / "out.csv"
    base = ["predict-batch", str(rows), "--sources", str(tmp_path), "--out", str(out)]
    assert main(base + ["--count", "never"]) == 0
    never = pd.read_csv(out, keep_default_na=False)
    assert list(never["pred_origin"][:2]) == ["learned", "learned"]
    assert main(base + ["--count", "auto"]) == 0
    df = pd.read_csv(out, keep_default_na=False)
    assert "2 with CPU-execution counts" in capsys.readouterr().err
    assert list(df["pred_origin"]) == ["counted", "counted", ""]
    assert "does not exist" in df["error"][2]  # the bad row is reported, the batch goes on
    for i in (0, 1):  # y = 2x + y on 4096 floats: FLOPs are counted, not learned
        assert float(df["pred_SP_FLOP"][i]) == pytest.approx(2 * 4096, rel=0.01)
    runs = list((count_cache / "counts").glob("prog-*.json"))
    assert len(runs) == 1  # one run of the program served both GPUs' rows
    # cached runs nothing but reads the local count cache too; a failure is cached as well
    assert main(base + ["--count", "cached"]) == 0
    assert list(pd.read_csv(out, keep_default_na=False)["pred_origin"][:2]) == ["counted"] * 2
    (count_cache / "counts").joinpath(runs[0].name).unlink()
    assert main(base + ["--count", "cached"]) == 0
    assert list(pd.read_csv(out, keep_default_na=False)["pred_origin"][:2]) == ["learned"] * 2


def test_a_gpu_without_counts_takes_the_counted_gpu_with_the_nearest_l2() -> None:
    # counted for the A10 (6 MiB L2) and the A100 (40 MiB): an H100 row (50 MiB) takes the
    # A100's DRAM bytes, an RTX 3090 row (6 MiB) the A10's; an unknown kernel stays NaN
    counted = pd.DataFrame({
        "source": "k-cuda", "exe_args": "8", "kernel": "k", "grid": "4,1,1",
        "block": "64,1,1", "gpu": ["NVIDIA A10", "NVIDIA A100 SXM4 40GB"],
        **{c: 1.0 for c in COUNTED_COLUMNS}})
    counted["c_dram"] = [np.log10(1 + 5e6), np.log10(1 + 1e6)]
    rows = pd.DataFrame({"source": "k-cuda", "exe_args": "8", "kernel": ["k", "k", "k", "j"],
                         "gpu": ["NVIDIA H100 SXM5", "GeForce RTX 3090", "NVIDIA A10",
                                 "NVIDIA A10"],
                         "grid_size": ["4", "(4, 1, 1)", "(2, 1, 1)", "4"],
                         "block_size": "64"})
    got = attach_counted(rows, counted)
    np.testing.assert_allclose(10 ** got["c_dram"][:3] - 1, [1e6, 5e6, 5e6])
    assert list(got["c_has"].fillna(0)) == [1.0, 1.0, 1.0, 0.0]


def test_openmp_instantiations_pair_with_rows_by_the_rank_of_their_sizes(
        tmp_path: Path) -> None:
    # one region instantiated for 1 and 3 channels: loops of 256 and 768 iterations
    def rec(kernel: str, grid: int, sp: float) -> dict[str, object]:
        return {**_record(kernel, sp, {"NVIDIA A10": 10.0 * sp}), "backend": "omp",
                "launch": 0, "grid": [grid, 1, 1], "block": [128, 1, 1]}

    assert by_size_rank({"a": 128.0, "b": 384.0}, 768.0, [256.0, 768.0]) == "b"
    assert by_size_rank({"a": 128.0, "b": 384.0}, 256.0, [768.0, 256.0, 256.0]) == "a"
    assert by_size_rank({"a": 128.0, "b": 128.0}, 256.0, [256.0, 768.0]) is None
    assert by_size_rank({"a": 128.0, "b": 384.0}, None, [256.0, 768.0]) is None
    assert launched_threads("(6, 1, 1)", "128") == 768.0
    assert launched_threads("?", "128") is None

    res = tmp_path / "counts.jsonl"
    launches = [rec("_Z3runILi1EEvPj_l103", 1, 1e3), rec("_Z3runILi3EEvPj_l103", 3, 3e3)]
    res.write_text(json.dumps({"source": "h-omp", "args": "", "launches": launches}) + "\n")
    rows = pd.DataFrame({"source": "h-omp", "exe_args": "", "model_type": "omp",
                         "gpu": ["NVIDIA A10"] * 3 + ["GeForce RTX 3080"],
                         "kernel": "vPj_l103",
                         "grid_size": ["(6, 1, 1)", "(2, 1, 1)", "(6, 1, 1)", "(6, 1, 1)"],
                         "block_size": "(128, 1, 1)"})
    got = attach_counted(rows, build_counted_table([res], rows))
    # the 3080 profiled only the larger launch: nothing ranks it, the first instantiation
    np.testing.assert_allclose(10 ** got["c_sp"] - 1, [3e3, 1e3, 3e3, 1e3])
