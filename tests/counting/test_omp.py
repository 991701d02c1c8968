"""OpenMP target regions run on the host, against counts computed by hand."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ridgeline.counting import count_run
from ridgeline.counting.omp import short_region_name
from ridgeline.counting.ompshared import SHARED_FN, scope_team_variables
from ridgeline.counting.records import LAUNCH_DRAM_FLOOR
from ridgeline.counting.toolchain import BuildSpec, build_instrumented, find_toolchain
from tests.counting.conftest import check_sampled_stencil, kept

pytestmark = pytest.mark.slow
N = 4096
FLOOR = LAUNCH_DRAM_FLOOR["omp"]  # code/constants fetched per profiled launch


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
    assert s.dram_bytes == 12 * N - kept(4 * N) + FLOOR  # the L2 keeps y past the launch
    d = main[0]
    assert d.flops_dp == 3 * N and d.flops_sp == 0
    assert d.global_store_bytes == 8 * N and d.dram_bytes == 16 * N - kept(8 * N) + FLOOR


def test_kernel_filter(libomp: None, programs: Path) -> None:
    recs = count_run(programs / "saxpy-omp", str(N), kernel="main_l", launches=1)
    assert [r.kernel.startswith("main_l") for r in recs] == [True]


@pytest.mark.parametrize("frag", ["_l6", "PKfPf_l9"])  # exact end; same function, line +3
def test_stops_once_expected_kernels_are_counted(libomp: None, programs: Path, frag: str
                                                 ) -> None:
    # the saxpy region (line 6) is launched 3 times before the region in main: the program
    # stops after its 2nd counted saxpy launch, so main's region is never reached
    recs = count_run(programs / "saxpy-omp", str(N), expect=[frag], skip_after=False)
    assert [r.kernel.endswith("_l6") for r in recs] == [True, True]


def test_spmd_region_runs_every_team_and_thread(libomp: None, programs: Path) -> None:
    # work split by omp_get_team_num/omp_get_thread_num under num_teams(4) thread_limit(64):
    # the runtime runs the 4 x 64 (team, thread) ids the offload launch has
    (r,) = count_run(programs / "spmd-omp", "")
    assert not r.spmd_partial
    assert r.flops_sp == 256
    assert r.blocks_total == 4 and r.grid == (4, 1, 1) and r.block == (64, 1, 1)
    # the array lives on the host's stack and is mapped: device global memory
    assert r.global_load_bytes == 1024 and r.global_store_bytes == 1024


def test_teams_barriers_schedules_reduction(libomp: None, programs: Path, tmp_path: Path
                                            ) -> None:
    n = 4096
    recs = {r.kernel.split("_l")[-1]: r for r in
            count_run(programs / "teams-omp", str(n), gpu="rtx3080", workdir=tmp_path)}
    assert sorted(recs) == ["17", "35", "41"], list(recs)
    red, axpy, dot = recs["17"], recs["35"], recs["41"]
    # 64 teams x 64 threads, tree reduction in team-shared memory: 32+16+...+1 adds per team
    assert red.flops_sp == (n // 64) * 63
    assert red.global_load_bytes == 4 * n and red.global_store_bytes == 4 * (n // 64)
    assert red.blocks_total == n // 64
    # dynamic schedule over 8 x 32 emulated threads: every iteration exactly once
    assert axpy.flops_sp == 2 * n and axpy.global_store_bytes == 4 * n
    # reduction: n adds; a GPU block of 16 threads (a partial warp) reduces per chunk of 16
    # iterations: each thread's own combine and 15 in the lanes' tree; then the team's combine
    chunks = n // 16
    assert dot.flops_dp == n + n + 15 * chunks + 4
    # plus one read of the mapped result per team combine (s lives in the host's frame)
    assert 4 * n <= dot.global_load_bytes <= 4 * n + 8 * 4
    # the emulated launch computes what the GPU would: the program's own checks pass
    exe = next(tmp_path.glob("*/build/prog"))
    out = subprocess.run([str(exe), str(n)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "RL_OUT": str(tmp_path / "x.jsonl"),
                              "RL_SKIP_AFTER": "0", "OMP_NUM_THREADS": "1"})
    assert out.stdout.startswith("OK"), out.stdout + out.stderr


def test_thread_queries_are_one_value_and_worksharing_is_reported(libomp: None,
                                                                   programs: Path) -> None:
    # 4 teams x 64 threads split by omp_get_thread_num() % mx and / mx (two calls, mx = 32 at
    # run time): one division per thread, as the GPU's code has (the host's opaque calls,
    # kept apart, made two); that region has no worksharing loop, the distributed one has
    recs = {short_region_name(r.kernel): r
            for r in count_run(programs / "teamsdiv-omp", "32", gpu="rtx3080")}
    split, loop = recs["main_l14"], recs["main_l24"]
    assert split.flops_sp == 256 and loop.flops_sp == 256
    assert split.int_detail["int_div"] == 256
    assert split.omp_worksharing is False and loop.omp_worksharing is True


def test_constant_address_offsets_are_free_as_in_the_nvptx_back_end(libomp: None,
                                                                     programs: Path) -> None:
    # 8 teams x 256 threads; the five taps of a thread read tile[ty][tx + 6 + k]: one address
    # and five offsets the loads carry, as NVPTX's straight-line passes build it. Address
    # arithmetic per thread: the input element, the tile element and the output element (3),
    # plus the right halo's tile element for the 256 threads with tx < 8 (its input is the
    # thread's own input address plus 64 elements). The generic passes count 17280 (each tap
    # its own index add and address)
    taps = count_run(programs / "taps-omp", "256", gpu="rtx3080")[0]
    assert taps.flops_sp == 5 * 2048
    assert taps.int_detail["int_gep"] == 3 * 2048 + 256


def test_team_variables_are_apart_from_buffers_as_on_the_gpu(libomp: None,
                                                            programs: Path) -> None:
    # 4 teams x 64 threads; each thread adds to its data element `iters` times. The team's
    # task id and the captured offset are not reloaded after each store to the data queue,
    # so the loop folds into one load, one addition and one store per thread whatever
    # `iters` is (with them reached through plain pointers: 18437 integer ops and 2564
    # loads at 10 iterations, 1792517 and 256004 at 1000). The program checks its result
    few, many = (count_run(programs / "tasks-omp", it, gpu="rtx3080")[0] for it in ("10", "1000"))
    assert few.int_ops == many.int_ops < 4096
    assert few.global_loads == many.global_loads == 4 + 256  # 4 task ids, 256 data elements
    assert few.global_stores == many.global_stores == 256


def _unoptimized_ir(src: Path, code: str) -> str:
    """*code* written to *src* and compiled by clang to OpenMP host IR before optimization."""
    src.write_text(code)
    ll = src.with_suffix(".ll")
    subprocess.run([find_toolchain().clang, "-fopenmp", "-O2", "-Xclang", "-disable-llvm-passes",
                    "-emit-llvm", "-S", "-w", str(src), "-o", str(ll)], check=True)
    return ll.read_text()


_ALIASED_TEAM_ARRAY = """
#include <omp.h>
int main() {
  int out[64];
  #pragma omp target teams num_teams(2) thread_limit(32) map(from: out[0:64])
  {
    int buf[32];
    int *p = buf;
    int n = 32;
    #pragma omp parallel
    {
      int t = omp_get_thread_num();
      p[t] = t;
      #pragma omp barrier
      out[omp_get_team_num() * 32 + t] = buf[(t + 1) % n];
    }
  }
  return out[0] == 1 ? 0 : 1;
}
"""


def test_team_array_reached_through_a_team_pointer_keeps_its_aliases(toolchain: None,
                                                                     tmp_path: Path) -> None:
    # the team-local buf is also written through p: its parameter stays without noalias;
    # p and n themselves (scalars only the fork sees) get it; the barrier is bracketed by
    # the opaque call for the parameter the region writes through (buf's)
    text = scope_team_variables(_unoptimized_ir(tmp_path / "alias.cpp", _ALIASED_TEAM_ARRAY))
    heads = [ln for ln in text.splitlines()
             if ln.startswith("define") and "omp_outlined" in ln and "dereferenceable(128)" in ln]
    assert len(heads) == 1, heads
    params = heads[0].split("(", 1)[1].split(", ")
    buf = next(p for p in params if "dereferenceable(128)" in p)
    assert "noalias" not in buf
    assert sum("noalias" in p for p in params) == 2 + 2  # the two thread ids, p and n
    assert f"@{SHARED_FN}(" not in text  # buf is not noalias: nothing to order


_TEAM_ARRAY_ADDRESS_STORED = """
#include <omp.h>
int main() {
  int out[64];
  #pragma omp target teams num_teams(2) thread_limit(32) map(from: out[0:64])
  {
    int a[32], b[33];
    int *cur;
    #pragma omp parallel
    {
      int t = omp_get_thread_num();
      if (t == 0) cur = a;
      a[t] = t;
      b[t] = 2 * t;
      #pragma omp barrier
      out[omp_get_team_num() * 32 + t] = cur[t] + b[t];
    }
  }
  return out[1] == 3 ? 0 : 1;
}
"""


def test_team_array_whose_address_the_region_stores_keeps_its_aliases(toolchain: None,
                                                                       tmp_path: Path) -> None:
    # the region stores a's address in the team variable cur and reads a through it: a keeps
    # its aliases; b (132 bytes) and cur get noalias, and as the region writes both, each is
    # handed to the opaque call before and after the barrier
    text = scope_team_variables(_unoptimized_ir(tmp_path / "stored.cpp",
                                                _TEAM_ARRAY_ADDRESS_STORED))
    head = next(ln for ln in text.splitlines()
                if ln.startswith("define") and "dereferenceable(132)" in ln)
    params = head.split("(", 1)[1].split(", ")
    by_size = {p.split("dereferenceable(")[1].split(")")[0]: p for p in params
               if "dereferenceable(" in p}
    assert "noalias" not in by_size["128"]
    assert "noalias" in by_size["132"] and "noalias" in by_size["8"]
    assert text.count(f"call void @{SHARED_FN}(") == 2 * 2


_HELPER_WITH_BARRIER = """
#include <omp.h>
static void step(int *a, int t) {
  a[t] += 1;
  #pragma omp barrier
}
int main() {
  int out[64];
  #pragma omp target teams num_teams(2) thread_limit(32) map(from: out[0:64])
  {
    int a[32];
    #pragma omp parallel
    {
      int t = omp_get_thread_num();
      a[t] = t;
      step(a, t);
      out[omp_get_team_num() * 32 + t] = a[(t + 1) % 32];
    }
  }
  return out[0] == 2 ? 0 : 1;
}
"""


def test_region_calling_a_helper_that_waits_at_a_barrier_is_left_alone(toolchain: None,
                                                                        tmp_path: Path) -> None:
    # once step() is inlined its barrier would have no opaque calls around it, and a[(t + 1)
    # % 32] could be read before the neighbour's increment: nothing of the region is marked
    # C: the helper is called, not invoked
    before = _unoptimized_ir(tmp_path / "helper.c", _HELPER_WITH_BARRIER)
    assert before.count("@__kmpc_barrier(") == 2  # the helper's call, the declaration
    assert scope_team_variables(before) == before
    # the same region, the helper's runtime calls made ordinary ones: marked, nothing to order
    plain = before.replace("call void @__kmpc_barrier(", "call void @foo(") \
        .replace("call i32 @__kmpc_global_thread_num(", "call i32 @bar(") \
        + "\ndeclare void @foo(ptr, i32)\ndeclare i32 @bar(ptr)\n"
    text = scope_team_variables(plain)
    assert text != plain and "ptr noalias" in text and f"@{SHARED_FN}(" not in text


def test_unknown_codegen_is_refused(tmp_path: Path, programs: Path) -> None:
    spec = BuildSpec(sources=[programs / "taps-omp" / "main.cpp"], model="omp", codegen="x")
    with pytest.raises(ValueError, match="codegen 'x'"):
        build_instrumented(spec, tmp_path)


def test_many_teams_sampled(libomp: None, programs: Path) -> None:
    n = 1 << 20  # 16384 teams x 64 threads > 2^18: first, last and 8 more counted (alike)
    red = next(r for r in count_run(programs / "teams-omp", str(n), kernel="_l17",
                                    launches=1))
    assert red.blocks_total == n // 64 and red.blocks_counted == 10
    assert red.homogeneous
    assert red.flops_sp == pytest.approx((n // 64) * 63, rel=1e-9)
    assert red.global_load_bytes == pytest.approx(4 * n, rel=1e-9)


def test_regions_of_one_name_in_different_files_are_variants(libomp: None,
                                                             programs: Path) -> None:
    # two regions at line 1 of two headers, both main_l1 without their file ids: kept apart
    # as variants 0 and 1 (1 multiply per element, then a multiply and an FMA)
    recs = count_run(programs / "hdrregions-omp", "4096", gpu="rtx3080")
    assert [(r.kernel, r.variant) for r in recs] == [("main_l1", 0), ("main_l1", 1)]
    assert [r.flops_sp for r in recs] == [4096, 3 * 4096]


def test_large_distribute_loop_without_num_teams_sampled(libomp: None, programs: Path) -> None:
    # no num_teams clause and 2^20 iterations: one team per 256 iterations (4096), 10 counted
    n = 1 << 20
    s = count_run(programs / "saxpy-omp", str(n), kernel="_l6", launches=1)[0]
    assert s.blocks_total == n // 256 and s.blocks_counted == 10
    assert s.flops_sp == pytest.approx(2 * n, rel=1e-9)
    assert s.global_load_bytes == pytest.approx(8 * n, rel=1e-9)


def test_slow_launch_sampled_after_its_first_team(libomp: None, programs: Path) -> None:
    # a budget so small that team 0 already exceeds it: the other 63 teams are sampled
    red = count_run(programs / "teams-omp", "4096", kernel="_l17", launches=1,
                    launch_budget=1e-9)[0]
    assert red.blocks_total == 64 and 3 <= red.blocks_counted <= 10
    assert red.flops_sp == pytest.approx(64 * 63, rel=1e-9)
    assert red.global_load_bytes == pytest.approx(4 * 4096, rel=1e-9)


def test_device_code_across_files_counted_host_code_not(libomp: None, programs: Path,
                                                         tmp_path: Path) -> None:
    # poly() lives in dev.cpp, the region in main.cpp: x*x*x + 2*x is 4 FLOPs per element
    (r,) = count_run(programs / "xtu-omp", "1024", workdir=tmp_path)
    assert r.flops_sp == 4 * 1024 and r.flops_dp == 0
    # host code (main, host_only) is left uninstrumented: no block counters in it
    ir = next(tmp_path.glob("*/build/00_main.inst.ll")).read_text()
    main_body = ir.split("@main(", 1)[1].split("\n}\n", 1)[0]
    assert "__rl_bbc" not in main_body and "__rl_ld" not in main_body
    assert "__rl_bbc" in ir  # the region's functions are counted


def test_repeated_math_call_counted_once(libomp: None, programs: Path) -> None:
    # expf(x) + expf(x) * 2: GPU math has no errno, the call is made once (its GPU sequence) + 1 FMA
    from ridgeline.counting.mathops import MATH_FLOPS

    (r,) = count_run(programs / "math-omp", "1024")
    assert r.flops_sp == 1024 * (MATH_FLOPS["expf"][1] + 2)


def test_table_read_by_every_sampled_team_counted_once(libomp: None, programs: Path) -> None:
    # 8192 teams x 64 threads read the same 256-byte table (sampled launch): it comes from
    # DRAM once (first sampled team), later sampled teams hit in the L2 model
    (r,) = count_run(programs / "table-omp", "8192", gpu="rtx3080")
    assert r.blocks_counted < r.blocks_total == 8192
    n = 8192 * 64
    assert r.global_load_bytes == pytest.approx(4 * n) and r.global_store_bytes == 4 * n
    # the output is written once, less the 512 KiB of a launch's writes the RTX 3080 keeps
    # (l2_exit_kept_mib)
    reads = r.dram_bytes - FLOOR - (4 * n - 512 * 1024)
    assert 0 <= reads <= 0.2 * 4 * n, reads


def test_heap_rows_shared_by_sampled_teams_come_from_dram_once(libomp: None,
                                                                programs: Path) -> None:
    # one team per pair of 1 kB rows of a malloc'd 256 kB table (65536 teams, sampled: more
    # threads than the threshold, whatever the time budget says): the allocation sizes bound
    # the extrapolated sectors, and both buffers fit in the L2
    (r,) = count_run(programs / "pairs-omp", "256", gpu="rtx3080", sample_threshold=4096)
    assert r.blocks_counted < r.blocks_total == 256 * 256
    table = result = 256 * 1024
    # plus at most a 4 kB frame of the host stack read and written (loop bounds), and a
    # sector per buffer (malloc aligns to 16 bytes, so each spans one sector more)
    # (the RTX 3080 keeps the result in its L2 past the launch)
    low = table + result - kept(result) + FLOOR
    assert low <= r.dram_bytes <= low + 2 * 4096 + 64


def test_stream_over_aligned_buffers_moves_each_byte_once(libomp: None,
                                                          programs: Path) -> None:
    # 4096 teams (sampled) stream 4 MB in and 4 MB out of aligned_alloc / posix_memalign
    # buffers: their sizes bound nothing away, every byte crosses DRAM once but the last
    # writes the L2 keeps past the launch (l2_exit_kept_mib): 512 KiB of the 4 MB on the
    # RTX 3080, all of them in the A100's 40 MB
    n = 1 << 20
    (r,) = count_run(programs / "stream-omp", str(n), gpu=["rtx3080", "a100"])
    assert r.blocks_counted < r.blocks_total
    assert r.dram_bytes == pytest.approx(8 * n - 2**19 + FLOOR, rel=0.01)
    assert r.dram_bytes_by_gpu["NVIDIA A100 SXM4 40GB"] == pytest.approx(4 * n + FLOOR,
                                                                         rel=0.01)


def test_per_iteration_arrays_move_local_memory_through_dram(libomp: None,
                                                             programs: Path) -> None:
    # each of 131072 iterations zeroes a 1 kB histogram, updates it 64 times and sums it:
    # 1280 B loaded and 1280 B stored in local memory per iteration (plus the host's loop
    # bounds: a few hundred bytes per region)
    n = 131072
    (r,) = count_run(programs / "localarr-omp", str(n), gpu="rtx3080")
    assert r.local_load_bytes == pytest.approx(n * 1280, rel=1e-4)
    assert r.local_store_bytes == pytest.approx(n * 1280, rel=1e-4)
    assert 1024 <= r.local_footprint <= 1056  # distinct stack sectors the region indexed
    # the GPU runs the region with enough threads to fill itself: 68 SMs x 1024 x ~1.5 kB of
    # histograms overflow the caches, most local accesses reach DRAM
    assert 0.8 * n * 2560 < r.dram_bytes - 8 * n < n * 2560
    # without thread_limit the host runs teams of one thread (the loop split into teams of 256
    # iterations); the GPU still runs an iteration per thread, and the same overflow follows
    (s,) = count_run(programs / "localarr-omp", str(n), gpu="rtx3080", defines=["NO_LIMIT"])
    assert s.block == (1, 1, 1) and s.grid == (n // 256, 1, 1)
    assert s.local_load_bytes == pytest.approx(n * 1280, rel=1e-4)
    assert 0.8 * n * 2560 < s.dram_bytes - 8 * n < n * 2560


def test_short_loop_of_long_iterations_split_into_teams(libomp: None, programs: Path) -> None:
    # no num_teams: the 4096 iterations become 16 teams of 256; all run while they fit the
    # launch budget, else team 0 shows they would not and the others are sampled
    n, m = 4096, 64
    (r,) = count_run(programs / "longiter-omp", f"{n} {m}")
    assert r.blocks_total == n // 256 and r.blocks_counted == n // 256
    assert r.flops_sp == 2 * n * m
    (r,) = count_run(programs / "longiter-omp", f"{n} {m}", launch_budget=1e-9)
    assert r.blocks_total == n // 256 and 3 <= r.blocks_counted < n // 256
    assert r.flops_sp == pytest.approx(2 * n * m, rel=1e-9)
    assert r.global_store_bytes == pytest.approx(4 * n, rel=1e-9)


def test_warp_synchronous_scan_in_a_team(libomp: None, programs: Path) -> None:
    # each warp of a team's threads scans in lockstep: lane l adds 1.0f l times (496 per
    # warp) and stores within the array (lane by lane, the prefixes overshoot)
    n = 4096
    (r,) = count_run(programs / "warpscan-omp", str(n), gpu="rtx3080")
    # then thread 5's store reaches every thread past the barrier: 5 more each
    assert r.flops_sp == n // 32 * 496 + 5 * n
    assert r.global_store_bytes == 2 * 4 * n


@pytest.mark.parametrize("teams", [128, 4])
def test_team_memory_float_atomics_retry_under_contention(libomp: None, programs: Path,
                                                          teams: int) -> None:
    # 256 threads of a team on one team-memory float: c k + 0.5 attempts each (c = 0.22 in
    # a launch of 128 teams, 0.45 in one of 4: each team alone on its SM); the atomic on
    # mapped memory (device global) is native, no FLOP
    (r,) = count_run(programs / "teamatom-omp", str(teams), timeout=120)
    c = 0.45 if teams < 68 else 0.22
    assert r.flops_sp == teams * (256 + round(256 * (c * 256 + 0.5 - 1)))
    assert r.flops_dp == 0
    # one float atomic per team on the mapped total: all on one global address
    assert (r.atomics_hot_fp, r.atomics_hot) == (teams, 0)


def test_reductions_count_the_gpu_reduction_trees(libomp: None, programs: Path) -> None:
    n = 65536
    dot, total, team, biggest, count = count_run(programs / "reduce-omp", str(n),
                                                  timeout=120)
    # distribute parallel for, 256 threads: a chunk of one iteration per thread; per thread
    # and chunk the multiply-add (2) and six combines, per block of 8 warps 7 more combines
    # in warp 0 and the team's own (n / 256 teams)
    assert dot.flops_sp == n * (2 + 6) + n // 256 * (7 + 1)
    # no thread limit: one emulated thread per team does its 256 iterations; a GPU block of
    # 128 threads reduces 256 chunks of one iteration (6 combines each), and per chunk of
    # 128 (4 warps) double precision takes 32 combines per step of the warps' tree (2 steps)
    teams = n // 256
    assert total.flops_dp == n * (1 + 6) + teams * (2 * 64 + 1)
    # a parallel region of 64 threads in each of 4 teams: one reduction each (the add, six
    # combines per thread, 32 for the two warps' tree), then the team's add and combine
    assert team.flops_dp == 4 * (64 * (1 + 6) + 32 + 2)
    # max: compares and selects, no FLOP
    assert biggest.flops_dp == 0 and biggest.flops_sp == 0
    # the device runtime's own integer work, per thread and chunk (one chunk per iteration
    # in the combined loops, one per thread of the four teams' parallel regions)
    red = 40  # RL_RED_INT_PER_CHUNK (rl_omp.c)
    for r in (dot, total, biggest):
        assert r.int_detail["int_runtime"] == red * n
    assert team.int_detail["int_runtime"] == red * 4 * 64
    # an integer sum: its combines are integer adds, on the single-precision tree (five per
    # thread and chunk beyond the emulated one, seven per block of 8 warps)
    assert count.int_detail["int_runtime"] == red * n + 5 * n + 7 * (n // 256)
    assert count.flops_sp == count.flops_dp == 0


def test_nowait_regions_are_counted_one_after_another(libomp: None, programs: Path) -> None:
    # `target ... nowait` regions become tasks that libomp would hand to its hidden helper
    # threads, beside the host loop launching the next ones; they run on the encountering
    # thread instead, and every launch keeps its own counts: 2 FLOPs per element, 4096
    # elements in the first region, 2048 in the second, four passes
    recs = count_run(programs / "nowait-omp", "4096 4", gpu="rtx3080", launches=4)
    assert [r.flops_sp for r in recs] == [8192.0, 4096.0] * 4
    assert [short_region_name(r.kernel) for r in recs][:2] == ["main_l17", "main_l21"]


def test_sampled_stencil_teams_find_their_neighbours_rows_in_the_l2(libomp: None,
                                                                    programs: Path) -> None:
    check_sampled_stencil(programs / "rows-omp", FLOOR)
