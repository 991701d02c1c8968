"""Helpers over libclang cursors shared by the front ends: parameters, extents, callees,
macros and kernel-only extraction."""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ridgeline.sources._clang import cindex
from ridgeline.sources.model import Param

__all__ = [
    "FileSet", "params_of", "body_of", "collect_callees", "extract_text", "scan", "walk_program",
]

_QUAL_RE = re.compile(r"\b(const|volatile|restrict|__restrict__|__restrict|__global|global|"
                      r"__local|local|__constant|constant|__private|private|__generic|generic)\b")
_SPACE_RE = re.compile(r"\b(?:__)?(global|local|constant|private|generic)\b")


@dataclass
class FileSet:
    """The program's own files (texts by absolute path) and their macro uses."""

    texts: dict[str, str] = field(default_factory=dict)
    macro_defs: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    macro_uses: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    _norm: dict[str, str | None] = field(default_factory=dict)

    def key(self, name: str) -> str | None:
        """The normalised path of a file clang names, if it is one of the program's files."""
        try:
            return self._norm[name]
        except KeyError:
            n = os.path.normpath(name)
            k = n if n in self.texts else None
            self._norm[name] = k
            return k

    def owns(self, cursor: Any) -> bool:
        f = cursor.location.file
        return f is not None and self.key(f.name) is not None

    def text_of(self, cursor: Any) -> str:
        ext = cursor.extent
        f = ext.start.file
        k = self.key(f.name) if f is not None else None
        if k is None:
            return ""
        return self.texts[k][ext.start.offset:ext.end.offset]

    def add_macros(self, tu: Any) -> None:
        """Record the macro definitions and uses of the program's files (see :func:`scan`)."""
        scan(tu, self)

    def _add_macro(self, c: Any, k: str, is_def: bool) -> None:
        if is_def:
            self.macro_defs.setdefault(c.spelling, (k, c.extent.start.offset, c.extent.end.offset))
        else:
            uses = self.macro_uses.setdefault(k, [])
            uses.append((c.extent.start.offset, c.spelling))

    def macros_in(self, cursor: Any) -> list[str]:
        ext = cursor.extent
        f = ext.start.file
        k = self.key(f.name) if f is not None else None
        if k is None:
            return []
        uses = self.macro_uses.get(k, [])
        lo = bisect.bisect_left(uses, (ext.start.offset, ""))
        hi = bisect.bisect_left(uses, (ext.end.offset, ""))
        return sorted({n for _, n in uses[lo:hi] if n in self.macro_defs})

    def macro_text(self, name: str) -> str:
        fname, a, b = self.macro_defs[name]
        return "#define " + self.texts[fname][a:b]


def _clean_type(spelling: str) -> str:
    return " ".join(_QUAL_RE.sub(" ", spelling).split())


def _size(t: Any) -> int | None:
    try:
        s = int(t.get_canonical().get_size())
    except Exception:  # libclang raises on incomplete/dependent types in some versions
        return None
    return s if s > 0 else None


def params_of(func: Any, language: str) -> list[Param]:
    """The parameters of a function cursor, with pointer-ness and address space."""
    tk = cindex().TypeKind
    out = []
    args = list(func.get_arguments())
    if not args:  # function templates expose their parameters only as children
        args = [c for c in func.get_children() if c.kind == cindex().CursorKind.PARM_DECL]
    for a in args:
        t = a.type
        canon = t.get_canonical()
        pointer = canon.kind in (tk.POINTER, tk.INCOMPLETEARRAY, tk.CONSTANTARRAY)
        if pointer:
            inner = canon.get_pointee() if canon.kind == tk.POINTER else canon.element_type
            shown = t.get_pointee().spelling if t.kind == tk.POINTER else inner.spelling
            const = bool(inner.is_const_qualified())
        else:
            inner, shown, const = t, t.spelling, bool(t.is_const_qualified())
        m = _SPACE_RE.search(shown if pointer else t.spelling)
        if language == "opencl":
            space = m.group(1) if m else "private"
        else:
            space = "global" if pointer else "private"
        out.append(Param(
            name=a.spelling, type=t.spelling, pointer=pointer,
            element_type=_clean_type(shown), element_size=_size(inner),
            address_space=space, const=const,
        ))
    return out


def body_of(func: Any) -> Any | None:
    """The compound statement of a function definition, or None."""
    ck = cindex().CursorKind
    for c in func.get_children():
        if c.kind == ck.COMPOUND_STMT:
            return c
    return None


def collect_callees(root: Any, files: FileSet, limit: int = 200) -> dict[str, Any]:
    """Functions defined in the program's files that *root* calls, transitively, by name."""
    ck = cindex().CursorKind
    fn_kinds = (ck.FUNCTION_DECL, ck.FUNCTION_TEMPLATE, ck.CXX_METHOD)
    found: dict[str, Any] = {}
    todo = [root]
    seen_hash = {root.hash}
    while todo and len(found) < limit:
        node = todo.pop()
        for c in node.walk_preorder():
            if c.kind != ck.CALL_EXPR:
                continue
            ref = c.referenced
            if ref is None or ref.kind not in fn_kinds:
                continue
            d = ref.get_definition() or ref
            if not files.owns(d) or not d.is_definition() or d.hash in seen_hash:
                continue
            seen_hash.add(d.hash)
            found[d.spelling] = d
            todo.append(d)
    return found


def extract_text(
    kernel_cursor: Any, callees: dict[str, Any], files: FileSet
) -> tuple[str, list[str]]:
    """Kernel-only extraction: used macros, called functions (in source order), the kernel."""
    nodes = [*callees.values(), kernel_cursor]
    macros: set[str] = set()
    for n in nodes:
        macros.update(files.macros_in(n))
    parts = [files.macro_text(m) for m in sorted(macros)]
    ordered = sorted(callees.values(), key=lambda c: (str(c.location.file), c.extent.start.offset))
    parts += [files.text_of(c) for c in ordered]
    parts.append(files.text_of(kernel_cursor))
    return "\n\n".join(p for p in parts if p), sorted(macros)


def scan(tu: Any, files: FileSet) -> list[Any]:
    """One pass over a translation unit: records macros of the program's files in *files* and
    returns the program's top-level declarations, looking into namespaces and ``extern "C"``
    blocks (not into classes)."""
    ck = cindex().CursorKind
    mdef, minst = ck.MACRO_DEFINITION, ck.MACRO_INSTANTIATION
    into = (ck.NAMESPACE, ck.LINKAGE_SPEC, ck.UNEXPOSED_DECL)
    out = []
    stack = [tu.cursor]
    while stack:
        node = stack.pop()
        for c in node.get_children():
            f = c.location.file
            k = files.key(f.name) if f is not None else None
            if k is None:
                continue
            kind = c.kind
            if kind in (mdef, minst):
                files._add_macro(c, k, kind == mdef)
            elif kind in into:
                stack.append(c)
            else:
                out.append(c)
    for uses in files.macro_uses.values():
        uses.sort()
    return out


def walk_program(tu: Any, files: FileSet) -> list[Any]:
    """The program's top-level declarations (see :func:`scan`, which also records macros)."""
    return scan(tu, files)
