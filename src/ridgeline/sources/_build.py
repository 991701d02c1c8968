"""Turn a function (or OpenMP directive) cursor into a :class:`Kernel`."""

from __future__ import annotations

from typing import Any

from ridgeline.sources._ast import FileSet, body_of, collect_callees, extract_text, params_of
from ridgeline.sources._clang import cindex
from ridgeline.sources.model import Kernel, Language

__all__ = ["errors_of", "build_function_kernel", "errors_between"]


def errors_of(tu: Any, files: FileSet) -> list[tuple[str, int, str]]:
    """Parse errors located in the program's own files: (file, line, message)."""
    out = []
    for d in tu.diagnostics:
        if d.severity < 3:  # Error = 3, Fatal = 4
            continue
        f = d.location.file
        k = files.key(f.name) if f is not None else None
        if k is not None:
            out.append((k, d.location.line, d.spelling))
    return out


def errors_between(errors: list[tuple[str, int, str]], file: str, lo: int, hi: int) -> list[str]:
    return [f"{file}:{line}: {msg}" for f, line, msg in errors if f == file and lo <= line <= hi]


def build_function_kernel(
    cursor: Any, language: Language, files: FileSet, errors: list[tuple[str, int, str]]
) -> Kernel:
    ck = cindex().CursorKind
    file = files.key(cursor.location.file.name) or cursor.location.file.name
    line, end = cursor.extent.start.line, cursor.extent.end.line
    body = body_of(cursor) if cursor.is_definition() else None
    k = Kernel(
        name=cursor.spelling, language=language, file=file, line=cursor.location.line,
        end_line=end, params=params_of(cursor, language),
        mangled=(cursor.mangled_name or None) if cursor.kind != ck.FUNCTION_TEMPLATE else None,
        template=cursor.kind == ck.FUNCTION_TEMPLATE, text=files.text_of(cursor),
    )
    if body is None:
        k.problems.append(f"{file}:{k.line}: kernel {k.name!r} has no parsed body (declaration "
                          "only, or the body was lost to a parse error)")
        return k
    k.node = cursor
    k.callee_nodes = collect_callees(body, files)
    k.callees = sorted(k.callee_nodes)
    k.extracted, k.macros = extract_text(cursor, k.callee_nodes, files)
    errs = errors_between(errors, file, line, end)
    if errs:
        k.problems.append(f"{len(errs)} parse error(s) inside the kernel, first: {errs[0]}")
    return k
