"""``count_run``: the one entry point the predictor and the CLI use."""

from __future__ import annotations

import logging
import math
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from ridgeline.counting.base import (
    BACKENDS,
    WARM_BLOCKS,
    Backend,
    CountedLaunches,
    LaunchCount,
    ProgramRunError,
    RunOptions,
)
from ridgeline.counting.mathops import MATH_BUILDS
from ridgeline.counting.program import run_build_flags
from ridgeline.errors import UsageError
from ridgeline.hardware import GPU, load_catalog
from ridgeline.limits import COUNT_MEMORY_GB, COUNT_TIMEOUT_S
from ridgeline.sources.build import ProgramBuild
from ridgeline.sources.regionname import region_short_name

log = logging.getLogger(__name__)

__all__ = ["count_run", "build_options", "uncountable", "l2_model_note", "shipped_gpu",
           "backend_for", "compiler_options", "GPU_COMPILERS", "CompilerOptions",
           "NVCC_UNROLL_THRESHOLD"]


class CompilerOptions(TypedDict):
    """count_run's keywords that stand for the GPU compiler (see :func:`compiler_options`)."""

    fold_math: bool
    approx_sqrt: bool
    nvcc_fast_math: bool
    unroll_threshold: int | None


#: an opt-in loop-unrolling threshold that unrolls constant-trip loops as far as nvcc does
#: (LLVM's own is 150 at -O2): each rolled iteration counts an increment, a compare and often
#: address arithmetic the unrolled GPU binary does not execute. Not the nvcc default: chosen on
#: 24 HeCBench CUDA programs (integer ops within 2x 60.5% -> 64.1% of their rows), the
#: recount of 276 CUDA programs gave integer ops within 2x 76.5% -> 77.2% but only
#: 79.1% -> 79.4% on the 203 programs it was not chosen on, and FLOPs within 5% 90.5% ->
#: 89.9%: after unrolling, the optimizer folds arithmetic across iterations that the GPU
#: executes (sw4ck's kernel1 0.66x of the measured FLOPs, adv's 0.92x)
NVCC_UNROLL_THRESHOLD = 2000

#: how a GPU compiler builds, as count_run options: nvcc folds math calls on constants,
#: keeps the IEEE sqrtf and takes the Makefile's ``-use_fast_math``; clang
#: through libdevice keeps every call, (its NVVM reflection leaving ``__CUDA_PREC_SQRT`` at
#: 0) takes the approximate sqrtf, has no ``-use_fast_math`` (an nvcc flag: HeCBench's
#: CMake clang build drops it, and minkowski's measured powf is the full 61 FLOPs, not the
#: fast 3). Both unroll with LLVM's default threshold (None; see NVCC_UNROLL_THRESHOLD)
GPU_COMPILERS: dict[str, CompilerOptions] = {
    "nvcc": {"fold_math": True, "approx_sqrt": False, "nvcc_fast_math": True,
             "unroll_threshold": None},
    "clang": {"fold_math": False, "approx_sqrt": True, "nvcc_fast_math": False,
              "unroll_threshold": None},
}


def compiler_options(gpu_compiler: str = "nvcc", keep_constant_math: bool = False,
                     unroll_threshold: int | None = None) -> CompilerOptions:
    """count_run's options for a GPU compiler (``nvcc`` or ``clang``); with
    *keep_constant_math* calls on constants are kept whatever the compiler, and a given
    *unroll_threshold* replaces the compiler's."""
    try:
        opts = CompilerOptions(**GPU_COMPILERS[gpu_compiler])
    except KeyError:
        raise UsageError(f"unknown GPU compiler {gpu_compiler!r}; one of "
                         f"{sorted(GPU_COMPILERS)}") from None
    if keep_constant_math:
        opts["fold_math"] = False
    if unroll_threshold is not None:
        opts["unroll_threshold"] = unroll_threshold
    return opts

_SUFFIX = {"-cuda": "cuda", "-omp": "omp", "-ocl": "opencl", "-opencl": "opencl"}


def _load_backends() -> None:
    # importing registers them
    from ridgeline.counting import cuda, omp, opencl  # noqa: F401


def backend_for(program_dir: Path, name: str | None = None) -> Backend:
    """The backend named *name*, or the one the folder's name suffix or contents call for."""
    _load_backends()
    if name:
        return BACKENDS.get(name)()
    for suffix, b in _SUFFIX.items():
        if program_dir.name.endswith(suffix):
            return BACKENDS.get(b)()
    for b in ("cuda", "omp", "opencl"):
        inst = BACKENDS.get(b)()
        if inst.detect(program_dir):
            return inst
    raise ProgramRunError(program_dir, "unsupported",
                          "no CUDA kernels, OpenMP target regions or OpenCL kernels found")


#: the GPU entry fields the DRAM model reads besides ``l2_mb``, with their defaults
_L2_MODEL_FIELDS = (("l2_exit_writeback", 1.0), ("l2_store_only_kept_kib", 0.0),
                    ("l2_exit_kept_mib", 0.0), ("dram_bytes_scale", 1.0))


def uncountable(gpu: GPU) -> str | None:
    """Why the DRAM bytes of *gpu* cannot be modelled (None: they can): the L2 model needs
    the L2 size."""
    l2 = gpu.l2_mb
    if not isinstance(l2, int | float) or not math.isfinite(l2) or l2 <= 0:
        return (f"GPU {gpu.name!r} cannot be counted: its entry has no usable L2 size "
                f"(l2_mb = {l2!r}; the DRAM model needs the L2 in MiB, above 0)")
    return None


def shipped_gpu(gpu: GPU) -> bool:
    """Whether *gpu* is the shipped catalog's entry (not one of a user's GPU file)."""
    shipped = load_catalog()
    return gpu.name in shipped and shipped.get(gpu.name) == gpu


def l2_model_note(gpu: GPU) -> str:
    """How a user's GPU entry models DRAM bytes: its L2, and which model fields take their
    defaults."""
    dflt = [f"{n} {d:g}" for n, d in _L2_MODEL_FIELDS if getattr(gpu, n) == d]
    return (f"{gpu.name}: DRAM bytes modelled with its {gpu.l2_mb:g} MiB L2" +
            (f"; fields at their defaults: {', '.join(dflt)}" if dflt else ""))


def build_options(build: ProgramBuild, program_dir: Path, strict: bool = True
                  ) -> dict[str, Any]:
    """:func:`count_run`'s build keywords for what the user said (``-D``, ``-I``,
    ``--compile-commands``): a compile_commands.json's definitions, folders and standard in
    place of the Makefile's, the command line's added. A compile_commands.json without an
    entry for the program is an error when *strict*, else the Makefile's flags are kept."""
    out: dict[str, Any] = {"add_defines": list(build.cli.defines),
                           "includes": list(build.cli.includes)}
    if build.compile_commands is None:
        return out
    measured = build.measured(program_dir, [])
    if measured is None and not strict:
        return out
    if measured is None:
        raise UsageError(f"--compile-commands: {build.compile_commands} has no entry for a "
                         f"file in a folder named {program_dir.resolve().name!r}")
    return {**out, "defines": list(measured.defines), "std": measured.std,
            "includes": [*measured.includes, *build.cli.includes]}


def count_run(program_dir: str | Path, args: str | list[str] | None = None,
              kernel: str | None = None, launches: int = 2,
              gpu: str | GPU | Sequence[str | GPU] | None = None,
              timeout: float = COUNT_TIMEOUT_S, memory_gb: float = COUNT_MEMORY_GB,
              backend: str | None = None,
              workdir: str | Path | None = None, skip_after: bool = True,
              sample_threshold: int = 1 << 18, sample_blocks: int = 8,
              sample_skip: bool = True, launch_budget: float = 5.0,
              sample_max: int = 1024, sample_budget: float = 4.0,
              idle_stop: float | None = None,
              expect: list[str] | None = None,
              defines: list[str] | None = None,
              add_defines: list[str] | None = None,
              includes: list[str | Path] | None = None, std: str | None = None,
              fold_math: bool = True, approx_sqrt: bool = False,
              code_size: bool = True, nvcc_fast_math: bool = True,
              unroll_threshold: int | None = None,
              warm_blocks: int = WARM_BLOCKS,
              math_build: str | None = None) -> list[LaunchCount]:
    """Build *program_dir* for the CPU, run it with *args* and count the first *launches*
    launches of each kernel (or only of *kernel*, a substring of the kernel name).

    *gpu* names one GPU (its modelled DRAM bytes land in ``dram_bytes``) or several (all in
    ``dram_bytes_by_gpu``): catalog names, or entries of a user's GPU file (``GPU``).
    CUDA grids with more than *sample_threshold* threads count
    their first and last blocks and a systematic sample of the others (at least
    *sample_blocks*, doubling while the sampled blocks' work varies, up to *sample_max* or
    about *sample_budget* seconds; see ``__rl_sample_launch`` in ``runtime/rl_count.c``) and
    extrapolate; the other blocks are not run (with *sample_skip* False they run uncounted,
    so their results exist). Up to *warm_blocks* blocks before each sampled interior block
    run first, uncounted, through the L2 model only, so the sample finds the lines its GPU
    neighbours would have brought (0: isolated samples). OpenMP regions sample their teams
    the same way. A counted launch whose first block (team) shows that the whole grid would
    take more than *launch_budget* seconds is sampled too.
    With *skip_after* a kernel is no longer executed once its launches are counted (fast;
    the program's own result checks may then fail, which does not matter). *idle_stop* ends
    the program that many seconds after its last counted launch (kernels launched later are
    then missed). *expect* names the kernels wanted (whole names, names before ``@site``, or
    name ends): the program stops as soon as each of them has *launches* counted launches
    (default: *kernel*, so the run ends once a kernel of that name has its launches).
    *defines* (``NAME`` or ``NAME=VALUE``) replace the preprocessor definitions read from the
    Makefile (and the backend's make fragment): build the way the measured binary was built
    (``ridgeline.sources.build.BuildFlags`` reads them from a ``compile_commands.json``);
    *add_defines* come after them (a same-named one replaced: the command line's ``-D``);
    *includes* are searched after the Makefile's include folders and *std* replaces its C++
    standard. With *fold_math* False, math calls on constants (``cosf(0.5f)``) are not
    evaluated at build time but counted per call, as a GPU build that links libdevice
    (clang CUDA, OpenMP offload) runs them. With *approx_sqrt*
    ``sqrtf`` costs what its approximate form does (libdevice under clang takes it). With
    *nvcc_fast_math* False the Makefile's ``-use_fast_math`` (an nvcc flag) is not applied.
    *math_build* (``default`` or ``fast``) names the CUDA build whose math functions are
    counted (:data:`~ridgeline.counting.mathops.MATH_BUILDS`) whatever the Makefile says.
    *unroll_threshold* is the build's loop-unrolling threshold (None: LLVM's default for
    CUDA, ``omp.OMP_UNROLL_THRESHOLD`` for OpenMP; :data:`NVCC_UNROLL_THRESHOLD` unrolls as
    far as nvcc). The defaults of the math keywords
    are nvcc's, :data:`GPU_COMPILERS` has clang's.
    With *code_size* (CUDA), each kernel is compiled with nvcc beside the run: its machine
    code joins the DRAM bytes (``code_bytes``), and a kernel whose SASS has no local memory
    moves no local bytes (``gpu_local_memory``; see :mod:`ridgeline.counting.codebytes`;
    without nvcc both stay out and a warning says so).
    *memory_gb* is the memory the program's processes may touch (past it the run is stopped,
    cause ``memory``, naming both figures); device buffers (``cudaMalloc`` and its kin,
    ``omp_target_alloc``) are reserved up to the largest cataloged GPU's memory and take
    memory only where touched.
    Raises :class:`ProgramRunError` (``.cause`` says why) when the program cannot be built,
    run or counted."""
    pdir = Path(program_dir)
    if not pdir.is_dir():
        raise UsageError(f"program folder {str(pdir)!r} does not exist (PROGRAM_DIR)")
    # the build runs in its own folder: a relative path would name nothing there
    pdir = pdir.resolve()
    if launches < 1:
        raise UsageError(f"--launches must be >= 1, got {launches}")
    if math_build is not None and math_build not in MATH_BUILDS:
        raise UsageError(f"--math-build must be one of {', '.join(MATH_BUILDS)}, got "
                         f"{math_build!r}")
    if warm_blocks < 0:
        raise UsageError(f"--warm-blocks must be >= 0, got {warm_blocks}")
    if unroll_threshold is not None and unroll_threshold < 0:
        raise UsageError(f"--unroll-threshold must be >= 0, got {unroll_threshold}")
    if sample_blocks < 1 or sample_max < sample_blocks:
        raise UsageError(f"sampled blocks: need 1 <= --sample-min ({sample_blocks}) <= "
                         f"--sample-max ({sample_max})")
    if args is None:
        from ridgeline.counting.program import default_run_args

        argv = default_run_args(pdir)
    elif isinstance(args, str):
        argv = shlex.split(args)
    else:
        argv = list(args)
    gpus: list[str | GPU] = [gpu] if isinstance(gpu, str | GPU) else list(gpu or [])
    if kernel and kernel.startswith("__omp_offloading_"):
        from ridgeline.counting.omp import short_region_name

        kernel = short_region_name(kernel)  # device and file ids differ between builds
    opts = RunOptions(kernel=kernel, launches=launches, gpus=gpus, timeout=timeout,
                      memory_gb=memory_gb, skip_after=skip_after,
                      workdir=Path(workdir) if workdir else None,
                      full_threads=sample_threshold, sample_blocks=sample_blocks,
                      sample_skip=sample_skip, launch_budget=launch_budget,
                      sample_max=sample_max, sample_budget=sample_budget,
                      idle_stop=idle_stop, expect=list(expect or []),
                      defines=None if defines is None else list(defines),
                      add_defines=list(add_defines or ()),
                      includes=[Path(i).resolve() for i in includes or ()], std=std,
                      fold_math=fold_math, approx_sqrt=approx_sqrt,
                      nvcc_fast_math=nvcc_fast_math, unroll_threshold=unroll_threshold,
                      warm_blocks=warm_blocks, math_build=math_build)
    alias = kernel if kernel and _SHORT_REGION.match(kernel) else None
    if alias:
        # a region's short name (copy_l105) is no part of its compiled name
        # (_ZN9OMPStreamIdE4copyEv_l105): the runtime filters by the line, the name after
        opts.kernel = alias[alias.rindex("_l"):]
    elif kernel and not opts.expect:
        # the wanted launches counted, the rest of the program is not needed (the host's
        # repetitions, other kernels run uncounted, result checks)
        opts.expect = [kernel]
    recs = _count(backend_for(pdir, backend), pdir, argv, opts, code_size)
    if alias:
        kept = CountedLaunches(r for r in recs if alias in r.kernel
                               or region_short_name(r.kernel) == alias)
        kept.stopped = getattr(recs, "stopped", None)
        return kept
    return recs


#: ``<function>_l<line>``: the short name of an OpenMP region (not the compiler's)
_SHORT_REGION = re.compile(r"^(?!_Z|__omp_offloading_)[A-Za-z_]\w*_l\d+$")


def _count(chosen: Backend, pdir: Path, argv: list[str], opts: RunOptions,
           code_size: bool) -> list[LaunchCount]:
    if chosen.name != "cuda" or not code_size:
        return chosen.count(pdir, argv, opts)
    from concurrent.futures import ThreadPoolExecutor

    from ridgeline.counting.codebytes import apply_kernel_code_to_launch, program_functions

    # nvcc compiles the kernels while the CPU build runs
    with ThreadPoolExecutor(1) as pool:
        build = run_build_flags(pdir, "cuda", opts.defines, opts.add_defines, opts.includes)
        compiled = pool.submit(program_functions, pdir, list(build.defines),
                               includes=list(build.includes))
        recs = chosen.count(pdir, argv, opts)
        functions, problems = compiled.result()
    for p in problems:
        log.warning("%s: %s", pdir.name, p)
    for r in recs:
        apply_kernel_code_to_launch(r, functions)
    return recs
