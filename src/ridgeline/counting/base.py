"""The counting interface: one record per counted kernel launch, one backend per model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ridgeline._registry import Registry
from ridgeline.errors import ExecutionError
from ridgeline.hardware import GPU
from ridgeline.limits import COUNT_MEMORY_GB, COUNT_TIMEOUT_S

__all__ = ["LaunchCount", "CountedLaunches", "ProgramRunError", "Backend", "BACKENDS",
           "RunOptions", "WARM_BLOCKS"]

#: causes a ProgramRunError can carry (grouping for coverage reports)
CAUSES = ("unsupported", "compile", "link", "timeout", "memory", "crash", "missing-input",
          "no-launch", "not-found")


class ProgramRunError(ExecutionError):
    """A program could not be built, run or counted. ``cause`` is one of :data:`CAUSES`."""

    def __init__(self, program: str | Path, cause: str, detail: str) -> None:
        self.program, self.cause, self.detail = str(program), cause, detail
        super().__init__(f"{program}: cannot count ({cause}): {detail}")


#: version of the DRAM model behind a launch record's DRAM bytes (records without one are 1;
#: see records.upgrade_record). 3: the local memory of OpenMP loops split into teams by the
#: emulation is modelled over the loop's iterations (GPU threads), not over the teams. 4: what
#: a store-only launch writes stays in the L2 on GPUs that keep it (GPU.l2_store_only_kept_kib).
#: 5: each GPU's figure is scaled by its profiler's bytes per data byte (GPU.dram_bytes_scale).
#: 6: up to GPU.l2_exit_kept_mib of what any launch writes stays dirty in the L2 past its end
DRAM_MODEL = 6
#: blocks (teams) run before each sampled interior block to warm the L2 model: a stencil's
#: sampled team of 256 iterations along one image row read its 2r + 1 rows from DRAM when
#: run alone (bilateral-omp with r = 9: 351 MB modelled, 35 MB measured on the RTX 3080;
#: with 64 warm teams 53 MB; 256 gave the same)
WARM_BLOCKS = 64


@dataclass
class LaunchCount:
    """Counts of one kernel launch executed on the CPU (per launch, whole grid)."""

    kernel: str
    launch: int
    backend: str
    flops_sp: float = 0.0
    flops_dp: float = 0.0
    flops_hp: float = 0.0
    int_ops: float = 0.0
    global_loads: float = 0.0
    global_load_bytes: float = 0.0
    global_stores: float = 0.0
    global_store_bytes: float = 0.0
    shared_accesses: float = 0.0
    atomics: float = 0.0
    #: the most global integer (compare-and-swap included) and float atomics the launch
    #: performs on one address (the GPU's L2 performs them one after another, a warp's
    #: integer ones together); None when the run did not report them (older records)
    atomics_hot: float | None = None
    atomics_hot_fp: float | None = None
    sectors_read: float = 0.0
    sectors_written: float = 0.0
    #: stack arrays indexed at run time (GPU local memory): bytes loaded, stored, and the
    #: per-thread footprint (None when the runtime did not report it)
    local_load_bytes: float = 0.0
    local_store_bytes: float = 0.0
    local_footprint: float | None = None
    #: modelled DRAM bytes on the requested GPU (None when no GPU was given)
    dram_bytes: float | None = None
    #: modelled DRAM bytes per GPU catalog name
    dram_bytes_by_gpu: dict[str, float] = field(default_factory=dict)
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    blocks_total: int = 1
    blocks_counted: int = 1
    #: True when counted blocks did about the same work (or all blocks were counted)
    homogeneous: bool = True
    #: OpenMP region that splits work by omp_get_team_num/omp_get_thread_num: on the host
    #: it ran as one team of one thread, so the counts cover only that share (incomplete)
    spmd_partial: bool = False
    #: OpenMP: whether the region ran a worksharing loop (``for`` / ``distribute``), whose
    #: per-thread set-up the GPU's runtime adds (omp.omp_device_int_ops); None when not
    #: OpenMP or the runtime did not say
    omp_worksharing: bool | None = None
    #: launch site / template instantiation of the same kernel name, in order of first launch
    variant: int = 0
    #: CUDA: the mangled name of the kernel function the launch ran (its template
    #: instantiation: ``_Z13relextrema_1DIiEv...`` for ``relextrema_1D<int>``); "" when unknown
    instance: str = ""
    #: integer operations by kind (arith, logic, cmp, gep, conv) before summing
    int_detail: dict[str, float] = field(default_factory=dict)
    #: version of the DRAM model behind dram_bytes (records.DRAM_MODEL)
    dram_model: int = DRAM_MODEL
    #: CUDA: the kernel's machine code (SASS) in bytes, included in the DRAM bytes (read from
    #: DRAM after the profiler's cache flush; counting.codebytes); None when unknown
    code_bytes: float | None = None
    #: CUDA: whether the compiled kernel uses local memory (stack frame, LDL/STL); False
    #: drops the modelled local traffic from the DRAM bytes; None when unknown
    gpu_local_memory: bool | None = None

    #: CUDA: the operations of the longest thread of the counted blocks (a launch lasts at
    #: least as long as its longest thread takes); None when the run did not report it
    thread_work_max: float | None = None
    #: CUDA: instructions the warps issue per instruction of a converged full warp: 32 x the
    #: work of each warp's busiest lane over the work of all threads, counted blocks (1 when
    #: every lane does the same work, up to 32 for one busy lane per warp); None when unknown
    warp_issue_factor: float | None = None
    #: how the run that counted this launch ended when it failed after counting some
    #: (:attr:`CountedLaunches.stopped`: ``"timeout: partial, 3 launches counted; ..."``);
    #: None when it ended normally or was stopped once the wanted launches were counted
    run_stopped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class CountedLaunches(list[LaunchCount]):
    """The launches a run counted. ``stopped`` says how the program ended when it failed
    after counting some (``"crash: partial, 1 launch counted; killed by SIGSEGV"``,
    ``"timeout: partial, ..."``; each launch's ``run_stopped`` too): kernels it
    would have launched later are missing. None when it ended normally (or was stopped on
    purpose once the wanted launches were counted)."""

    stopped: str | None = None
    #: how the program was isolated while it ran: "bwrap" or "none" (ridgeline.sandbox)
    isolation: str | None = None


@dataclass
class RunOptions:
    """How to run: launches counted per kernel, limits, which GPUs to model."""

    kernel: str | None = None
    launches: int = 2
    #: GPUs whose L2 models the DRAM bytes: catalog names, or entries of a user's GPU file
    gpus: list[str | GPU] = field(default_factory=list)
    timeout: float = COUNT_TIMEOUT_S
    #: memory the program's processes may touch (resident), GiB
    memory_gb: float = COUNT_MEMORY_GB
    build_timeout: float = 300.0
    skip_after: bool = True
    workdir: Path | None = None
    #: CUDA: count every block when the grid has at most this many threads, else sample
    full_threads: int = 1 << 18
    #: sampled launches: at least this many interior blocks (teams), at most sample_max,
    #: stopping once their mean work is known within 1% or sample_budget seconds pass
    sample_blocks: int = 8
    sample_max: int = 1024
    sample_budget: float = 4.0
    #: sampled launches: up to this many blocks (teams) before each sampled interior one run
    #: first, uncounted, through the L2 model only, so the sample meets the cache the blocks
    #: resident beside it on the GPU leave (0: isolated samples)
    warm_blocks: int = WARM_BLOCKS
    #: sampled launches run only their sampled blocks/teams (False: the others run uncounted)
    sample_skip: bool = True
    #: sample a counted launch whose grid would take longer than this (seconds, measured on
    #: its first block; 0: never)
    launch_budget: float = 5.0
    #: stop the program this many seconds after its last counted launch (None: never)
    idle_stop: float | None = None
    #: kernels wanted (substrings of their names): the program stops once each of them has
    #: ``launches`` counted launches (empty: run until the program ends)
    expect: list[str] = field(default_factory=list)
    #: preprocessor definitions (``NAME`` or ``NAME=VALUE``) used instead of the ones the
    #: Makefile's active lines give (None: the Makefile's)
    defines: list[str] | None = None
    #: definitions added to (or replacing same-named ones of) the build's (-D)
    add_defines: list[str] = field(default_factory=list)
    #: include folders searched after the Makefile's (-I, compile_commands.json)
    includes: list[Path] = field(default_factory=list)
    #: C++ standard replacing the Makefile's (a compile_commands.json's -std; None: keep)
    std: str | None = None
    #: math calls on constants evaluated at build time (False: counted per call; see
    #: toolchain.BuildSpec.fold_math)
    fold_math: bool = True
    #: count ``sqrtf`` as the approximate square root (toolchain.BuildSpec.approx_sqrt)
    approx_sqrt: bool = False
    #: CUDA: apply the Makefile's ``-use_fast_math`` (nvcc's flag; False for a clang build)
    nvcc_fast_math: bool = True
    #: CUDA: the GPU build whose math is counted, ``default`` or ``fast``
    #: (``-use_fast_math``); None: as the program's Makefile builds (with *nvcc_fast_math*)
    math_build: str | None = None
    #: the optimizer's loop-unrolling threshold (None: the backend's default, LLVM's for
    #: CUDA, see ``api.NVCC_UNROLL_THRESHOLD``; ``omp.OMP_UNROLL_THRESHOLD`` for OpenMP)
    unroll_threshold: int | None = None


class Backend(ABC):
    """Builds a program for the CPU, runs it and returns per-launch counts."""

    name: str = ""

    @abstractmethod
    def detect(self, program_dir: Path) -> bool:
        """Whether this backend handles the program in *program_dir*."""

    @abstractmethod
    def count(self, program_dir: Path, args: list[str], opts: RunOptions) -> list[LaunchCount]:
        """Run the program with *args* and count its first launches."""


BACKENDS: Registry[type[Backend]] = Registry("counting backend")
