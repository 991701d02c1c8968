"""CUDA front end: ``__global__`` functions (templates too), parsed by libclang in CUDA mode
against ridgeline's stub headers (the CUDA 12/13 headers are too new for libclang)."""

from __future__ import annotations

from typing import Any

from ridgeline.sources._ast import FileSet
from ridgeline.sources._build import build_function_kernel
from ridgeline.sources._clang import cindex, precompiled, stub_dir
from ridgeline.sources.model import Kernel

__all__ = ["cuda_args", "cuda_kernels"]


_BASE = ["-std=c++17", "-nostdinc++", "-Wno-everything"]


def cuda_args(defines: list[str], include_dirs: list[str]) -> list[str]:
    # plain C++ with the stub header: no host/device call checking, and kernels survive
    # host code that only nvcc accepts; launch sites are read from the text. The PCH is
    # only used without -D (a PCH must agree with the command line's macros).
    pch = None if defines else precompiled("__ridgeline_cuda.h", ("-x", "c++-header", *_BASE))
    inc = ["-include-pch", pch] if pch else ["-include", "__ridgeline_cuda.h"]
    args = ["-x", "c++", *_BASE, "-isystem", stub_dir(), *inc, "-ferror-limit=0"]
    args += [f"-D{d}" for d in defines]
    for d in include_dirs:
        args += ["-I", d]
    return args


def _is_global(c: Any) -> bool:
    ck = cindex().CursorKind
    for a in c.get_children():
        if a.kind == ck.ANNOTATE_ATTR and a.spelling == "__global__":
            return True
        if a.kind == ck.CUDAGLOBAL_ATTR:
            return True
    return False


def cuda_kernels(
    decls: list[Any], files: FileSet, errors: list[tuple[str, int, str]]
) -> list[Kernel]:
    ck = cindex().CursorKind
    defs: dict[tuple[str, str], Any] = {}
    protos: dict[tuple[str, str], Any] = {}
    for c in decls:
        if c.kind not in (ck.FUNCTION_DECL, ck.FUNCTION_TEMPLATE) or not _is_global(c):
            continue
        key = (c.spelling, c.type.spelling if c.kind == ck.FUNCTION_DECL else c.displayname)
        (defs if c.is_definition() else protos).setdefault(key, c)
    out = [build_function_kernel(c, "cuda", files, errors) for c in defs.values()]
    out += [build_function_kernel(c, "cuda", files, errors)
            for key, c in protos.items() if key not in defs]
    return out
