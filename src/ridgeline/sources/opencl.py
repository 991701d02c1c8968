"""OpenCL C front end: ``__kernel`` functions with their parameters' address spaces."""

from __future__ import annotations

import logging
import os
import re
from typing import Any

from ridgeline.sources._ast import FileSet, scan
from ridgeline.sources._build import build_function_kernel, errors_of
from ridgeline.sources._clang import cindex, parse_text, toolchain_dirs
from ridgeline.sources._guard import check_includes, check_macro_growth
from ridgeline.sources.clbuild import BuildOptions
from ridgeline.sources.model import Kernel

__all__ = ["opencl_args", "opencl_kernels", "parse_opencl", "check_opencl"]

log = logging.getLogger(__name__)

_KERNEL_RE = re.compile(r"\b(?:__)?kernel\b")


def opencl_args(defines: list[str], include_dirs: list[str], std: str = "CL1.2") -> list[str]:
    args = ["-x", "cl", f"-cl-std={std}", "-Xclang", "-finclude-default-header",
            "-Wno-everything", "-ferror-limit=0"]
    args += [f"-D{d}" for d in defines]
    for d in include_dirs:
        args += ["-I", d]
    return args


def _is_kernel(c: Any, files: FileSet) -> bool:
    text = files.text_of(c)
    head = text[: max(0, c.location.offset - c.extent.start.offset)]
    return bool(_KERNEL_RE.search(head))


def opencl_kernels(
    decls: list[Any], files: FileSet, errors: list[tuple[str, int, str]]
) -> list[Kernel]:
    ck = cindex().CursorKind
    out = []
    for c in decls:
        if c.kind == ck.FUNCTION_DECL and c.is_definition() and _is_kernel(c, files):
            out.append(build_function_kernel(c, "opencl", files, errors))
    return out


def parse_opencl(
    text: str, filename: str = "kernel.cl", defines: list[str] | None = None,
    build: BuildOptions | None = None,
) -> list[Kernel]:
    """Kernels of one OpenCL C source given as text (e.g. a CLgen kernel); *build* holds
    the host's ``clBuildProgram`` options (macros, include folders). Refused includes are
    logged as warnings; a parse over its budget raises SourceError."""
    return check_opencl(text, filename, defines, build)[0]


def check_opencl(
    text: str, filename: str = "kernel.cl", defines: list[str] | None = None,
    build: BuildOptions | None = None,
) -> tuple[list[Kernel], list[tuple[int, str]]]:
    """Kernels of *text*, and every parse error located in *text* itself (line, message).
    Includes may reach the kernel's folder, the build's include folders and the toolchain's
    headers, and only regular files (:func:`ridgeline.sources._guard.check_includes`)."""
    build = build or BuildOptions()
    name = os.path.normpath(os.path.abspath(filename))
    files = FileSet(texts={name: text})
    here = [os.path.dirname(name), *(str(d) for d in build.include_dirs)]
    guard = check_includes(name, text, [*here, *toolchain_dirs()], here, toolchain_dirs())
    for p in guard.problems:
        log.warning("%s", p)
    check_macro_growth(guard.texts, name)
    args = opencl_args(list(defines or []) + list(build.defines), list(build.include_dirs),
                       build.cl_std() or "CL1.2")
    tu = parse_text(name, text, args, guard.overrides)
    errors = errors_of(tu, files)
    return opencl_kernels(scan(tu, files), files, errors), [(ln, m) for _, ln, m in errors]
