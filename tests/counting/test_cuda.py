"""CUDA programs on the CPU layer, against counts computed by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgeline.counting import LaunchCount, count_run
from ridgeline.counting.records import DRAM_MODEL, LAUNCH_DRAM_FLOOR
from ridgeline.errors import UsageError
from tests.counting.conftest import PROGRAMS, check_sampled_stencil, kept

pytestmark = pytest.mark.slow
N = 65536
FLOOR = LAUNCH_DRAM_FLOOR["cuda"]  # constants and parameters fetched per profiled launch


def floor(r: LaunchCount) -> float:
    """DRAM bytes of a launch besides its data: the floor and the kernel's own code, which
    nvcc compiled beside the run (the test setup installs nvcc)."""
    assert r.code_bytes is not None and r.code_bytes > 0, "no code size: is nvcc installed?"
    return FLOOR + r.code_bytes


@pytest.fixture(scope="module")
def saxpy_counts(toolchain: None, programs: Path) -> dict:
    recs = count_run(programs / "saxpy-cuda", str(N), gpu=["rtx3080", "a100", "a10", "h100"],
                     skip_after=False, timeout=120)
    by: dict = {}
    for r in recs:
        by.setdefault(r.kernel, []).append(r)
    return by


def test_first_two_launches_counted(saxpy_counts: dict) -> None:
    assert [r.launch for r in saxpy_counts["saxpy"]] == [0, 1]
    assert set(saxpy_counts) == {"saxpy", "reduce", "warpsum", "scale_dyn", "idiv", "fill",
                                 "seed"}


def test_saxpy_counts(saxpy_counts: dict) -> None:
    r = saxpy_counts["saxpy"][0]
    assert r.backend == "cuda"
    assert r.flops_sp == 2 * N and r.flops_dp == 0
    assert r.global_load_bytes == 8 * N and r.global_store_bytes == 4 * N
    assert r.global_loads == 2 * N and r.global_stores == N
    # streaming: every byte read comes once from DRAM; the 256 kB written stay dirty in the
    # L2 past the launch (the catalog's l2_exit_kept_mib: 0.5 MiB on GA102, 11.5 on GA100)
    assert r.dram_bytes == 8 * N + floor(r)
    assert r.dram_bytes_by_gpu["NVIDIA A100 SXM4 40GB"] == 8 * N + floor(r)
    # a GPU without the figure writes back every dirty sector
    assert r.dram_bytes_by_gpu["NVIDIA H100 SXM5"] == 12 * N + floor(r)
    # the A10 shares GA102's L2: the same traffic, which its profiler counts 1.15 times
    # (code and floor included: the catalog's dram_bytes_scale)
    assert r.dram_bytes_by_gpu["NVIDIA A10"] == pytest.approx(1.15 * r.dram_bytes)
    assert r.dram_model == DRAM_MODEL == 6
    assert r.grid == (N // 256, 1, 1) and r.block == (256, 1, 1)
    assert r.int_ops > 0


def test_the_l2_keeps_a_launchs_last_writes(saxpy_counts: dict) -> None:
    # fill stores 256 kB and reads nothing: the RTX 3080 keeps up to 512 KiB of a launch's
    # writes dirty past its end (l2_exit_kept_mib), the A100 up to 11.5 MiB
    (r,) = saxpy_counts["fill"]
    assert r.global_store_bytes == 4 * N and r.global_load_bytes == 0
    assert r.sectors_written == 4 * N / 32 and r.sectors_read == 0
    assert r.dram_bytes == floor(r)
    assert r.dram_bytes_by_gpu["NVIDIA A10"] == pytest.approx(1.15 * floor(r))
    assert r.dram_bytes_by_gpu["NVIDIA A100 SXM4 40GB"] == floor(r)
    # seed writes two 512 kB tables and reads back what it wrote (no DRAM read): the RTX
    # 3080 keeps 512 KiB of the 1 MiB
    (s,) = saxpy_counts["seed"]
    assert s.global_load_bytes >= 8 * N and s.sectors_written == 16 * N / 32
    assert s.dram_bytes == 8 * N + floor(s)
    # the A100 keeps all of it
    assert s.dram_bytes_by_gpu["NVIDIA A100 SXM4 40GB"] == floor(s)


def test_division_by_a_run_time_value_costs_integer_work(saxpy_counts: dict) -> None:
    from ridgeline.counting.records import INT_DIV_EXTRA

    r = saxpy_counts["idiv"][0]
    assert r.int_detail["int_div"] == N  # a[i] / d[i]; a[i] / 4 becomes a shift
    plain = sum(r.int_detail[k] for k in ("int_arith", "int_logic", "int_cmp", "int_gep"))
    assert r.int_ops == plain + INT_DIV_EXTRA * N


def test_shared_memory_barriers_and_atomics(saxpy_counts: dict) -> None:
    r = saxpy_counts["reduce"][0]
    blocks = N // 256
    assert r.flops_sp == 255 * blocks  # the float atomicAdd to global memory is not a FLOP
    # per block: 256 stores, 3 accesses per add, thread 0 reads s[0]
    assert r.shared_accesses == (256 + 3 * 255 + 1) * blocks
    assert r.atomics == blocks


def test_dynamic_shared_memory(saxpy_counts: dict) -> None:
    r = saxpy_counts["scale_dyn"][0]
    assert r.flops_sp == N and r.shared_accesses == 2 * N
    assert r.global_load_bytes == 4 * N and r.global_store_bytes == 4 * N


def test_warp_shuffles_give_right_results(saxpy_counts: dict) -> None:
    # the program checks the shuffle sums itself and exits non-zero when wrong; counts are
    # still read, so check the DP adds: 64 threads x 5 shuffle steps, the last add of the
    # 62 lanes that do not store is dead code and removed by the compiler
    r = saxpy_counts["warpsum"][0]
    assert 64 * 4 <= r.flops_dp <= 64 * 5


def test_block_sampling_extrapolates_exactly_on_uniform_grid(toolchain: None,
                                                            programs: Path) -> None:
    recs = count_run(programs / "saxpy-cuda", str(N), kernel="saxpy", launches=1,
                     gpu="rtx3080", sample_threshold=1024, sample_blocks=8)
    (r,) = recs
    # first and last block, then 8 interior ones that all did the same work: enough
    assert r.blocks_counted == 10 and r.blocks_total == N // 256
    assert r.flops_sp == pytest.approx(2 * N)
    assert r.global_load_bytes == pytest.approx(8 * N)
    assert r.dram_bytes == pytest.approx(12 * N - kept(4 * N) + floor(r))
    assert r.homogeneous


def test_sampled_launch_leaves_the_gpus_kept_writes_dirty(toolchain: None,
                                                         programs: Path) -> None:
    # 64 MB of x and y read, 64 MB of y written, 10 blocks of 65536 sampled: the sampled
    # blocks' writes are all still dirty in the model L2, but the whole launch writes back
    # all it wrote but what the GPU keeps at its end: 0.5 MiB on the RTX 3080, 11.5 MiB on
    # the A100
    n = 1 << 24
    (r,) = count_run(programs / "saxpy-cuda", str(n), kernel="saxpy", launches=1,
                     gpu=["rtx3080", "a100"], sample_threshold=1024, sample_blocks=8)
    assert r.blocks_counted == 10
    assert r.dram_bytes == pytest.approx(12 * n - 2**19 + floor(r))
    assert r.dram_bytes_by_gpu["NVIDIA A100 SXM4 40GB"] == pytest.approx(
        12 * n - 11.5 * 2**20 + floor(r), rel=1e-3)


def test_l2_capacity_misses(toolchain: None, programs: Path) -> None:
    # Radeon HD 7970: 0.75 MiB L2. 8 MB scanned twice misses twice; 400 kB once.
    (big,) = count_run(programs / "rescan-cuda", "2000000", gpu="hd7970")
    (small,) = count_run(programs / "rescan-cuda", "100000", gpu="hd7970")
    assert big.dram_bytes == 2 * 8_000_000 + 32 + floor(big)
    assert small.dram_bytes == 400_000 + 32 + floor(small)
    assert big.sectors_read == 250_000


def test_slow_launch_sampled_after_its_first_block(toolchain: None, programs: Path) -> None:
    r = count_run(programs / "saxpy-cuda", str(N), kernel="saxpy", launches=1,
                  launch_budget=1e-9)[0]
    assert r.blocks_total == N // 256 and 3 <= r.blocks_counted <= 10
    assert r.flops_sp == pytest.approx(2 * N, rel=1e-9)
    assert r.global_store_bytes == pytest.approx(4 * N, rel=1e-9)


def test_sampling_finds_the_few_busy_blocks_of_a_large_grid(toolchain: None,
                                                           programs: Path) -> None:
    # 4098 blocks, the first 513 busy (100 iterations of 2 FLOPs per thread), the rest return
    # at once. Eight blocks spread over the grid would see one busy block; the sample keeps
    # doubling while block 0 does not look like the rest, and its strata of 4 blocks each
    # fall wholly inside or outside the busy head, so the extrapolation is exact.
    (r,) = count_run(programs / "sparse-cuda", "4098 513 1024", kernel="busy_head",
                     launches=1)
    assert r.blocks_total == 4098 and r.blocks_counted == 2 + 1024
    assert not r.homogeneous
    assert r.flops_sp == pytest.approx(513 * 256 * 100 * 2)


def test_sampling_weighs_the_idle_edge_rows_of_a_stencil(toolchain: None,
                                                        programs: Path) -> None:
    # 1024 x 1024 five-point stencil in 8 x 1024 blocks of 128: the first and last rows of
    # blocks and one thread of the outer columns do nothing; the jittered sample of the
    # interior stands for it within 1%
    (r,) = count_run(programs / "sparse-cuda", "4 1 1024", kernel="stencil", launches=1)
    assert r.blocks_total == 8 * 1024 and r.blocks_counted > 10
    assert r.flops_sp == pytest.approx(1022 * 1022 * 5, rel=0.01)


def test_host_code_left_uninstrumented(toolchain: None, programs: Path, tmp_path: Path) -> None:
    recs = count_run(programs / "saxpy-cuda", "4096", kernel="saxpy", launches=1,
                     workdir=tmp_path)
    assert recs[0].flops_sp == 2 * 4096
    ir = next(tmp_path.glob("*/build/00_main.inst.ll")).read_text()
    main_body = ir.split("@main(", 1)[1].split("\n}\n", 1)[0]
    # the launch trampolines (the kernel inlined into them) are what runs and is counted
    launched = ir.split('define internal void @"_ZZL16__rl_launch_call', 1)[1]
    launched = launched.split("\n}\n", 1)[0]
    assert "__rl_bbc" not in main_body and "__rl_bbc" in launched


def test_shared_float_atomic_add_is_a_flop(toolchain: None, programs: Path) -> None:
    # 64 blocks x 256 threads add 1.0f into shared memory (counted), then 32 threads per
    # block add into global memory (native reduction: not a FLOP)
    # c k + 0.5 attempts per thread where k threads of a block add to one address together
    # (the fit to HeCBench's measured FLOPs): c = 0.22 in a grid of 128 blocks, 8 threads per
    # address (one per warp) -> 2.26 each; c = 0.45 in a grid of 4 blocks (each alone on its
    # SM), the whole block of 256 on one address -> 115.7 each
    by = {r.kernel: r for r in count_run(programs / "satom-cuda", "")}
    r = by["atom"]
    extra = round(8 * (0.22 * 8 + 0.5 - 1))  # per address and block
    assert r.flops_sp == 128 * (256 + 32 * extra)
    assert r.atomics == 128 * (256 + 32)
    # global float atomics: each of the 32 outputs takes one from each of the 128 blocks
    assert (r.atomics_hot_fp, r.atomics_hot) == (128, 0)
    one = by["single"]
    extra = round(256 * (0.45 * 256 + 0.5 - 1))
    assert one.flops_dp == 4 * (256 + extra) and one.flops_sp == 0
    assert one.atomics_hot == one.atomics_hot_fp == 0  # on shared memory only


def test_reciprocals_and_divisions_by_minus_one(toolchain: None, programs: Path) -> None:
    # 1/x: nvcc's reciprocal, 5 counted FLOPs (float) and 10 (double); m * (-1/d) + 1: a
    # division (10), which the CPU optimizer would have folded into a reciprocal, and an FFMA
    recs = {r.kernel: r for r in count_run(programs / "recip-cuda", "1024", gpu="rtx3080")}
    assert recs["recip"].flops_sp == 1024 * 5 and recs["recip"].flops_dp == 1024 * 10
    assert recs["scale"].flops_sp == 1024 * 12


def test_conditional_multiplies_count_where_their_condition_holds(toolchain: None,
                                                                  programs: Path) -> None:
    # the optimizer turns `if (pos < lo) vel *= damping` into a multiply by a select of the
    # damping and 1, executed for every thread; nvcc predicates the FMUL instead. 1024
    # particles below the box and 1023 above it: 2047 counted FLOPs, not 2 per particle
    (r,) = count_run(programs / "clamp-cuda", "4096", gpu="rtx3080")
    assert r.flops_sp == 2047


def test_double_division_of_zero_takes_the_slow_path(toolchain: None, programs: Path) -> None:
    # 4096 divisions (15 counted DP FLOPs and an SP FFMA each on the fast path); the 2048
    # zero numerators leave it for the general routine, 17 more each; sampled blocks
    # extrapolate the same share
    per_div = 15
    (r,) = count_run(programs / "ddiv-cuda", "4096", gpu="rtx3080")
    assert r.flops_dp == 4096 * per_div + 2048 * 17
    assert r.flops_sp == 4096 * 2
    # a divisor whose high word reads as a float NaN (exponent field 0x7fe): every division
    # fails the fast path's check
    (r,) = count_run(programs / "ddiv-cuda", "4096 1e308", gpu="rtx3080")
    assert r.flops_dp == 4096 * (per_div + 17)
    # every numerator is zeroed by a launch the counting skips (fill's 3rd): the run could
    # not tell the divisions' paths apart (its data was partial), so the program runs again
    # with every launch executed, and every division takes the slow path
    recs = {r.kernel: r for r in count_run(programs / "ddiv-cuda", "4096 3 fill", gpu="rtx3080")}
    assert recs["ratio"].flops_dp == 4096 * (per_div + 17)
    recs = {r.kernel: r for r in count_run(programs / "ddiv-cuda", "4096 3 fill", gpu="rtx3080",
                                           skip_after=False)}
    assert recs["ratio"].flops_dp == 4096 * (per_div + 17)


@pytest.mark.parametrize("times", [1, 2])
def test_a_kernel_expected_twice_waits_for_two_instantiations(toolchain: None, programs: Path,
                                                              times: int) -> None:
    # scale<float> then scale<double>, launched alike, then tail: listed once, the program
    # stops after the float one; listed twice, after the double one (tail never counted)
    recs = count_run(programs / "twotypes-cuda", "1024", launches=1, skip_after=False,
                     expect=["scale"] * times)
    assert [(r.kernel, r.variant) for r in recs] == [("scale", v) for v in range(times)]
    assert [(r.flops_sp, r.flops_dp) for r in recs] == [(1024, 0), (0, 1024)][:times]


def test_rows_shared_by_sampled_blocks_come_from_dram_once(toolchain: None,
                                                          programs: Path) -> None:
    # 256 x 256 blocks, each reading two 1 kB rows of a 256 kB table: the 8 sampled blocks
    # read 16 distinct rows, which extrapolated to every block would be 128 MB; the table
    # and the 256 kB result fit in the L2, so each comes from / goes to DRAM once
    (r,) = count_run(programs / "pairs-cuda", "256", gpu=["rtx3080", "hd7970"])
    assert r.blocks_counted < r.blocks_total == 256 * 256
    assert r.global_load_bytes == pytest.approx(256 * 256 * 2 * 1024)
    table = result = 256 * 1024
    # the RTX 3080 keeps the result in its L2 past the launch, the HD 7970 (no such figure
    # in the catalog) writes it back
    assert r.dram_bytes_by_gpu["GeForce RTX 3080"] == table + result - kept(result) + floor(r)
    assert r.dram_bytes_by_gpu["AMD Radeon HD 7970"] == table + result + floor(r)
    assert r.sectors_read == table // 32


def test_per_thread_arrays_move_local_memory_through_dram(toolchain: None,
                                                          programs: Path) -> None:
    # every thread zeroes a 1 kB histogram, updates it 64 times and sums it: 1280 B loaded and
    # 1280 B stored in local memory per thread
    from ridgeline.counting.dram import local_dram_bytes

    (big,) = count_run(programs / "localarr-cuda", "1024", gpu="rtx3080")
    assert big.gpu_local_memory  # a histogram indexed by data stays in local memory
    threads = 1024 * 128
    assert big.local_load_bytes == threads * 1280
    assert big.local_store_bytes == threads * 1280
    assert 1024 <= big.local_footprint <= 1056  # the array's sectors, not the thread's frame
    # 131072 threads x ~1 kB overflow the L1s and the L2: most accesses go to DRAM
    local = local_dram_bytes(threads * 2560, big.local_footprint, threads, 68, 5 << 20)
    assert local > 0.8 * threads * 2560
    keys = out = threads * 4
    assert big.dram_bytes == pytest.approx(keys + out - kept(out) + floor(big) + local)
    # 8 blocks: 1024 threads' histograms stay cached, DRAM is the keys only (the L2 keeps the
    # results past the launch)
    (small,) = count_run(programs / "localarr-cuda", "8", gpu="rtx3080")
    assert small.local_store_bytes == 1024 * 1280
    assert small.dram_bytes == 1024 * 4 + floor(small)


@pytest.mark.parametrize("n", [4096, 1 << 19])
def test_warp_synchronous_scan_through_volatile_shared_memory(toolchain: None, programs: Path,
                                                              n: int) -> None:
    # lanes scan a 1 each in lockstep: lane l's prefix is l, it adds 1.0f l times (496 per
    # warp) and stores its prefix at its own slot; run lane by lane, prefixes overshoot (more
    # FLOPs) and the stores land outside the array. 1 << 19 threads: sampled blocks, each
    # run with its lanes in lockstep
    (r,) = count_run(programs / "warpscan-cuda", str(n), gpu="rtx3080")
    # then lane 5's store reaches every thread past the barrier: 5 more each (released
    # early, the lanes scheduled before it would read the old value)
    assert r.flops_sp == n // 32 * 496 + 5 * n
    assert r.global_store_bytes == 2 * 4 * n
    assert r.sectors_written == 2 * 4 * n // 32


def test_math_on_constants_folded_or_counted_per_call(toolchain: None, programs: Path) -> None:
    # sqrtf(x + 1) * cosf(0.5f): an add, the IEEE square root and a multiply per element with
    # the cosine folded at build time; kept (as libdevice builds run it): the cosine's counted
    # FLOPs in every thread too; as clang builds it: the cosine kept, the square root
    # approximate (no counted FLOP)
    from ridgeline.counting import compiler_options
    from ridgeline.counting.mathops import APPROX_SQRTF_FLOPS, MATH_FLOPS

    n = 1024
    sqrt, cos = MATH_FLOPS["sqrtf"][1], MATH_FLOPS["cosf"][1]
    (r,) = count_run(programs / "constmath-cuda", str(n))
    assert r.flops_sp == n * (2 + sqrt)
    (r,) = count_run(programs / "constmath-cuda", str(n), fold_math=False)
    assert r.flops_sp == n * (2 + sqrt + cos)
    (r,) = count_run(programs / "constmath-cuda", str(n), **compiler_options("clang"))
    assert r.flops_sp == n * (2 + APPROX_SQRTF_FLOPS + cos) == n * (2 + cos)
    with pytest.raises(UsageError, match="unknown GPU compiler 'icc'"):
        compiler_options("icc")


def test_float_math_named_without_suffix_stays_single_precision(toolchain: None,
                                                               programs: Path) -> None:
    # hypot(x, y) and atan2(y, x) of floats, no <math.h>: hypotf and atan2f as under nvcc
    from ridgeline.counting.mathops import MATH_FLOPS

    n = 512
    (r,) = count_run(programs / "floatmath-cuda", str(n))
    assert r.flops_dp == 0
    assert r.flops_sp == n * (MATH_FLOPS["hypotf"][1] + MATH_FLOPS["atan2f"][1])


def test_nvcc_fast_math_flag_is_not_a_clang_build(toolchain: None, programs: Path) -> None:
    # the Makefile builds with nvcc -use_fast_math: powf is the approximate __powf there; a
    # clang build of the same source (HeCBench's CMake build behind the paper-A rows) has no
    # such flag and runs the full powf (minkowski: 61 FLOPs per call measured, not 3)
    from ridgeline.counting import compiler_options
    from ridgeline.counting.mathops import FAST_MATH_FLOPS, MATH_FLOPS

    n = 4096
    (fast,) = count_run(programs / "fastpow-cuda", str(n))
    assert fast.flops_sp == n * FAST_MATH_FLOPS["powf"]
    (full,) = count_run(programs / "fastpow-cuda", str(n), **compiler_options("clang"))
    assert full.flops_sp == n * MATH_FLOPS["powf"][1]


def test_unroll_threshold_unrolls_constant_trip_loops(toolchain: None, programs: Path) -> None:
    # 16 taps in a loop of constant trip count: the nvcc-like threshold unrolls it (no
    # increment or compare per tap left, and the first tap's duplicate load of x[j] merges),
    # LLVM's default (every compiler profile) leaves it rolled; FLOPs agree
    from ridgeline.counting import compiler_options
    from ridgeline.counting.api import NVCC_UNROLL_THRESHOLD

    n, taps = 1024, 16
    (unrolled,) = count_run(programs / "taps-cuda", str(n),
                            unroll_threshold=NVCC_UNROLL_THRESHOLD)
    (rolled,) = count_run(programs / "taps-cuda", str(n))
    (clang,) = count_run(programs / "taps-cuda", str(n), **compiler_options("clang"))
    assert compiler_options("nvcc")["unroll_threshold"] is None
    assert unrolled.flops_sp == rolled.flops_sp == clang.flops_sp == n * taps * 4
    assert clang.int_ops == rolled.int_ops
    assert rolled.int_ops - unrolled.int_ops >= 2 * taps * n
    assert unrolled.global_load_bytes == rolled.global_load_bytes - 4 * n
    with pytest.raises(UsageError, match="--unroll-threshold must be >= 0, got -1"):
        count_run(programs / "taps-cuda", str(n), unroll_threshold=-1)


def test_constant_tap_offsets_share_one_address_as_in_the_nvptx_back_end(
        toolchain: None, programs: Path) -> None:
    # 1024 threads, each averaging x[i - 3] .. x[i + 3]: after unrolling, NVPTX's straight-
    # line passes give the seven loads one address (x + i) and constant offsets, so a thread
    # computes two addresses, that one and y + i. With the generic passes each tap had its
    # own index addition and address: 8 addresses and 10 additions per thread (19456
    # integer ops in all, 7168 now)
    (r,) = count_run(programs / "blur-cuda", "1030", gpu="rtx3080")
    assert r.global_loads == 7 * 1024 and r.flops_sp == 8 * 1024
    assert r.int_detail["int_gep"] == 2 * 1024
    assert r.int_ops < 8 * 1024


def test_loop_addresses_become_pointer_increments_under_the_gpu_cost_model(
        toolchain: None, programs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 512 threads, each reading px[j], py[j], w[j] for j < 512 (unrolled by two). Under
    # NVPTX's cost model loop strength reduction walks the three arrays with pointers, whose
    # loads take constant offsets; under x86's a shifted j stays in every address: three
    # more integer ops per iteration (a shift and two address additions per unrolled pair,
    # for each array)
    import ridgeline.counting.cuda as cuda_backend

    n = 512
    (gpu,) = count_run(programs / "ptrinc-cuda", str(n), gpu="rtx3080")
    monkeypatch.setattr(cuda_backend, "NVPTX_TRIPLE", None)
    (host,) = count_run(programs / "ptrinc-cuda", str(n), gpu="rtx3080")
    iterations = n * n
    assert gpu.flops_sp == host.flops_sp == 7 * iterations
    assert gpu.global_loads == host.global_loads
    assert gpu.int_ops < 1.1 * iterations and gpu.int_detail["int_gep"] < 0.01 * iterations
    assert host.int_ops > 2.9 * iterations and host.int_detail["int_gep"] > 1.4 * iterations


def test_launches_name_their_template_instantiation_and_host_openmp_links(
        toolchain: None, programs: Path) -> None:
    # scale<int>, scale<double>, scale<float> from one launch site; the host calls
    # omp_get_wtime (nvcc -Xcompiler -fopenmp), which needs the OpenMP runtime at link time
    n = 1000
    recs = count_run(programs / "instances-cuda", str(n))
    assert [r.instance for r in recs] == ["_Z5scaleIiEvPT_S0_i", "_Z5scaleIdEvPT_S0_i",
                                          "_Z5scaleIfEvPT_S0_i"]
    assert [r.variant for r in recs] == [0, 1, 2] and {r.kernel for r in recs} == {"scale"}
    # the entry call is not counted: the same loads and multiplies for each type
    assert [r.global_load_bytes for r in recs] == [4 * n, 8 * n, 4 * n]
    assert recs[1].flops_dp == n and recs[2].flops_sp == n


def test_static_library_from_a_subfolder_makefile(toolchain: None, programs: Path) -> None:
    # the link rule takes ./vec/libvec.a, which vec/makefile's "basic" goal archives from
    # fill.o and extra.o; extra.o calls a function nothing defines and is not needed, as a
    # static library leaves it out; broken.c belongs to another goal and is not compiled
    from ridgeline.counting.program import library_sources

    prog = programs / "staticlib-cuda"
    assert [p.name for p in library_sources(prog, "cuda")] == ["fill.c", "extra.c"]
    n = 4096
    (r,) = count_run(prog, str(n))
    assert r.flops_sp == 2 * n and r.global_load_bytes == 8 * n


def test_a_launch_sized_by_a_sampled_kernel_is_counted_on_the_rerun(toolchain: None,
                                                                    programs: Path) -> None:
    # flag's 1M threads are sampled; the sampled blocks alone leave count far too small and
    # use's grid empty: an empty grid is not a launch (as on a GPU), use stays expected, and
    # the rerun with every block executed gives it its 2**20 / 65536 = 16 blocks. Without
    # warm blocks: those would run 512 more of flag's blocks, leaving use a grid of 2 blocks,
    # wrong but not empty, which no rerun corrects (a later launch sized from a sampled
    # launch's results is only caught when it comes out empty)
    recs = count_run(programs / "sizedby-cuda", str(1 << 20), launches=1,
                     expect=["flag", "count", "use"], timeout=120, warm_blocks=0)
    by = {r.kernel: r for r in recs}
    assert set(by) == {"flag", "count", "use"}
    assert by["use"].grid == (16, 1, 1)
    assert by["use"].flops_sp == 16 * 256
    assert by["flag"].blocks_total == 4096


def test_a_product_fuses_into_each_sum_that_uses_it(toolchain: None, programs: Path) -> None:
    # t = (p + q + r + s) / 2 and p - t, q - t, t - r, t - s: nvcc 13 emits 3 FADDs and
    # 4 FFMAs per group (sm_86 SASS), 11 FLOPs, where the CPU build has 1 multiply and 7 adds
    (r,) = count_run(programs / "hadamard-cuda", "4096", gpu="rtx3080")
    assert r.flops_sp == 11 * 4096


def test_a_sign_product_stays_a_multiply(toolchain: None, programs: Path) -> None:
    # sign * (1 - 2 * negative) is an I2F and an FMUL per value in nvcc 13's SASS (ldpc's
    # check-node update); the CPU optimizer would make it a select of -sign and sign.
    # c ? -s : s is an FSEL on the GPU: no FLOP. 1024 rows of 8 values
    recs = {r.kernel: r for r in count_run(programs / "sign-cuda", "1024 8", gpu="rtx3080")}
    assert recs["product_sign"].flops_sp == 1024 * 8
    assert recs["select_sign"].flops_sp == 0


def test_code_bytes_are_the_kernels_sass(saxpy_counts: dict, programs: Path) -> None:
    # each kernel's own machine code, 16 bytes per SASS instruction of an sm_86 compile of the
    # program's source, joins every GPU's DRAM bytes once per launch
    from ridgeline.compile.nvcc import compile_cuda
    from ridgeline.counting.codebytes import INSTRUCTION_BYTES

    funcs = compile_cuda(programs / "saxpy-cuda" / "main.cu", arch="sm_86")["functions"]
    sizes = {}
    for kernel, recs in saxpy_counts.items():
        (mangled,) = [f for f in funcs if f.startswith(f"_Z{len(kernel)}{kernel}")]
        sizes[kernel] = INSTRUCTION_BYTES * funcs[mangled]["instructions"]
        assert {r.code_bytes for r in recs} == {sizes[kernel]}
    assert len(set(sizes.values())) > 1  # a size per kernel, not one figure for all


def test_stored_records_are_brought_up_to_date_once() -> None:
    from ridgeline.counting.codebytes import KernelCode, apply_kernel_code_to_record

    rec = {"kernel": "k", "backend": "cuda", "dram_bytes": 100.0,
           "dram_bytes_by_gpu": {"a": 100.0, "b": 50.0}}
    # two instances of k, neither with local memory; kk is another kernel
    funcs = {"_Z1kPf": KernelCode(10, False), "_Z1kIfEvPT_": KernelCode(30, False),
             "_Z2kkPf": KernelCode(1000, True)}
    up = apply_kernel_code_to_record(rec, funcs)
    assert up["code_bytes"] == 16 * 20 and up["gpu_local_memory"] is False
    assert up["dram_bytes_by_gpu"] == {"a": 420.0, "b": 370.0} and up["dram_bytes"] == 420.0
    assert apply_kernel_code_to_record(up, funcs) is up
    # a record that has its code bytes already gets the local-memory step alone
    half = apply_kernel_code_to_record({**rec, "code_bytes": 320.0}, funcs)
    assert half["dram_bytes"] == 100.0 and half["gpu_local_memory"] is False
    gone = apply_kernel_code_to_record({**rec, "kernel": "other"}, funcs)
    assert gone["code_bytes"] is None and gone["dram_bytes"] == 100.0
    omp = {**rec, "backend": "omp"}
    assert apply_kernel_code_to_record(omp, funcs) is omp


def test_arrays_the_gpu_keeps_in_registers_move_no_local_bytes(toolchain: None,
                                                               programs: Path) -> None:
    # a 3x3 table filled by a loop: on the CPU a stack array indexed by the loop counters
    # (9 floats stored and loaded per thread), in nvcc's SASS nine registers (no stack
    # frame, no LDL/STL)
    n = 262144
    (r,) = count_run(programs / "unrolled-cuda", str(n), gpu="rtx3080")
    assert r.local_store_bytes == r.local_load_bytes == 9 * 4 * n
    assert r.gpu_local_memory is False
    assert r.dram_bytes == 8 * n - kept(4 * n) + floor(r)
    # without the compiled kernel the CPU's view stands: a 36-byte array in local memory,
    # whose two sectors per thread stay in the caches (the thread's frame does not count)
    (cpu,) = count_run(programs / "unrolled-cuda", str(n), gpu="rtx3080", code_size=False)
    assert cpu.gpu_local_memory is None and cpu.local_footprint in (32.0, 64.0)
    assert cpu.dram_bytes == 8 * n - kept(4 * n) + FLOOR


def test_counters_every_block_updates_are_written_back_once(toolchain: None,
                                                            programs: Path) -> None:
    # 16384 blocks, 10 counted: the 64 counters (8 sectors) are read and made dirty by the
    # first counted block and updated in the L2 by the others; scaling their write-backs
    # like the global accesses (each sampled block standing for 1638) would add 419 kB
    n = 4194304
    (r,) = count_run(programs / "hotbins-cuda", str(n), gpu="rtx3080")
    assert r.blocks_counted < r.blocks_total == n // 256
    assert r.dram_bytes == 4 * n + 256 + 256 - kept(256) + floor(r)


def test_most_integer_atomics_on_one_address_whole_and_sampled(toolchain: None,
                                                      programs: Path) -> None:
    # each of the 64 counters takes n / 64 of the n atomics (the input's low six bits cycle
    # through them): counted whole, and extrapolated from the sampled blocks of a large grid
    # like the launch's atomics; a launch without atomics has none on any address
    for n in (4096, 4194304):
        (r,) = count_run(programs / "hotbins-cuda", str(n), gpu="rtx3080")
        assert r.atomics == pytest.approx(n)
        assert r.atomics_hot == pytest.approx(n / 64)  # integer atomics
        assert r.atomics_hot_fp == 0
    (plain,) = count_run(programs / "srcdir-cuda", "4096", gpu="rtx3080")
    assert plain.atomics == plain.atomics_hot == plain.atomics_hot_fp == 0


def test_the_longest_thread_and_the_lanes_its_warp_carries(toolchain: None,
                                                            programs: Path) -> None:
    # lane 0 of each 64-thread block walks n values alone (then, in the second kernel, the
    # block waits for it at a barrier: the fiber path); its work grows by the same few
    # operations per value, and its warp issues the walk for all 32 lanes, the other warp
    # one add: 32 x (walk + add) / (walk + 63 adds), close to 32
    runs = {n: {r.kernel: r for r in count_run(programs / "serial-cuda", str(n),
                                               gpu="rtx3080")} for n in (1000, 2000)}
    for kernel in ("walk", "walk_then_wait"):
        a, b = runs[1000][kernel], runs[2000][kernel]
        assert a.thread_work_max is not None and b.thread_work_max is not None
        step = (b.thread_work_max - a.thread_work_max) / 1000
        assert 3 <= step <= 12  # a multiply-add, a load, a store and the loop's integer work
        assert a.thread_work_max == pytest.approx(1000 * step, rel=0.05)
        assert a.warp_issue_factor is not None and 25 < a.warp_issue_factor <= 32


def test_lanes_doing_the_same_work_issue_once(saxpy_counts: dict) -> None:
    r = saxpy_counts["saxpy"][0]
    assert r.warp_issue_factor == pytest.approx(1.0)
    assert r.thread_work_max is not None
    assert 7 <= r.thread_work_max <= 20  # two FLOPs and the index work of one element


def test_counters_every_sampled_block_updates_are_distinct_sectors_once(toolchain: None,
                                                                        programs: Path) -> None:
    # the same histogram with its 64 counters in a buffer of 16384: the 10 counted blocks of
    # 16384 touch their own input slices and the same 8 counter sectors; extrapolating their
    # union like the accesses would make the counters 8 x 1638 sectors (2048 once capped by
    # the buffer), read from DRAM once each. The first block's sectors count once, the
    # others' stand for the blocks not counted
    n = 4194304
    (r,) = count_run(programs / "hotbins-cuda", f"{n} 16384", gpu="rtx3080")
    assert r.blocks_counted < r.blocks_total == n // 256
    assert r.sectors_read == pytest.approx(4 * n / 32 + 8)
    assert r.sectors_written == pytest.approx(8)
    assert r.dram_bytes == pytest.approx(4 * n + 256 + 256 - kept(256) + floor(r))


def test_sampled_stencil_blocks_find_their_neighbours_rows_in_the_l2(toolchain: None,
                                                                     programs: Path) -> None:
    check_sampled_stencil(programs / "rows-cuda", FLOOR, code=True)


def test_sources_in_a_src_folder_with_headers_in_include(toolchain: None,
                                                         programs: Path) -> None:
    # nothing but the Makefile at the top: the translation units come from its
    # $(wildcard src/*.cu) lists, the header from its include folder; the kernel lives in
    # another unit than main, and the host-only .cc unit links in
    n = 4096
    (r,) = count_run(programs / "srcdir-cuda", str(n), gpu="rtx3080")
    assert r.kernel == "scale" and r.backend == "cuda"
    assert r.flops_sp == pytest.approx(2 * n)
    assert r.global_load_bytes == pytest.approx(4 * n)
    assert r.global_store_bytes == pytest.approx(4 * n)


def test_backend_detected_from_sources_in_a_src_folder(tmp_path: Path) -> None:
    from ridgeline.counting.api import backend_for

    plain = tmp_path / "scaler"  # no -cuda suffix: the backend comes from the contents
    shutil.copytree(PROGRAMS / "srcdir-cuda", plain)
    assert backend_for(plain).name == "cuda"


def test_a_sampled_block_that_waits_for_an_earlier_one_reruns_the_launch_whole(
        toolchain: None, programs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 2048 blocks of 256 threads are sampled, and the sample runs the last block second:
    # it spins on the flag of the block before it, which has not run. The runtime sees the
    # stall (loads without a store, past RL_STALL_SECONDS) and the run is repeated with the
    # kernel's launches run whole, in block order
    monkeypatch.setenv("RL_STALL_SECONDS", "1")
    blocks, n = 2048, 2048 * 256
    (r,) = count_run(programs / "chain-cuda", str(blocks), gpu="rtx3080", timeout=120)
    assert r.blocks_counted == r.blocks_total == blocks
    assert r.flops_sp == 2 * n
    flags = 4 * blocks
    assert r.global_load_bytes == 4 * n + flags - 4  # x, and each block's predecessor flag
    assert r.global_store_bytes == 4 * n + flags
    # a grid small enough to run whole never samples, so never stalls
    (small,) = count_run(programs / "chain-cuda", "64", gpu="rtx3080", timeout=60)
    assert small.blocks_counted == 64 and small.flops_sp == 2 * 64 * 256
