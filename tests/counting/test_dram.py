"""The L2 model against traffic computed by hand."""

from __future__ import annotations

import pytest

from ridgeline.counting.dram import (
    LOCAL_PASSES,
    L2Config,
    L2Model,
    compulsory_dram_bytes,
    dram_bytes,
    local_dram_bytes,
)
from ridgeline.counting.records import DRAM_MODEL, upgrade_record
from ridgeline.hardware import get_gpu


def test_streaming_reads_and_writes_are_compulsory() -> None:
    # 1 KiB read once, 512 B written once: 32 + 16 sectors
    stream = [(4096 + 4 * i, 4, False) for i in range(256)]
    stream += [(65536 + 4 * i, 4, True) for i in range(128)]
    est = dram_bytes(stream, L2Config(1 << 20))
    assert est.read_bytes == 1024
    assert est.write_bytes == 512
    assert est.compulsory_read_bytes == 1024 and est.compulsory_write_bytes == 512


def test_reuse_within_capacity_hits() -> None:
    stream = [(32 * i, 4, False) for i in range(100)] * 5
    assert dram_bytes(stream, L2Config(64 * 1024)).read_bytes == 100 * 32


def test_capacity_misses_when_footprint_exceeds_l2() -> None:
    # 16 KiB L2 (8 sets x 16 ways x 128 B); 64 KiB read twice in order: LRU misses all twice
    cfg = L2Config(16 * 1024)
    stream = [(32 * i, 32, False) for i in range(2048)] * 2
    est = dram_bytes(stream, cfg)
    assert est.compulsory_read_bytes == 64 * 1024
    assert est.read_bytes == 2 * 64 * 1024


def test_write_then_read_same_sector_does_not_fetch() -> None:
    est = dram_bytes([(0, 4, True), (0, 4, False)], L2Config(1 << 20))
    assert est.read_bytes == 0 and est.write_bytes == 32


def test_dirty_eviction_written_once() -> None:
    model = L2Model(L2Config(128 * 16, ways=16))  # one set of 16 lines
    for i in range(17):  # 17 lines: the first (dirty) is evicted
        model.access(128 * i, 4, True)
    est = model.finish()
    assert est.write_bytes == 17 * 32


def test_dirty_sectors_left_at_exit_are_reported_apart() -> None:
    model = L2Model(L2Config(128 * 16, ways=16))  # one set of 16 lines
    for i in range(17):  # 17 dirty lines: one evicted, 16 still dirty at the end
        model.access(128 * i, 4, True)
    model.access(4096 * 3, 4, False)  # a read evicts a second dirty line
    est = model.finish()
    assert est.exit_dirty_bytes == 15 * 32
    assert est.total_for(exit_writeback=True) == est.total == 32 + 17 * 32
    assert est.total_for(exit_writeback=False) == 32 + 2 * 32
    assert est.total_for(exit_writeback=0.25) == 32 + 2 * 32 + 15 * 8  # a quarter of 15


def test_stored_records_of_the_first_dram_model_are_brought_up_to_date() -> None:
    # a launch stored before the exit-dirty share: 3 MiB read, 1 MiB written, the A100's
    # figure without any of the written sectors, the RTX 3080's with all of them
    old = {"kernel": "k", "sectors_read": 3 * 2**15, "sectors_written": 2**15,
           "dram_bytes": 3 * 2**20, "dram_bytes_by_gpu": {
               "GeForce RTX 3080": 4 * 2**20, "NVIDIA A100 SXM4 40GB": 3 * 2**20}}
    new = upgrade_record(old, to=5)
    assert new["dram_model"] == 5 and old.get("dram_model") is None  # not changed in place
    assert new["dram_bytes_by_gpu"] == {"GeForce RTX 3080": 4 * 2**20,
                                        "NVIDIA A100 SXM4 40GB": 3 * 2**20 + 2**18}
    assert new["dram_bytes"] == 3 * 2**20 + 2**18  # it was the A100's figure
    # more written than the L2 holds: at most the written share of a full L2 was left dirty
    big = {**old, "sectors_read": 0, "sectors_written": 2**25, "dram_bytes": None,
           "dram_bytes_by_gpu": {"NVIDIA A100 SXM4 40GB": 2**30}}
    assert upgrade_record(big, to=5)["dram_bytes_by_gpu"]["NVIDIA A100 SXM4 40GB"] == \
        2**30 + 0.25 * 40 * 2**20
    assert upgrade_record(new, to=5) is new  # current records pass through


def test_stored_openmp_records_model_local_memory_over_the_loop_iterations() -> None:
    # an OpenMP loop the emulation split into teams of one host thread, 1 kB of local memory
    # per iteration: model 2 took one GPU thread per team, now 256 iterations per team
    gpu = get_gpu("rtx3080")
    old = {"kernel": "k", "backend": "omp", "sectors_read": 0, "sectors_written": 0,
           "grid": [16, 1, 1], "block": [1, 1, 1], "local_load_bytes": 2**30,
           "local_store_bytes": 2**30, "local_footprint": 1024.0, "dram_model": 2,
           "dram_bytes": 2**20, "dram_bytes_by_gpu": {gpu.name: 2**20}}
    # 4 MiB of stacks on 4096 threads fit the L2 and the L1s: nothing changes
    assert local_dram_bytes(2**31, 1024.0, 16 * 256, gpu.sm_count, gpu.l2_bytes) == 0.0
    assert upgrade_record(old, to=5)["dram_bytes_by_gpu"][gpu.name] == 2**20
    big = {**old, "grid": [4096, 1, 1]}  # the resident threads' stacks overflow them
    local = local_dram_bytes(2**31, 1024.0, 4096 * 256, gpu.sm_count, gpu.l2_bytes)
    assert local > 2**30
    assert local_dram_bytes(2**31, 1024.0, 4096, gpu.sm_count, gpu.l2_bytes) == 0.0
    assert upgrade_record(big, to=5)["dram_bytes_by_gpu"][gpu.name] == 2**20 + local
    cuda = {**big, "backend": "cuda"}  # CUDA records took grid x block already
    assert upgrade_record(cuda, to=5)["dram_bytes_by_gpu"][gpu.name] == 2**20


def test_store_only_launches_keep_their_writes_in_the_ga102_l2() -> None:
    from ridgeline.counting.records import LAUNCH_DRAM_FLOOR, store_only_kept_bytes

    ga102, ga100 = get_gpu("rtx3080"), get_gpu("a100")
    assert ga102.l2_store_only_kept_kib == 512 and ga100.l2_store_only_kept_kib == 0
    # 256 kB written, nothing fetched: all of it stays; 2 MiB: 512 KiB of it
    assert store_only_kept_bytes(ga102, 0, 8192) == 8192 * 32
    assert store_only_kept_bytes(ga102, 0, 2**16) == 512 * 1024
    # a launch that fetches more than one sector per fifty it writes is not store-only
    assert store_only_kept_bytes(ga102, 163, 8192) == 8192 * 32
    assert store_only_kept_bytes(ga102, 164, 8192) == 0
    assert store_only_kept_bytes(ga100, 0, 8192) == 0  # GA100: its exit share only
    floor = LAUNCH_DRAM_FLOOR["cuda"]
    # stored (model 3) launches: a 256 kB fill falls to the floor on the RTX 3080 and the
    # A10, the A100's figure stays
    fill = {"kernel": "fill", "backend": "cuda", "sectors_read": 0, "sectors_written": 8192,
            "dram_model": 3, "dram_bytes": floor + 2**18, "dram_bytes_by_gpu": {
                "GeForce RTX 3080": floor + 2**18, "NVIDIA A10": floor + 2**18,
                "NVIDIA A100 SXM4 40GB": floor + 2**16}}
    new = upgrade_record(fill, to=5)
    assert new["dram_bytes_by_gpu"] == {
        "GeForce RTX 3080": floor, "NVIDIA A10": pytest.approx(1.15 * floor),
        "NVIDIA A100 SXM4 40GB": floor + 2**16}
    assert new["dram_bytes"] == floor
    # reading back what it wrote (the figure holds no more than the writes): store-only
    back = {**fill, "sectors_read": 8192}
    assert upgrade_record(back, to=5)["dram_bytes_by_gpu"]["NVIDIA A10"] == pytest.approx(
        1.15 * floor)
    # a copy: the figure holds 256 kB fetched besides the writes
    copy = {**back, "dram_bytes_by_gpu": {"GeForce RTX 3080": floor + 2**19}}
    assert upgrade_record(copy, to=5)["dram_bytes_by_gpu"]["GeForce RTX 3080"] == floor + 2**19
    # a figure below the written sectors (atomics on a few hot sectors written back once)
    # says nothing about its reads: the sectors read decide
    hot = {**back, "dram_bytes_by_gpu": {"GeForce RTX 3080": floor + 2**12}}
    assert upgrade_record(hot, to=5)["dram_bytes_by_gpu"]["GeForce RTX 3080"] == floor + 2**12


def test_stored_records_take_each_gpus_profiler_scale() -> None:
    # the A10's profiler counts 1.15 bytes per data byte (catalog dram_bytes_scale); a
    # model-4 record held the data's bytes on every GPU, the one it was asked for included
    a10 = get_gpu("a10")
    assert a10.dram_bytes_scale == 1.15 and get_gpu("rtx3080").dram_bytes_scale == 1.0
    old = {"kernel": "k", "backend": "cuda", "sectors_read": 2**15, "sectors_written": 2**15,
           "dram_model": 4, "dram_bytes": 2**21, "dram_bytes_by_gpu": {
               a10.name: 2**21, "GeForce RTX 3080": 2**21, "my own GPU": 2**21}}
    new = upgrade_record(old, to=5)
    assert new["dram_bytes_by_gpu"] == {a10.name: pytest.approx(1.15 * 2**21),
                                        "GeForce RTX 3080": 2**21, "my own GPU": 2**21}
    assert new["dram_bytes"] == pytest.approx(1.15 * 2**21)  # it was the A10's figure
    assert upgrade_record(new, to=5) is new  # scaled once


def test_stored_records_move_to_the_l2_that_keeps_a_launchs_last_writes() -> None:
    # model 6: up to l2_exit_kept_mib of what any launch writes stays dirty in the L2 past
    # its end (0.5 MiB on GA102, 11.5 MiB on GA100); model 5 took off the A100's 0.75 share
    # of the dirty sectors left and the RTX 3080's store-only 512 KiB
    from ridgeline.counting.records import LAUNCH_DRAM_FLOOR, exit_kept_sectors

    ga102, ga100 = get_gpu("rtx3080"), get_gpu("a100")
    assert (ga102.l2_exit_kept_mib, ga100.l2_exit_kept_mib) == (0.5, 11.5)
    assert get_gpu("h100").l2_exit_kept_mib == 0  # not measured: every dirty sector counts
    assert exit_kept_sectors(ga102, 2**10) == 2**10
    assert exit_kept_sectors(ga102, 2**20) == 2**14  # 0.5 MiB of sectors
    assert exit_kept_sectors(get_gpu("h100"), 2**20) == 0
    floor = LAUNCH_DRAM_FLOOR["cuda"]
    # 3 MiB read, 1 MiB written; model 5: everything on the RTX 3080 (it reads), on the
    # A100 the reads and a quarter of the writes
    old = {"kernel": "k", "backend": "cuda", "sectors_read": 3 * 2**15,
           "sectors_written": 2**15, "dram_model": 5, "dram_bytes": floor + 4 * 2**20,
           "dram_bytes_by_gpu": {"GeForce RTX 3080": floor + 4 * 2**20,
                                 "NVIDIA A100 SXM4 40GB": floor + 3 * 2**20 + 2**18,
                                 "NVIDIA H100 SXM5": floor + 4 * 2**20}}
    new = upgrade_record(old)
    assert new["dram_model"] == DRAM_MODEL == 6
    assert new["dram_bytes_by_gpu"] == {"GeForce RTX 3080": floor + 3.5 * 2**20,
                                        "NVIDIA A100 SXM4 40GB": floor + 3 * 2**20,
                                        "NVIDIA H100 SXM5": floor + 4 * 2**20}
    assert new["dram_bytes"] == floor + 3.5 * 2**20
    assert upgrade_record(new) is new
    # a 256 kB store-only fill was at the floor on the RTX 3080 already: it stays there; the
    # A10's figure carries its profiler's scale through the step
    fill = {**old, "sectors_read": 0, "sectors_written": 8192, "dram_bytes": floor,
            "dram_bytes_by_gpu": {"GeForce RTX 3080": floor, "NVIDIA A10": 1.15 * floor}}
    assert upgrade_record(fill)["dram_bytes_by_gpu"] == {
        "GeForce RTX 3080": floor, "NVIDIA A10": pytest.approx(1.15 * floor)}
    # 64 MiB written on the A100: model 5 took off 0.75 x 40 MiB (the written share of a
    # full L2); now 11.5 MiB of it stays
    big = {**old, "sectors_read": 0, "sectors_written": 2**21, "dram_bytes": None,
           "dram_bytes_by_gpu": {"NVIDIA A100 SXM4 40GB": floor + 2**26 - 30 * 2**20}}
    assert upgrade_record(big)["dram_bytes_by_gpu"]["NVIDIA A100 SXM4 40GB"] == \
        floor + 2**26 - 11.5 * 2**20


def test_access_straddling_sectors() -> None:
    est = dram_bytes([(30, 4, False)], L2Config(1 << 20))
    assert est.read_bytes == 64


def test_sized_from_catalog() -> None:
    assert L2Config.for_gpu("rtx3080").size_bytes == 5 * (1 << 20)
    assert L2Config.for_gpu("a100").size_bytes == 40 * (1 << 20)
    assert compulsory_dram_bytes(10, 2) == 384


@pytest.mark.parametrize("size", [0, 1])
def test_tiny_sizes_touch_one_sector(size: int) -> None:
    assert dram_bytes([(64, size, False)], L2Config(1 << 20)).read_bytes == 32


def test_local_arrays_that_outgrow_the_caches_miss_in_proportion() -> None:
    # RTX 3080: 68 SMs x 1024 resident threads x 1 KiB = 68 MiB of local data against
    # 5 MiB L2 + 68 x 64 KiB L1 = 9.25 MiB of cache: 1 - 9.25 / 68 of the accesses miss
    sms, l2 = 68, 5 << 20
    expected = 1e9 * (1 - (5 * 2**20 + 68 * 2**16) / (68 * 1024 * 1024))
    assert local_dram_bytes(1e9, 1024, 1e6, sms, l2) == pytest.approx(expected)
    # fewer threads than the GPU holds: only they compete (131072 > 69632 resident, so same)
    assert local_dram_bytes(1e8, 1024, 131072, sms, l2) == pytest.approx(expected / 10)


def test_local_arrays_swept_many_times_cost_a_few_passes() -> None:
    # 1e10 bytes accessed over 262144 threads x 176 B (217 accesses per byte): at most four
    # round trips of the 46 MB of per-thread data reach DRAM
    got = local_dram_bytes(1e10, 176, 262144, 68, 5 << 20)
    assert got == pytest.approx(LOCAL_PASSES * 176 * 262144)


def test_local_arrays_that_stay_cached_cost_no_dram() -> None:
    sms, l2 = 68, 5 << 20
    assert local_dram_bytes(1e9, 64, 1e6, sms, l2) == 0  # 4.25 MiB resident: fits
    assert local_dram_bytes(1e9, 4096, 1000, sms, l2) == 0  # 4 MB in all: fits
    assert local_dram_bytes(0, 4096, 1e6, sms, l2) == 0
