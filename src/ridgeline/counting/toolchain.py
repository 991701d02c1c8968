"""Build an instrumented CPU executable: clang -> LLVM IR -> opt -O2 -> instrument -> link.

Needs clang and opt of LLVM >= 15 (opaque pointers) and, for OpenMP, LLVM's libomp
(Debian: ``apt-get install clang-15 libomp-15-dev``).
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ridgeline import sandbox
from ridgeline.counting.divisions import keep_negative_one_divisions, keep_sign_products
from ridgeline.counting.instrument import (
    OMP_PREFIX,
    function_refs,
    instrument_ir,
    keep_math_calls,
    launch_roots,
    mark_kernel_entries,
    reachable,
    wrap_omp_regions,
)
from ridgeline.counting.mathops import DEFAULT_ARCH
from ridgeline.counting.ompshared import scope_team_variables
from ridgeline.errors import CompileError, MissingDependencyError
from ridgeline.sandbox import Limits, flag_dirs

__all__ = ["Toolchain", "find_toolchain", "BuildSpec", "build_instrumented", "runtime_dir",
           "first_build_error",
           "CODEGEN_PASSES", "NVPTX_TRIPLE"]

log = logging.getLogger(__name__)
INSTALL = "apt-get install clang-15 llvm-15 libomp-15-dev (or: bash scripts/setup.d/50-count.sh)"


@dataclass(frozen=True)
class Toolchain:
    clang: str
    clangxx: str
    opt: str
    version: int


@lru_cache(maxsize=1)
def find_toolchain() -> Toolchain:
    """The newest clang/opt pair (LLVM 15..19) on this machine."""
    for v in (15, 16, 17, 18, 19):
        bindir = Path(f"/usr/lib/llvm-{v}/bin")
        clang = shutil.which(f"clang-{v}") or (str(bindir / "clang") if (bindir / "clang")
                                                .exists() else None)
        opt = shutil.which(f"opt-{v}") or (str(bindir / "opt") if (bindir / "opt").exists()
                                            else None)
        if clang and opt:
            clangxx = shutil.which(f"clang++-{v}") or str(bindir / "clang++")
            return Toolchain(clang, clangxx, opt, v)
    raise MissingDependencyError("clang/opt (LLVM >= 15) for execution counting", INSTALL)


def runtime_dir() -> Path:
    return Path(str(resources.files("ridgeline.counting") / "runtime"))


@dataclass
class BuildSpec:
    """What to compile: source files (C, C++ or CUDA rewritten to C++), flags."""

    sources: list[Path]
    model: str  # "omp" | "cuda"
    include_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    std: str = "c++17"
    extra_flags: list[str] = field(default_factory=list)
    extra_includes: list[str] = field(default_factory=list)
    #: the program's GPU build uses approximate single-precision math (its Makefile has
    #: nvcc -use_fast_math): math calls and divisions are counted as such
    fast_math: bool = False
    #: the GPU architecture whose math function costs count (mathops.math_arch)
    math_arch: str = DEFAULT_ARCH
    #: let the compiler evaluate math calls on constants (cosf(0.5f)) at build time; False
    #: keeps every call, as a GPU build through libdevice does (clang CUDA, OpenMP offload)
    fold_math: bool = True
    #: the GPU build's ``sqrtf`` is the approximate one (libdevice under clang: see
    #: mathops.APPROX_SQRTF_FLOPS)
    approx_sqrt: bool = False
    #: the GPU compiler fuses a product into every sum that uses it (nvcc's default
    #: ``-fmad=true``; clang's CUDA default too): see contraction.fused_multiplies
    contract: bool = False
    #: sources (among *sources*) of a static library the program links: their objects go
    #: into an archive, so only those the program needs are linked, as with the library's
    #: own ``ar`` build (unused objects may reference what nothing defines)
    library: list[Path] = field(default_factory=list)
    #: the optimizer's loop-unrolling threshold (``opt -unroll-threshold``; None: LLVM's
    #: default): see ``api.NVCC_UNROLL_THRESHOLD``
    unroll_threshold: int | None = None
    #: which GPU back end's IR passes run after the optimizer, before counting (a key of
    #: :data:`CODEGEN_PASSES`): NVPTX, which builds clang's OpenMP offload and CUDA code and
    #: nvcc's, for both backends
    codegen: str = "nvptx"
    #: the target whose cost model the back end's passes (only those) decide by: None for
    #: the host's, or an LLVM triple (:data:`NVPTX_TRIPLE` for CUDA builds). Loop strength
    #: reduction keeps a scaled index inside an address where x86's addressing modes take
    #: it for free; NVPTX's do not, so under its cost model the index becomes a pointer
    #: increment, as in nvcc's code (aidw's inner loop: integer ops 2.66x of the measured
    #: under x86's model, 0.89x under NVPTX's)
    codegen_target: str | None = None
    #: link LLVM's OpenMP runtime into a CUDA program whose host code uses OpenMP (nvcc
    #: ``-Xcompiler -fopenmp``): its ``omp_get_wtime`` and ``omp_get_num_procs`` calls
    #: resolve; its host pragmas stay serial (host code is not counted)
    link_openmp: bool = False


#: IR passes a GPU compiler's back end runs after the optimizer, before instruction selection,
#: that change what a thread executes; run here after ``default<O2>``, before counting.
#: ``generic``: loop strength reduction, which turns index arithmetic into pointer increments
#: as the GPU's compilers do (hellinger's inner loop counts 4.0 integer ops per iteration with
#: it, 4.8 measured, 7.0 without; over a 50-program CUDA / 40-program OpenMP sample, integer
#: ops within 2x of the measured 73.0% -> 79.6% / 71.9% -> 75.3%, FLOPs unchanged).
#: ``nvptx``: LLVM's NVPTX back end, which builds clang's OpenMP offload and CUDA code and
#: under nvcc's NVVM (BuildSpec's default; ``generic`` stays for comparison): its
#: straight-line scalar optimizations (``NVPTXPassConfig::addStraightLineScalarOptimization
#: Passes``) split the constant part off every address (``a[i + 9]`` is ``a[i]`` plus an
#: offset the load instruction carries, so the unrolled taps of a stencil share one address
#: register), strength-reduce and reassociate what is left and remove the copies, before the
#: common loop strength reduction, after which it removes duplicates once more (LSR expands an
#: address per use: boxfilter's four byte loads of one uchar4 made four shifts and four
#: addresses). convolutionSeparable-omp's row filter: 2.47 G integer ops counted with
#: ``generic``, 0.31 G with ``nvptx`` (both before the OpenMP runtime term), 0.29 G measured;
#: stencil1d-cuda's seven taps share one address: 3.78x the measured integer ops with
#: ``generic``, 1.70x with ``nvptx``; effect over the HeCBench rows in docs/HISTORY.md (the
#: 2026-11-25 steps under execution counting)
#: the LLVM triple of :attr:`BuildSpec.codegen_target` for CUDA builds. Only the back
#: end's passes run under it: the whole -O2 pipeline under NVPTX's model lost FLOPs (within
#: 5% of the measured 87.7% -> 80.3% on a 30-program CUDA sample), and OpenMP builds, whose
#: ``omp target`` loops clang lowers differently, lost integer-op accuracy under it (82.3% ->
#: 80.6% within 2x on 25 programs), so OpenMP keeps the host's
NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

CODEGEN_PASSES: dict[str, str] = {
    "generic": "loop-reduce",
    "nvptx": "separate-const-offset-from-gep,slsr,early-cse,nary-reassociate,early-cse,"
             "loop-reduce,early-cse",
}


@dataclass(frozen=True)
class _Box:
    """Where a build's commands run: *workdir* writable, *readable* read-only (sources,
    include folders, the counting runtime); the rest of the filesystem as
    :mod:`ridgeline.sandbox` mounts it."""

    workdir: Path
    readable: tuple[Path, ...]



def _box(spec: BuildSpec, workdir: Path) -> _Box:
    dirs = {runtime_dir(), *(s.parent for s in spec.sources), *spec.include_dirs,
            *(Path(p) for p in spec.extra_includes), *flag_dirs(spec.extra_flags)}
    return _Box(workdir, tuple(sorted(dirs)))


def _run(cmd: list[str], what: str, box: _Box, timeout: float = 300) -> None:
    res = sandbox.run(cmd, cwd=box.workdir, limits=Limits(seconds=timeout),
                      readable=box.readable, writable=[box.workdir], unprivileged=False)
    if res.timed_out:
        raise CompileError(f"{what}: timed out after {timeout:.0f} s")
    if res.returncode != 0:
        lines = res.stderr.strip().splitlines()
        # the first real error, then the last lines (a missing header's first error explains
        # the ones after it; a link's undefined symbol, the driver's summary after it)
        first = first_build_error(lines)
        tail = [ln for ln in lines[-12:] if ln != first]
        err = "\n".join(([first, "..."] if first is not None else []) + tail)
        raise CompileError(f"{what} failed (exit {res.returncode}): {err}")


#: what a compiler or linker says of the error that stops it, most telling first: the
#: linker's own findings before the compiler driver's summary of them
_REAL_ERRORS = (re.compile(r"undefined reference to|multiple definition of|"
                           r"cannot find -l|undefined symbol"),
                re.compile(r"(?<!clang: )(?<!clang\+\+: )(?:fatal )?error:"),
                re.compile(r"error:|error\b", re.I))


def first_build_error(lines: Sequence[str]) -> str | None:
    """The line of a failed compile or link that names its real error: an undefined or
    duplicate symbol or a missing library, else the first ``error:`` of a file, else the
    first that says error (``clang: error: linker command failed`` only when nothing
    better is there)."""
    for pattern in _REAL_ERRORS:
        hit = next((ln.strip() for ln in lines if pattern.search(ln)), None)
        if hit:
            return hit
    return None


_TRIPLE = re.compile(r'^target triple = "([^"]*)"$', re.M)


def _codegen_for_target(tc: Toolchain, ll: Path, passes: str, target: str, src: Path,
                        box: _Box, timeout: float) -> None:
    """Run *passes* over the module *ll* (in place) under *target*'s cost model: the module
    takes *target*'s triple for that run and gets its own back (its data layout stays the
    host's, which the counted executable is built for)."""
    text = ll.read_text()
    m = _TRIPLE.search(text)
    if m is None:
        raise CompileError(f"opt on {src.name}: the optimized module names no target triple")
    host = m.group(1)
    ll.write_text(_TRIPLE.sub(f'target triple = "{target}"', text, count=1))
    _run([tc.opt, f"-passes={passes}", "-S", str(ll), "-o", str(ll)],
         f"opt ({target} cost model) on {src.name}", box, timeout=timeout)
    ll.write_text(_TRIPLE.sub(f'target triple = "{host}"', ll.read_text(), count=1))


def _front_flags(spec: BuildSpec, src: Path) -> list[str]:
    is_c = src.suffix == ".c" and spec.model == "omp"
    flags = ["-x", "c" if is_c else "c++"]
    if not is_c:
        flags.append(f"-std={spec.std}")
    # -fno-math-errno: GPU math functions never set errno, so (as nvcc does) repeated calls
    # with the same argument are computed once and sqrtf & co. become intrinsics
    flags += ["-O2", "-fno-math-errno", "-Xclang", "-disable-llvm-passes", "-w", "-emit-llvm",
              "-S",
              "-fno-exceptions" if spec.model == "cuda" else "-fexceptions"]
    if spec.model == "omp":
        # OpenMP ports sometimes include their CUDA sibling's headers: lowest-priority shim
        flags += ["-fopenmp", "-idirafter", str(runtime_dir() / "shim")]
    if spec.model == "cuda":
        rt = runtime_dir()
        flags += ["-include", str(rt / "rl_cuda.h"), "-include", str(rt / "rl_math.h"),
                  "-I", str(rt / "shim"),
                  "-fno-exceptions", "-D__CUDACC__=1", "-D__RL_CPU_CUDA__=1"]
        flags = [f for f in flags if f != "-fno-exceptions"]
    for d in [*spec.include_dirs, *(Path(p) for p in spec.extra_includes)]:
        flags += ["-I", str(d)]
    flags += [f"-D{d}" for d in spec.defines]
    if not spec.fold_math:
        from ridgeline.counting.mathops import MATH_FLOPS

        # the square root stays a builtin: LLVM turns (float)sqrt((double)x) into sqrtf(x)
        # only for builtins (a float through C's double sqrt, knn's sqrt(dist[i]), would
        # become a double-precision call), and a GPU folds a constant's root as well
        flags += [f"-fno-builtin-{name}" for name in MATH_FLOPS
                  if name[0].isalpha() and name not in ("sqrt", "sqrtf")]
    return flags + spec.extra_flags


def build_instrumented(spec: BuildSpec, workdir: Path, timeout: float = 300) -> Path:
    """Compile, instrument and link *spec* in *workdir*; returns the executable. The static
    block table goes to ``workdir/blocks.json``."""
    tc = find_toolchain()
    if spec.codegen not in CODEGEN_PASSES:
        raise ValueError(f"BuildSpec.codegen {spec.codegen!r}: one of {sorted(CODEGEN_PASSES)}")
    workdir.mkdir(parents=True, exist_ok=True)
    box = _box(spec, workdir)
    objs: list[Path] = []
    blocks: dict[int, dict[str, float]] = {}
    kernels: list[str] = []
    next_id = 0
    opt_lls: list[tuple[Path, Path, str]] = []
    library, lib_objs = set(spec.library), list[Path]()
    for i, src in enumerate(spec.sources):
        stem = f"{i:02d}_{src.stem}"
        ll0, ll1 = (workdir / f"{stem}.{k}.ll" for k in ("o0", "opt"))
        _run([tc.clang, *_front_flags(spec, src), str(src), "-o", str(ll0)],
             f"clang on {src.name}", box, timeout=timeout)
        text = keep_sign_products(keep_negative_one_divisions(ll0.read_text()))
        if spec.model == "omp":
            text, names = wrap_omp_regions(scope_team_variables(text))
            kernels += names
        elif spec.model == "cuda":
            text = keep_math_calls(mark_kernel_entries(text))
        ll0.write_text(text)
        # no vectorization: per-thread scalar code is what a GPU thread executes. Vector
        # values the optimizer builds anyway (struct copies such as float2 become
        # <2 x float>) are split into scalars and the lanes nothing uses dropped: hausdorff's
        # float2 difference was two <2 x float> subtractions with one lane used each (8 FLOPs
        # counted, 5 measured). Then the back end's passes (CODEGEN_PASSES), in the same
        # opt run or, under another target's cost model, in a second one
        passes = "default<O2>,scalarizer,early-cse,dce"
        codegen = CODEGEN_PASSES[spec.codegen]
        _run([tc.opt, f"-passes={passes}" + ("" if spec.codegen_target else f",{codegen}"),
              "-vectorize-loops=false", "-vectorize-slp=false",
              *([f"-unroll-threshold={spec.unroll_threshold}"]
                if spec.unroll_threshold is not None else []),
              "-S", str(ll0), "-o", str(ll1)],
             f"opt on {src.name}", box, timeout=timeout)
        if spec.codegen_target:
            _codegen_for_target(tc, ll1, codegen, spec.codegen_target, src, box, timeout)
        ll0.unlink(missing_ok=True)
        opt_lls.append((src, ll1, stem))
    # host code (input generation, reference checks) runs uninstrumented: only functions
    # reachable from the target regions / launched kernels, across all translation units,
    # are counted
    graph: dict[str, set[str]] = {}
    launched: set[str] = set()
    for _, ll1, _ in opt_lls:
        text = ll1.read_text()
        for f, refs in function_refs(text).items():
            graph.setdefault(f, set()).update(refs)
        if spec.model == "cuda":
            launched |= launch_roots(text)
    only: set[str] | None = None
    if spec.model == "omp" and kernels:
        only = reachable(graph, (OMP_PREFIX,))
    elif spec.model == "cuda" and launched & set(graph):
        only = reachable(graph, (), launched)
    for src, ll1, stem in opt_lls:
        ll2 = workdir / f"{stem}.inst.ll"
        inst = instrument_ir(ll1.read_text(), first_id=next_id, omp=spec.model == "omp",
                             only=only, fast_math=spec.fast_math,
                             approx_sqrt=spec.approx_sqrt, contract=spec.contract,
                             arch=spec.math_arch)
        next_id = inst.next_id
        blocks.update(inst.blocks)
        ll2.write_text(inst.text)
        obj = workdir / f"{stem}.o"
        _run([tc.opt, "-verify", "-disable-output", str(ll2)], f"verify of {src.name}", box,
             timeout=timeout)
        _run([tc.clang, "-c", "-O1", "-fno-vectorize", "-fno-slp-vectorize", "-w", str(ll2),
              "-o", str(obj)],
             f"codegen of {src.name}", box, timeout=timeout)
        (lib_objs if src in library else objs).append(obj)
        ll1.unlink(missing_ok=True)
    if lib_objs:
        archive = workdir / "librl_program.a"
        archive.unlink(missing_ok=True)
        _run([shutil.which("ar") or str(Path(tc.clang).with_name("llvm-ar")), "rcs",
              str(archive), *map(str, lib_objs)], "archive of the library sources", box,
             timeout=timeout)
    bbc = workdir / "rl_bbc.c"
    bbc.write_text(f"#include <stdint.h>\nuint64_t __rl_bbc[{next_id + 1}];\n"
                   f"const uint64_t __rl_nbb = {next_id};\n")
    rt = runtime_dir()
    rt_srcs = [bbc, rt / "rl_count.c"]
    if spec.model == "cuda":
        rt_srcs.append(rt / "rl_cuda_rt.cpp")
    if spec.model == "omp":
        rt_srcs.append(rt / "rl_omp.c")
    for s in rt_srcs:
        obj = workdir / f"rt_{s.stem}.o"
        comp = tc.clangxx if s.suffix == ".cpp" else tc.clang
        extra = ["-std=c++17", "-I", str(rt)] if s.suffix == ".cpp" else []
        if s.name == "rl_omp.c":
            extra = ["-fopenmp"]
        _run([comp, "-c", "-O2", "-U_FORTIFY_SOURCE", "-w", *extra, str(s), "-o", str(obj)],
             f"compile {s.name}", box,
             timeout=timeout)
        objs.append(obj)
    exe = workdir / "prog"
    link = [tc.clangxx, *map(str, objs), *([str(archive)] if lib_objs else []), "-o",
            str(exe), "-lm", "-lpthread"]
    if spec.model == "omp" or spec.link_openmp:
        libdir = f"/usr/lib/llvm-{tc.version}/lib"
        link += ["-fopenmp", f"-L{libdir}", f"-Wl,-rpath,{libdir}"]
    _run(link, "link", box, timeout=timeout)
    (workdir / "blocks.json").write_text(json.dumps(
        {"blocks": {str(k): v for k, v in blocks.items()}, "omp_regions": kernels}))
    return exe
