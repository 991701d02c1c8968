"""Language front ends: find the kernels of CUDA, OpenMP-offload and OpenCL programs.

Stable API (everything else in this package is private)::

    prog = load_program(["path/to/prog-cuda"], defines=["N=128"])   # files or folders
    prog.kernels          # list[Kernel]: name, language, file, line, params, launches, ...
    prog.problems         # files that could not be read or parsed, kernels that lost bodies
    k = get_kernel(prog, "saxpy")          # or "main_l57", "__omp_offloading_..._l452"
    k.params              # list[Param]: name, type, pointer, element_type, element_size,
                          #              address_space (global/local/constant/private), const
    k.launches            # list[LaunchSite]: grid, block, shared_mem, stream, args (as text)
    k.extracted           # kernel-only extraction: used macros + called functions + kernel
    k.region              # OpenMP: TargetRegion (function, line, constructs, clauses)
    parse_opencl(text)    # kernels of one OpenCL C source given as a string
    find_kernels(paths)   # == load_program(paths).kernels
    load_program([d], build=ProgramBuild.from_cli(["N=4"], ["inc"], "compile_commands.json"))
                          # each file parsed with its build's -D/-I (Makefile, make fragment)

Parsing uses libclang (``pip install 'ridgeline[clang]'``) and a clang resource folder with
the builtin headers (Debian ``libclang-common-15-dev``); ``clang_available()`` tells whether
both are there. ``ridgeline.sources.context`` and ``ridgeline.sources.tokens`` (program
context, token counts) are separate modules of this package.
"""

from __future__ import annotations

from ridgeline.sources._clang import clang_available, resource_dir
from ridgeline.sources._text import read_source
from ridgeline.sources.build import BuildFlags, ProgramBuild
from ridgeline.sources.launches import find_launches
from ridgeline.sources.model import Kernel, Language, LaunchSite, Param, Program, TargetRegion
from ridgeline.sources.opencl import parse_opencl
from ridgeline.sources.openmp import match_omp_name, parse_directive, split_omp_name
from ridgeline.sources.program import (
    collect_files,
    detect_language,
    find_kernels,
    get_kernel,
    load_program,
)

__all__ = [
    "BuildFlags",
    "ProgramBuild",
    "Kernel",
    "Language",
    "LaunchSite",
    "Param",
    "Program",
    "TargetRegion",
    "clang_available",
    "collect_files",
    "detect_language",
    "find_kernels",
    "find_launches",
    "get_kernel",
    "load_program",
    "match_omp_name",
    "parse_directive",
    "parse_opencl",
    "read_source",
    "resource_dir",
    "split_omp_name",
]
