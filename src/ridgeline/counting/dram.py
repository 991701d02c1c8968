"""L2 model: a launch's stream of 32-byte sector accesses -> DRAM bytes on a given GPU.

The cache is sized from the GPU catalog (``l2_mb``): 128-byte lines of four 32-byte sectors,
16-way set-associative, LRU, write-back, write-allocate without fetch (a written sector is
not read from DRAM first). It starts cold at every launch, as Nsight Compute's default cache
control flushes caches between profiled kernels. DRAM bytes = 32 x (sector read misses +
dirty sectors written back at eviction + those still dirty at the end of the launch):
compulsory misses are the distinct sectors, capacity and conflict misses come on top when
the footprint exceeds the cache. The launch records (``records.to_launch_count``) then take
off what the GPU keeps dirty past the launch (the catalog's ``l2_exit_kept_mib``, or the
``l2_exit_writeback`` share of the sectors left dirty where a GPU has no such figure).

The counting runtime (``runtime/rl_count.c``) runs the same model in C during execution;
this module is the reference used for other streams (OpenCL/Oclgrind, tests) and for sizes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["L2Config", "L2Model", "DramEstimate", "dram_bytes", "compulsory_dram_bytes",
           "local_dram_bytes", "RESIDENT_THREADS_PER_SM", "L1_CACHE_PER_SM",
           "LOCAL_PASSES"]

SECTOR = 32
LINE = 128


@dataclass(frozen=True)
class L2Config:
    """Size and shape of a sectored L2."""

    size_bytes: int
    ways: int = 16

    @property
    def n_sets(self) -> int:
        return max(1, self.size_bytes // (LINE * self.ways))

    @classmethod
    def for_gpu(cls, gpu: str, ways: int = 16) -> L2Config:
        """The L2 of a catalog GPU (name or alias)."""
        from ridgeline.hardware import get_gpu

        return cls(int(get_gpu(gpu).l2_mb * (1 << 20)), ways)


@dataclass(frozen=True)
class DramEstimate:
    read_bytes: int
    #: written back at eviction plus the dirty sectors left at the end of the launch
    write_bytes: int
    compulsory_read_bytes: int
    compulsory_write_bytes: int
    #: the part of write_bytes still dirty in the L2 when the launch ended
    exit_dirty_bytes: int = 0

    @property
    def total(self) -> int:
        return self.read_bytes + self.write_bytes

    def total_for(self, exit_writeback: float) -> int:
        """DRAM bytes on a GPU that counts this share (0..1, a bool works) of the end-of-launch
        write-back."""
        return self.total - round((1.0 - float(exit_writeback)) * self.exit_dirty_bytes)


def _set_index(line: int, n_sets: int) -> int:
    return (line ^ (line >> 7) ^ (line >> 15)) % n_sets


class L2Model:
    """Sectored set-associative LRU cache fed one access at a time (same rules as the C
    runtime, so both give the same figures on the same stream)."""

    def __init__(self, config: L2Config) -> None:
        self.config = config
        # per set: dict line -> [stamp, valid mask, dirty mask]
        self._sets: list[dict[int, list[int]]] = [{} for _ in range(config.n_sets)]
        self._clock = 0
        self.read_miss_sectors = 0
        self.write_back_sectors = 0
        self._seen_read: set[int] = set()
        self._seen_write: set[int] = set()

    def access(self, address: int, size: int, write: bool) -> None:
        """One load or store of *size* bytes at *address*."""
        first, last = address // SECTOR, (address + max(size, 1) - 1) // SECTOR
        for sector in range(first, last + 1):
            self._sector(sector, write)

    def _sector(self, sector: int, write: bool) -> None:
        (self._seen_write if write else self._seen_read).add(sector)
        line, bit = sector >> 2, 1 << (sector & 3)
        ways = self._sets[_set_index(line, self.config.n_sets)]
        entry = ways.get(line)
        if entry is None:
            if len(ways) >= self.config.ways:
                victim = min(ways, key=lambda k: ways[k][0])
                self.write_back_sectors += bin(ways.pop(victim)[2]).count("1")
            entry = ways[line] = [0, 0, 0]
        if write:
            entry[1] |= bit
            entry[2] |= bit
        elif not entry[1] & bit:
            self.read_miss_sectors += 1
            entry[1] |= bit
        self._clock += 1
        entry[0] = self._clock

    def finish(self) -> DramEstimate:
        """End of the launch: dirty sectors still cached are written back."""
        dirty = sum(bin(e[2]).count("1") for ways in self._sets for e in ways.values())
        return DramEstimate(
            read_bytes=SECTOR * self.read_miss_sectors,
            write_bytes=SECTOR * (self.write_back_sectors + dirty),
            compulsory_read_bytes=SECTOR * len(self._seen_read),
            compulsory_write_bytes=SECTOR * len(self._seen_write),
            exit_dirty_bytes=SECTOR * dirty,
        )


def dram_bytes(stream: Iterable[tuple[int, int, bool]], gpu: str | L2Config) -> DramEstimate:
    """DRAM traffic of a stream of ``(address, size, is_write)`` accesses on *gpu*."""
    cfg = gpu if isinstance(gpu, L2Config) else L2Config.for_gpu(gpu)
    model = L2Model(cfg)
    for addr, size, write in stream:
        model.access(addr, size, write)
    return model.finish()


def compulsory_dram_bytes(sectors_read: float, sectors_written: float) -> float:
    """Lower bound when only distinct-sector counts are known (footprint fits in L2)."""
    return SECTOR * (sectors_read + sectors_written)


#: threads resident per SM assumed for kernels with local arrays (register-heavy: half of
#: Ampere's 2048) and the part of each SM's unified L1 left to caching (the rest: shared)
RESIDENT_THREADS_PER_SM = 1024
L1_CACHE_PER_SM = 64 * 1024
#: most round trips a thread's local data makes to DRAM: arrays a thread sweeps many times
#: in quick succession stay in L1 (libor and colorwheel sweep theirs a few times). Chosen while
#: footprints still counted the frames above a thread's arrays (entropy's 16-byte histogram
#: read as 960 bytes, measured DRAM fitting about four passes); with the arrays' own sectors
#: it binds less often and was kept
LOCAL_PASSES = 4.0


def local_dram_bytes(accessed: float, footprint: float, threads: float, sm_count: int,
                     l2_bytes: int) -> float:
    """DRAM bytes of local memory (per-thread stack arrays the GPU cannot keep in registers).

    *accessed* local bytes (loads + stores, whole launch), *footprint* bytes per thread,
    *threads* launched. The resident threads' local data compete for the L1s and the L2;
    when their footprint exceeds those caches, the share of accesses that misses is
    ``1 - cache / footprint`` (cyclic reuse over more data than fits: LRU keeps little), and
    a missed access moves its bytes (local memory is interleaved per thread, so a warp's
    access is whole sectors), up to :data:`LOCAL_PASSES` round trips of every thread's
    footprint. Arrays small enough to stay cached cost nothing beyond their first touch,
    which is left out."""
    if accessed <= 0 or footprint <= 0 or threads <= 0:
        return 0.0
    resident = min(float(threads), float(sm_count * RESIDENT_THREADS_PER_SM))
    working = footprint * resident
    cache = float(l2_bytes + sm_count * L1_CACHE_PER_SM)
    if working <= cache:
        return 0.0
    missed = accessed * (1.0 - cache / working)
    if math.isfinite(threads):
        missed = min(missed, LOCAL_PASSES * footprint * float(threads))
    return missed
