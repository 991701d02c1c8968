"""CUDA programs on the CPU: the program's own sources, rewritten (launches, dynamic shared
memory) and compiled as C++ against the shipped runtime header ``runtime/rl_cuda.h``; every
block's threads run as fibers so barriers and warp operations keep their meaning."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from ridgeline.counting._exec import build_and_count
from ridgeline.counting.base import BACKENDS, Backend, LaunchCount, ProgramRunError, RunOptions
from ridgeline.counting.cuda_rewrite import (
    host_libraries,
    kernel_names,
    rewrite_cuda,
    unsupported_features,
)
from ridgeline.counting.mathops import math_arch
from ridgeline.counting.program import (
    library_sources,
    makefile_fast_math,
    makefile_host_openmp,
    makefile_no_fmad,
    run_build_flags,
    sibling_ports,
    sources_of,
)
from ridgeline.counting.toolchain import NVPTX_TRIPLE, BuildSpec
from ridgeline.sources.build import cpu_std

__all__ = ["CudaBackend", "prepare_sources"]

_TEXT_EXT = {".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".c", ".inc", ".inl", ".cxx"}
#: what makes a .cu file a CUDA program: a kernel, or Thrust's device algorithms
_KERNEL = re.compile(r"__global__|#\s*include\s*[<\"]thrust/")


def prepare_sources(program_dir: Path, dest: Path) -> tuple[list[str], list[str]]:
    """Copy the program's text sources to *dest*, rewritten, keeping sub-folders (headers in
    ``src/`` or ``map/kernels/`` launch kernels too); returns the unsupported features and
    the libraries whose algorithms run on the host (:func:`host_libraries`)."""
    dest.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    texts = {p: p.read_text(errors="replace") for p in _text_sources(program_dir)}
    kernels = set().union(*map(kernel_names, texts.values()))
    on_host = sorted({lib for text in texts.values() for lib in host_libraries(text)})
    for p, text in texts.items():
        for f in unsupported_features(text):
            if f not in problems:
                problems.append(f)
        out = dest / p.relative_to(program_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(rewrite_cuda(text, kernels)[0])
    return problems, on_host


def _text_sources(program_dir: Path, depth: int = 3) -> list[Path]:
    out: list[Path] = []
    for p in sorted(program_dir.iterdir()):
        if p.is_file() and p.suffix in _TEXT_EXT:
            out.append(p)
        elif p.is_dir() and depth > 0 and not p.name.startswith("."):
            out.extend(_text_sources(p, depth - 1))
    return out


def _inside(p: Path, program_dir: Path) -> Path | None:
    """*p* relative to the program folder, or None when it lies outside (a sibling port)."""
    try:
        return p.resolve().relative_to(program_dir.resolve())
    except ValueError:
        return None


def _in_copy(d: Path, program_dir: Path, tmp: Path) -> Path:
    """An include folder inside the program, as its rewritten copy in *tmp*."""
    rel = _inside(d, program_dir)
    return tmp / rel if rel is not None and (tmp / rel).is_dir() else d


def _sibling_includes(program_dir: Path) -> list[str]:
    """The ``-omp`` and ``-sycl`` siblings' folders (shared headers an export may have
    dropped), searched last, after every other include folder (``-idirafter``)."""
    return [f for d in sibling_ports(program_dir, ("omp", "sycl")) for f in ("-idirafter", str(d))]


def _copy_of(src: Path, program_dir: Path, tmp: Path) -> Path:
    """Where a source's rewritten copy goes in *tmp* (sources from outside: by file name)."""
    rel = _inside(src, program_dir)
    return tmp / (rel if rel is not None else src.name)


@BACKENDS.register("cuda")
class CudaBackend(Backend):
    name = "cuda"

    def detect(self, program_dir: Path) -> bool:
        # the folder's own .cu/.cuh files, and the Makefile's sources in subfolders (src/*.cu)
        files = {p.resolve() for p in (*program_dir.glob("*.cu*"), *sources_of(program_dir,
                                                                                "cuda"))}
        return any(_KERNEL.search(p.read_text(errors="replace"))
                   for p in files if p.suffix.startswith(".cu") and p.is_file())

    def count(self, program_dir: Path, args: list[str], opts: RunOptions) -> list[LaunchCount]:
        srcs = sources_of(program_dir, "cuda")
        library = set(library_sources(program_dir, "cuda"))
        if not srcs:
            raise ProgramRunError(program_dir.name, "not-found", "no .cu/.cpp sources")
        tmp = Path(tempfile.mkdtemp(prefix=f"rl-cuda-{program_dir.name}-"))
        try:
            problems, on_host = prepare_sources(program_dir, tmp)
            if problems:
                raise ProgramRunError(program_dir.name, "unsupported",
                                      "uses " + ", ".join(problems))
            build = run_build_flags(program_dir, "cuda", opts.defines, opts.add_defines,
                                    opts.includes)
            std = cpu_std(opts.std or build.std)
            if std in ("c++11", "c++14", "gnu++11", "gnu++14"):
                std = "c++17"
            copies = [_copy_of(s, program_dir, tmp) for s in srcs]
            for s, c in zip(srcs, copies, strict=True):
                if not c.exists():  # sources shared with a sibling folder (../x-sycl/ref.cpp)
                    c.write_text(rewrite_cuda(s.read_text(errors="replace"))[0])
            spec = BuildSpec(
                sources=copies, model="cuda",
                include_dirs=[tmp, program_dir, *(_in_copy(d, program_dir, tmp)
                                                  for d in build.includes)],
                defines=list(build.defines),
                std=std,
                extra_flags=["-Wno-register", *_sibling_includes(program_dir)],
                fast_math=opts.math_build == "fast" if opts.math_build else
                opts.nvcc_fast_math and makefile_fast_math(program_dir),
                math_arch=math_arch(opts.gpus),
                fold_math=opts.fold_math,
                approx_sqrt=opts.approx_sqrt, contract=not makefile_no_fmad(program_dir),
                library=[c for s, c in zip(srcs, copies, strict=True) if s in library],
                unroll_threshold=opts.unroll_threshold,
                link_openmp=makefile_host_openmp(program_dir),
                codegen_target=NVPTX_TRIPLE,
            )
            try:
                return build_and_count(self.name, program_dir, spec, args, opts,
                                       retry_valid=True)
            except ProgramRunError as e:
                if e.cause != "no-launch" or not on_host:
                    raise
                # coordinates, nosync: every GPU kernel of theirs is inside Thrust
                raise ProgramRunError(
                    program_dir.name, "unsupported",
                    f"launched no counted kernel: its {' and '.join(on_host)} algorithms run on "
                    f"the host in the CPU execution layer, uncounted ({e.detail})") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
