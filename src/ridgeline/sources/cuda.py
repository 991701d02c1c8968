"""CUDA front end: ``__global__`` functions (templates too), parsed by libclang in CUDA mode
against ridgeline's stub headers (the CUDA 12/13 headers are too new for libclang)."""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from ridgeline.sources._ast import FileSet
from ridgeline.sources._build import build_function_kernel
from ridgeline.sources._clang import cindex, resource_dir, stub_dir
from ridgeline.sources.model import Kernel

log = logging.getLogger(__name__)

__all__ = ["cuda_args", "cuda_kernels"]


_BASE = ["-std=c++17", "-nostdinc++", "-Wno-everything"]


@functools.cache
def _stub_pch() -> str | None:
    """A precompiled stub header (parsing the C headers it includes costs ~0.4 s a file);
    None when it cannot be built, then the header is included as text."""
    ci = cindex()
    header = Path(stub_dir()) / "__ridgeline_cuda.h"
    key = hashlib.sha256(
        header.read_bytes() + repr((_BASE, resource_dir(), ci.conf.lib._name)).encode()
    ).hexdigest()[:24]
    root = Path(os.environ.get("RIDGELINE_CACHE") or Path.home() / ".cache" / "ridgeline")
    out = root / "pch" / f"cuda-stub-{key}.pch"
    if out.is_file():
        return str(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tu = ci.Index.create().parse(
            str(header), args=["-x", "c++-header", *_BASE, "-isystem", stub_dir(),
                               "-resource-dir", resource_dir()],
            options=ci.TranslationUnit.PARSE_INCOMPLETE)
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        tu.save(str(tmp))
        tmp.replace(out)
    except Exception as e:  # a cache, never a failure
        log.debug("no precompiled stub header: %s", e)
        return None
    return str(out)


def cuda_args(defines: list[str], include_dirs: list[str]) -> list[str]:
    # plain C++ with the stub header: no host/device call checking, and kernels survive
    # host code that only nvcc accepts; launch sites are read from the text. The PCH is
    # only used without -D (a PCH must agree with the command line's macros).
    pch = None if defines else _stub_pch()
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
