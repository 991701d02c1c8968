"""OpenMP offload programs: target regions run on the host (clang -fopenmp without offload
targets) in an instrumented build; each ``__omp_offloading_*`` region is one launch."""

from __future__ import annotations

import re
from pathlib import Path

from ridgeline.counting._exec import build_and_count
from ridgeline.counting.base import BACKENDS, Backend, LaunchCount, ProgramRunError, RunOptions
from ridgeline.counting.program import (
    makefile_defines,
    makefile_includes,
    makefile_std,
    sources_of,
)
from ridgeline.counting.toolchain import BuildSpec, runtime_dir

__all__ = ["OmpBackend", "short_region_name"]

_TARGET = re.compile(r"#\s*pragma\s+omp\s+target\b")


def short_region_name(name: str) -> str:
    """``__omp_offloading_fe00_512885__Z6haccmkIfEv..._l35`` -> ``_Z6haccmkIfEv..._l35``
    (device and file ids removed: they differ between machines)."""
    m = re.match(r"__omp_offloading_[0-9a-f]+_[0-9a-f]+_(.*)$", name)
    return m.group(1) if m else name


@BACKENDS.register("omp")
class OmpBackend(Backend):
    name = "omp"

    def detect(self, program_dir: Path) -> bool:
        for src in sources_of(program_dir, "omp"):
            try:
                if _TARGET.search(src.read_text(errors="replace")):
                    return True
            except OSError:
                continue
        return False

    def count(self, program_dir: Path, args: list[str], opts: RunOptions) -> list[LaunchCount]:
        srcs = sources_of(program_dir, "omp")
        if not srcs:
            raise ProgramRunError(program_dir.name, "not-found", "no C/C++ sources")
        incs = [program_dir, *makefile_includes(program_dir)]
        # single-rank MPI (omp_shim/mpi.h) for MPI + offload programs, after system headers
        spec = BuildSpec(sources=srcs, model="omp", include_dirs=incs,
                         defines=makefile_defines(program_dir), std=makefile_std(program_dir),
                         extra_flags=["-idirafter", str(runtime_dir() / "omp_shim")])
        recs = build_and_count(self.name, program_dir, spec, args, opts, retry_valid=True)
        for r in recs:
            r.kernel = short_region_name(r.kernel)
        return recs
