"""Turn the runtime's raw per-launch lines and the static block table into LaunchCounts."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ridgeline.counting.base import DRAM_MODEL, LaunchCount
from ridgeline.counting.dram import local_dram_bytes
from ridgeline.counting.mathops import DDIV_SP_CHECK, DIV_EXTRA, RCP_EXTRA
from ridgeline.hardware import GPU, get_gpu

__all__ = ["load_blocks", "to_launch_count", "footprint_bound", "INT_KINDS", "INT_DIV_EXTRA",
           "read_raw", "LAUNCH_DRAM_FLOOR", "DRAM_MODEL", "upgrade_record",
           "gpu_threads", "gpu_local_dram", "OMP_SPLIT_ITERATIONS",
           "store_only_kept_bytes", "STORE_ONLY_READS", "exit_kept_sectors"]

#: integer kinds summed into int_ops (compares and address arithmetic are integer
#: instructions on NVIDIA GPUs too; conversions are mostly free there)
INT_KINDS = ("int_arith", "int_logic", "int_cmp", "int_gep")

#: integer operations a GPU adds to each division or remainder by a run-time divisor (one of
#: them is in int_arith already): NVIDIA has no integer divider, and nvcc's 32-bit sequence
#: (reciprocal estimate, two multiply-high corrections, compares, fix-ups) has 14-18 integer
#: instructions beside 3 conversions (sm_86 SASS: udiv 17, sdiv 22, srem 20 instructions
#: more than an add); 64-bit divisions take the same path when both operands fit 32 bits
INT_DIV_EXTRA = 16.0


#: DRAM bytes every profiled launch moves besides its data: the profiler flushes the caches
#: before each launch, so code, constant bank and parameters come from DRAM. The smallest 1%
#: of the HeCBench launches measured 2.7 kB (CUDA) and 3.5 kB (OpenMP offload, larger code).
#: CUDA launches add their kernel's own code on top (counting.codebytes)
LAUNCH_DRAM_FLOOR = {"cuda": 2731.0, "omp": 3541.0}


def load_blocks(path: Path) -> dict[int, dict[str, float]]:
    data = json.loads(path.read_text())
    return {int(k): v for k, v in data["blocks"].items()}


def read_raw(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a kill
    return out


def _homogeneous(work: list[int]) -> bool:
    if len(work) < 2:
        return True
    mean = statistics.fmean(work)
    if mean == 0:
        return True
    return statistics.pstdev(work) / mean <= 0.1


def _dim(v: Any) -> tuple[int, int, int] | None:
    return (int(v[0]), int(v[1]), int(v[2])) if v else None


def footprint_bound(raw: dict[str, Any], sscale: float) -> tuple[float, float]:
    """Most distinct sectors a launch can read and write: the sizes of the allocations its
    counted blocks touched (heap blocks of 4 kB and more, device buffers, static data), plus
    the sectors outside them, extrapolated like the accesses but at most the 4 KiB frames
    they lie in (stack variables, small heap blocks: small and mostly shared); infinite when
    the runtime did not report them."""
    alloc, outside = raw.get("alloc_sectors"), raw.get("outside_sectors")
    frames = raw.get("outside_frames")
    if alloc is None or outside is None or frames is None:
        return math.inf, math.inf
    rd, wr = (float(alloc[k]) + min(outside[k] * sscale, 128.0 * frames[k]) for k in (0, 1))
    return rd, wr


def distinct_sectors(counted: float, first: float | None, sscale: float, blocks: int) -> float:
    """Distinct sectors a launch touches, from the *counted* ones of its *blocks* counted
    blocks, which stand for *sscale* times as many accesses (sampled blocks): the sectors the
    first counted block touched (*first*; None from runtimes that did not report it) count
    once, and only those each further block added stand for the blocks not counted. A table
    every block reads or a counter every block updates is touched once by the launch, not
    once per block the sample stands for: atomicPerf's 256 per-thread double counters,
    updated by all 6048 blocks of which 10 are counted, are 64 sectors, where scaling the
    counted blocks' union by 605 gave 38,700 (capped at the buffer's 256). Blocks that each
    touch their own sectors extrapolate as before: (total - 1) / (counted - 1) times the
    sectors after the first block's."""
    if first is None or blocks < 2 or sscale <= 1.0:
        return counted * sscale
    rest = (sscale * blocks - 1.0) / (blocks - 1.0)
    return first + max(counted - first, 0.0) * rest


def _written_share(srd: float, swr: float) -> float:
    return swr / (srd + swr) if srd + swr > 0 else 0.0


def _exit_dirty_estimate(spec: GPU, srd: float, swr: float) -> float:
    """Bytes a stored launch left dirty in *spec*'s L2 at its end, as records (which do not
    keep the runtime's exit-dirty figure) allow: what it wrote, at most the written share of
    a full L2."""
    return min(32.0 * swr, _written_share(srd, swr) * spec.l2_bytes)


#: a launch is store-only (GPU.l2_store_only_kept_kib) when it fetches at most this many
#: sectors from DRAM per distinct sector it writes (it may read back what it wrote)
STORE_ONLY_READS = 0.02


def store_only_kept_bytes(gpu: GPU, read_miss: float, swr: float) -> float:
    """DRAM write bytes a launch that fetches ``read_miss`` sectors and writes ``swr``
    distinct ones does not pay on ``gpu``: on GPUs that keep what store-only launches write
    in the L2 past their end, the written bytes up to that amount; 0 for launches that read."""
    if gpu.l2_store_only_kept_kib <= 0 or swr <= 0 or read_miss > STORE_ONLY_READS * swr:
        return 0.0
    return min(32.0 * swr, 1024.0 * gpu.l2_store_only_kept_kib)


def exit_kept_sectors(gpu: GPU, swr: float) -> float:
    """Sectors of the ``swr`` distinct ones a launch writes that *gpu*'s L2 still holds dirty
    at its end, not written back within its measured span (``GPU.l2_exit_kept_mib``; 0 on
    GPUs without the figure)."""
    return max(0.0, min(swr, gpu.l2_exit_kept_mib * (1 << 20) / 32.0))


def _to_exit_kept(spec: GPU, v: float, srd: float, swr: float, fixed: float,
                  store_only: float | None = None) -> float:
    """A DRAM model 5 figure on *spec* moved to the kept-at-exit model (DRAM model 6): what
    the earlier model took off is added back (the ``l2_exit_writeback`` share of the dirty
    bytes left at the end, :func:`_exit_dirty_estimate`; the store-only kept bytes:
    *store_only* when the upgrade took them off itself, else as a launch reading its
    distinct sectors would have), then the kept sectors (:func:`exit_kept_sectors`) are
    taken off, down to the launch's fixed bytes."""
    scale = spec.dram_bytes_scale
    v /= scale
    if spec.l2_exit_writeback < 1:
        v += (1.0 - spec.l2_exit_writeback) * _exit_dirty_estimate(spec, srd, swr)
    v += store_only_kept_bytes(spec, srd, swr) if store_only is None else store_only
    v = max(min(v, fixed), v - 32.0 * exit_kept_sectors(spec, swr))
    return v * scale


def upgrade_record(rec: dict[str, Any], to: int = DRAM_MODEL) -> dict[str, Any]:
    """A stored launch record brought to the current DRAM model. Records of DRAM model 1 left
    out every dirty sector still in the L2 at the end of the launch on GPUs that keep some
    (``l2_exit_writeback`` below 1); the share they now count is added back from the written
    sectors, capped like the runtime's exit-dirty figure (the written share of a full L2).
    Records of model 2 modelled the local memory of OpenMP teams of one host thread over the
    teams alone; it is recomputed over the GPU threads (:func:`gpu_threads`). Records before
    model 4 wrote back everything a store-only launch wrote on every GPU; those on GPUs that
    keep it (:func:`store_only_kept_bytes`) lose it, down to the per-launch floor. Records
    before model 5 held the bytes the data needs; they are scaled to what each GPU's
    profiler counts (``GPU.dram_bytes_scale``). Records before model 6 on GPUs with a kept
    figure (``GPU.l2_exit_kept_mib``) move to it (:func:`_to_exit_kept`). *to* stops at an
    earlier model (tests of each step)."""
    model = rec.get("dram_model", 1)
    if model >= to:
        return rec
    srd, swr = float(rec.get("sectors_read", 0)), float(rec.get("sectors_written", 0))
    by_gpu = dict(rec.get("dram_bytes_by_gpu") or {})
    out = {**rec, "dram_bytes_by_gpu": by_gpu, "dram_model": to}
    grid, block = _dim(rec.get("grid")), _dim(rec.get("block"))
    backend = str(rec.get("backend", ""))
    old_t, new_t = _old_gpu_threads(backend, grid, block), gpu_threads(backend, grid, block)
    local = float(rec.get("local_load_bytes") or 0) + float(rec.get("local_store_bytes") or 0)
    moved = False
    for name, v in (rec.get("dram_bytes_by_gpu") or {}).items():
        try:
            spec = get_gpu(name)
        except KeyError:  # a GPU from a user's catalog file that is not loaded now
            continue
        new = v
        if model < 2 <= to and spec.l2_exit_writeback < 1:
            new += spec.l2_exit_writeback * _exit_dirty_estimate(spec, srd, swr)
        if model < 3 <= to and old_t != new_t:
            depth = rec.get("local_footprint")
            new += (gpu_local_dram(spec, local, depth, new_t)
                    - gpu_local_dram(spec, local, depth, old_t))
        fixed = LAUNCH_DRAM_FLOOR.get(backend, 0.0) + float(rec.get("code_bytes") or 0)
        store_only = None
        if model < 4 <= to:
            # the read misses: what the figure holds beyond the written sectors (all written
            # back on the GPUs concerned), the launch floor and the kernel's code, at most
            # the sectors read; all of those when the figure holds less than the writes
            beyond = (new - fixed) / 32.0 - swr
            misses = min(srd, beyond) if beyond >= 0 else srd
            kept = store_only_kept_bytes(spec, misses, swr)
            after = max(min(new, fixed), new - kept)
            # what this step took off: the model-6 step puts exactly that back
            store_only, new = new - after, after
        if model < 5 <= to:
            new *= spec.dram_bytes_scale
        if model < 6 <= to and spec.l2_exit_kept_mib > 0:
            new = _to_exit_kept(spec, new, srd, swr, fixed, store_only)
        by_gpu[name] = new
        # dram_bytes is the requested GPU's figure (the first one modelled): it moves with
        # the first GPU's that equals it
        if not moved and rec.get("dram_bytes") is not None and rec["dram_bytes"] == v:
            out["dram_bytes"], moved = new, True
    return out


#: loop iterations per team when the OpenMP emulation splits a loop without num_teams
#: (rl_omp.c decide_teams); on the GPU each of them is a thread of the default launch
OMP_SPLIT_ITERATIONS = 256


def gpu_threads(backend: str, grid: tuple[int, int, int] | None,
                block: tuple[int, int, int] | None) -> float:
    """Threads a launch record stands for on the GPU (for the local-memory model). CUDA: the
    grid times the block. OpenMP without thread_limit runs one thread per team on the host,
    where the GPU's default team size puts one loop iteration on each thread: a loop the
    emulation split (or num_teams teams) covers teams x 256 iterations; a region run as one
    team stands for a launch that fills the device."""
    if not grid or not block:
        return 0.0
    teams, per_team = math.prod(grid), math.prod(block)
    if backend == "omp":
        if teams == 1:
            return math.inf
        if per_team == 1:
            return float(teams * OMP_SPLIT_ITERATIONS)
    return float(teams * per_team)


def _old_gpu_threads(backend: str, grid: tuple[int, int, int] | None,
                     block: tuple[int, int, int] | None) -> float:
    """gpu_threads of DRAM model 2 and before (OpenMP teams of one thread counted as one)."""
    if backend == "omp" and (grid is None or math.prod(grid) == 1):
        return math.inf
    return float(math.prod(grid) * math.prod(block)) if grid and block else 0.0


def gpu_local_dram(gpu: GPU, accessed: float, depth: float | None, threads: float) -> float:
    """Local-memory DRAM bytes of a launch on *gpu* (``dram.local_dram_bytes``; 0 without a
    footprint or threads)."""
    if not depth or not threads:
        return 0.0
    return local_dram_bytes(float(accessed), float(depth), threads, gpu.sm_count, gpu.l2_bytes)


def to_launch_count(raw: dict[str, Any], blocks: dict[int, dict[str, float]], backend: str,
                    l2_names: Sequence[str | GPU], gpu: str | None) -> LaunchCount:
    total: dict[str, float] = {}
    for bid, n in raw["bb"]:
        for k, v in blocks.get(int(bid), {}).items():
            total[k] = total.get(k, 0.0) + v * n
    # block counts and memory counters arrive already weighted for sampled blocks; sector
    # sets and L2 misses are scaled like the global accesses
    scale = 1.0
    sscale = float(raw.get("sector_scale", 1.0))
    flops = {p: total.get(p, 0.0) + DIV_EXTRA[p] * total.get(f"div_{p}", 0.0)
             + RCP_EXTRA[p] * total.get(f"rcp_{p}", 0.0) for p in ("sp", "dp", "hp")}
    flops["sp"] += DDIV_SP_CHECK * total.get("div_dp", 0.0)
    extra = raw.get("extra_flops", [0, 0, 0])
    for i, p in enumerate(("sp", "dp", "hp")):
        flops[p] += extra[i]
    ints = {k: total.get(k, 0.0) * scale
            for k in (*INT_KINDS, "int_div", "int_conv", "select")}
    # integer work the runtime adds for what the GPU runs differently (atomic retries, the
    # OpenMP device runtime's reductions)
    ints["int_runtime"] = float(raw.get("extra_int", 0))
    int_ops = (sum(ints[k] for k in INT_KINDS) + INT_DIV_EXTRA * ints["int_div"]
               + ints["int_runtime"])
    bound_rd, bound_wr = footprint_bound(raw, sscale)
    counted_blocks = int(raw.get("blocks_counted", 1))
    first_rd, first_wr = raw.get("sectors_first") or (None, None)
    srd = min(distinct_sectors(raw["sectors_read"], first_rd, sscale, counted_blocks), bound_rd)
    swr = min(distinct_sectors(raw["sectors_written"], first_wr, sscale, counted_blocks),
              bound_wr)
    by_gpu: dict[str, float] = {}
    floor = LAUNCH_DRAM_FLOOR.get(backend, 0.0)
    # local memory: accesses to stack arrays indexed at run time (older runtimes reported
    # every stack access; without the array counters no local traffic is modelled)
    ll, ls = raw.get("local_array_load", [0, 0]), raw.get("local_array_store", [0, 0])
    depth = raw.get("local_depth") if "local_array_load" in raw else None
    grid, block = _dim(raw.get("grid")), _dim(raw.get("block"))
    threads = gpu_threads(backend, grid, block)
    sampled = int(raw.get("blocks_counted", 1)) < int(raw.get("blocks_total", 1))
    for entry, l2 in zip(l2_names, raw.get("l2", []), strict=False):
        gpu_spec = get_gpu(entry)  # a name, or the entry of a user's GPU file
        name = gpu_spec.name
        rd = l2.get("read_miss_weighted")
        rd = float(rd) if rd is not None else l2["read_miss_sectors"] * sscale
        # sectors made dirty, weighted per counted block like the read misses (runtimes
        # before them: every written-back sector scaled like the global accesses)
        wd = l2.get("dirtied_weighted")
        wb = float(wd) if wd is not None else l2["write_back_sectors"] * sscale
        size = float(l2.get("bytes", 0))
        if sampled:
            # every sector the launch reads comes from DRAM at least once (the profiler
            # flushes the caches before it) and every one it writes goes back once:
            # sampled blocks warmed by the blocks before them (RunOptions.warm_blocks) find
            # the lines they share already there, so their misses and newly dirtied
            # sectors extrapolate below that when many blocks share a little data
            rd, wb = max(rd, srd), max(wb, swr)
        kept_model = gpu_spec.l2_exit_kept_mib > 0
        keep = 0.0 if kept_model else 1.0 - gpu_spec.l2_exit_writeback
        if keep > 0:
            # the GPU keeps some of its dirty sectors at the end of the launch. Sampled
            # blocks fill the model L2 less than the whole launch would: what stays dirty is
            # at most the written share of a full L2, and no more than the launch wrote (the
            # model L2 also holds what warm blocks dirtied)
            wb = max(0.0, wb - keep * min(l2.get("exit_dirty_sectors", 0) * sscale, swr,
                                          _written_share(srd, swr) * size / 32.0))
        # what the launch reads fits in this L2: each sector comes from DRAM once, whatever
        # the sampled blocks extrapolate to (reused lines stay; streamed writes age out)
        if 32.0 * bound_rd <= size:
            rd = min(rd, bound_rd)
        if 32.0 * (bound_rd + bound_wr) <= size:
            wb = min(wb, bound_wr)
        if kept_model:
            # the GPU's L2 holds up to GPU.l2_exit_kept_mib of what the launch wrote dirty
            # past its end: not written back within the launch's measured span
            wb = max(0.0, wb - exit_kept_sectors(gpu_spec, swr))
        else:
            # what a store-only launch writes stays dirty in the L2 past its end on GPUs
            # that keep it (GPU.l2_store_only_kept_kib)
            wb = max(0.0, wb - store_only_kept_bytes(gpu_spec, rd, swr) / 32.0)
        by_gpu[name] = gpu_spec.dram_bytes_scale * (
            32.0 * (rd + wb) + floor + gpu_local_dram(gpu_spec, ll[1] + ls[1], depth, threads))
    gl, gs = raw["global_load"], raw["global_store"]
    sh = raw["shared_load"][0] + raw["shared_store"][0]
    rec = LaunchCount(
        kernel=raw["kernel"], launch=int(raw["launch"]), backend=backend,
        flops_sp=flops["sp"] * scale, flops_dp=flops["dp"] * scale,
        flops_hp=flops["hp"] * scale, int_ops=int_ops * 1.0,
        global_loads=gl[0] * scale, global_load_bytes=gl[1] * scale,
        global_stores=gs[0] * scale, global_store_bytes=gs[1] * scale,
        shared_accesses=sh * scale,
        atomics=(raw["global_atomic"][0] + raw["shared_atomic"][0]) * scale,
        atomics_hot=float(raw["atomic_hot"][0]) if "atomic_hot" in raw else None,
        atomics_hot_fp=float(raw["atomic_hot"][1]) if "atomic_hot" in raw else None,
        sectors_read=srd, sectors_written=swr,
        dram_bytes_by_gpu=by_gpu,
        local_load_bytes=float(ll[1]) * scale, local_store_bytes=float(ls[1]) * scale,
        local_footprint=float(depth) if depth is not None else None,
        grid=grid, block=block,
        blocks_total=int(raw.get("blocks_total", 1)),
        blocks_counted=int(raw.get("blocks_counted", 1)),
        homogeneous=_homogeneous(raw.get("block_work", [])),
        int_detail=ints,
        spmd_partial=bool(raw.get("spmd", 0)),
        omp_worksharing=bool(raw["omp_shares"]) if backend == "omp" and "omp_shares" in raw
        else None,
        instance=str(raw.get("instance", "")),
    )
    tw = raw.get("thread_work")
    if tw and tw[2] > 0:  # threads the runtime followed one by one (the CUDA layer)
        rec.thread_work_max = float(tw[0])
        rec.warp_issue_factor = 32.0 * float(tw[1]) / float(tw[2])
    if gpu is not None:
        rec.dram_bytes = by_gpu.get(gpu)
    return rec
