"""OpenMP offload front end: each ``#pragma omp target ...`` region (not ``target data`` /
``update`` / ``enter`` / ``exit``), with its enclosing function, clauses and source line, and
the mapping from runtime kernel names (``main_l57``, ``__omp_offloading_<dev>_<file>_<fn>_l<line>``)
back to a region."""

from __future__ import annotations

import re
from typing import Any

from ridgeline.sources._ast import FileSet, collect_callees, extract_text
from ridgeline.sources._build import errors_between
from ridgeline.sources._clang import cindex, precompiled, stub_dir
from ridgeline.sources.model import Kernel, Param, TargetRegion

__all__ = ["omp_args", "omp_kernels", "parse_directive", "split_omp_name", "match_omp_name"]

_CONSTRUCTS = {"target", "teams", "distribute", "parallel", "for", "simd", "loop"}
_CLAUSE_RE = re.compile(r"([A-Za-z_]\w*)\s*(\()?")
_NAME_RE = re.compile(r"^(?P<hint>.*?)_l(?P<line>\d+)$")
_OFFLOAD_RE = re.compile(r"^_*omp_offloading_[0-9a-fA-F]+_[0-9a-fA-F]+_+")


def omp_args(defines: list[str], include_dirs: list[str], lang: str = "c++") -> list[str]:
    # no -fopenmp: the pragmas are read from the text and the region is a plain statement;
    # no C++ standard library (slow, and regions rarely need it): unknown names inside a
    # region become parse errors reported on the kernel, its statements stay
    base = ("-x", f"{lang}-header", "-std=c++17", "-nostdinc++", "-Wno-everything") \
        if lang == "c++" else ("-x", "c-header", "-Wno-everything")
    pch = None if defines else precompiled("__ridgeline_omp.h", base)
    inc = ["-include-pch", pch] if pch else ["-include", "__ridgeline_omp.h"]
    args = ["-x", lang, *base[2:], "-isystem", stub_dir(), *inc, "-ferror-limit=0"]
    args += [f"-D{d}" for d in defines]
    for d in include_dirs:
        args += ["-I", d]
    return args


def parse_directive(text: str) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """``#pragma omp target teams ... map(to: a[0:n])`` -> constructs and clauses."""
    body = re.sub(r"^\s*#\s*pragma\s+omp\s+", "", text.replace("\\\n", " "))
    constructs: list[str] = []
    clauses: dict[str, list[str]] = {}
    i = 0
    while i < len(body):
        m = _CLAUSE_RE.match(body, i)
        if not m:
            i += 1
            continue
        word = m.group(1)
        if m.group(2):
            depth, j = 1, m.end()
            while j < len(body) and depth:
                depth += {"(": 1, ")": -1}.get(body[j], 0)
                j += 1
            clauses.setdefault(word, []).append(" ".join(body[m.end():j - 1].split()))
            i = j
        else:
            if word in _CONSTRUCTS and not clauses:
                constructs.append(word)
            else:
                clauses.setdefault(word, [])
            i = m.end()
    return tuple(constructs), {k: tuple(v) for k, v in clauses.items()}


def _pragma_text(text: str, line: int) -> str:
    lines = text.split("\n")
    i = line - 1
    if i >= len(lines):
        return ""
    out = [lines[i]]
    while out[-1].rstrip().endswith("\\") and i + 1 < len(lines):
        i += 1
        out.append(lines[i])
    return "\n".join(out)


def _captured(directive: Any) -> list[Param]:
    """Variables used in the region but declared outside it (what the region reads/writes)."""
    ck = cindex().CursorKind
    tk = cindex().TypeKind
    lo, hi = directive.extent.start.offset, directive.extent.end.offset
    seen: dict[str, Param] = {}
    for c in directive.walk_preorder():
        if c.kind != ck.DECL_REF_EXPR:
            continue
        ref = c.referenced
        if ref is None or ref.kind not in (ck.VAR_DECL, ck.PARM_DECL) or ref.spelling in seen:
            continue
        if ref.location.file is not None and lo <= ref.location.offset <= hi and (
            str(ref.location.file) == str(directive.location.file)
        ):
            continue
        t = ref.type
        canon = t.get_canonical()
        pointer = canon.kind in (tk.POINTER, tk.CONSTANTARRAY, tk.INCOMPLETEARRAY)
        inner = (canon.get_pointee() if canon.kind == tk.POINTER else canon.element_type) \
            if pointer else canon
        size = inner.get_size()
        seen[ref.spelling] = Param(
            name=ref.spelling, type=t.spelling, pointer=pointer,
            element_type=inner.spelling.replace("const ", ""),
            element_size=size if size > 0 else None,
            address_space="global" if pointer else "private",
            const=bool(inner.is_const_qualified()),
        )
    return list(seen.values())


_PRAGMA_RE = re.compile(
    r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+target\b(?![ \t]+(?:data|update|enter|exit)\b)", re.M
)


def _pragmas(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each offloading ``#pragma omp target`` in *text*."""
    out = []
    for m in _PRAGMA_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        ptext = _pragma_text(text, line)
        out.append((line, line + ptext.count("\n"), ptext))
    return out


_ANY_OMP_RE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?:teams|distribute|parallel|for|"
                         r"simd|loop)\b", re.M)


def _inner_pragmas(text: str, lo: int, hi: int) -> list[tuple[int, int, str]]:
    out = []
    for m in _ANY_OMP_RE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if lo <= line <= hi:
            p = _pragma_text(text, line)
            out.append((line, line + p.count("\n"), p))
    return out


def _statement_after(func: Any, last_line: int) -> Any | None:
    """The outermost statement of *func* that starts after line *last_line* (subtrees that
    end before that line are skipped)."""

    def find(node: Any) -> Any | None:
        for c in node.get_children():
            if c.extent.end.line <= last_line:
                continue
            if c.extent.start.line > last_line and (
                c.kind.is_statement() or c.kind.is_expression()
            ):
                return c
            hit = find(c)
            if hit is not None:
                return hit
        return None

    return find(func)


def omp_kernels(
    decls: list[Any], files: FileSet, errors: list[tuple[str, int, str]]
) -> list[Kernel]:
    """Target regions of the functions in *decls* (parsed without -fopenmp, so the region's
    statement is an ordinary statement after its pragma)."""
    ck = cindex().CursorKind
    fn_kinds = (ck.FUNCTION_DECL, ck.FUNCTION_TEMPLATE, ck.CXX_METHOD, ck.CONSTRUCTOR)
    funcs: dict[str, list[Any]] = {}
    stack = list(decls)
    while stack:
        f = stack.pop()
        if f.kind in (ck.CLASS_DECL, ck.STRUCT_DECL, ck.CLASS_TEMPLATE):
            stack.extend(f.get_children())
        elif f.kind in fn_kinds and f.is_definition():
            key = files.key(f.extent.start.file.name) if f.extent.start.file else None
            if key:
                funcs.setdefault(key, []).append(f)
    out = []
    for file, fs in funcs.items():
        for first, last, ptext in _pragmas(files.texts[file]):
            owner = [f for f in fs if f.extent.start.line <= first <= f.extent.end.line]
            if not owner:
                continue
            func = min(owner, key=lambda f: f.extent.end.line - f.extent.start.line)
            stmt = _statement_after(func, last)
            out.append(_region_kernel(func, stmt, file, first, ptext, files, errors))
    out += _included_regions(decls, funcs, files, errors)
    return out


def _included_regions(decls: list[Any], funcs: dict[str, list[Any]], files: FileSet,
                      errors: list[tuple[str, int, str]]) -> list[Kernel]:
    """Regions in a header that is #included inside a function body (kernel-body headers)."""
    ck = cindex().CursorKind
    out = []
    for inc in decls:
        if inc.kind != ck.INCLUSION_DIRECTIVE:
            continue
        try:
            got = inc.get_included_file()
        except AssertionError:  # the bindings assert on includes that were not found
            continue
        header = files.key(got.name) if got is not None else None
        where = files.key(inc.location.file.name) if inc.location.file else None
        if header is None or where is None or header in funcs and any(
            f.extent.start.line <= 1 for f in funcs[header]
        ):
            continue
        line = inc.location.line
        owner = [f for f in funcs.get(where, []) if f.extent.start.line < line < f.extent.end.line]
        if not owner:
            continue
        func = min(owner, key=lambda f: f.extent.end.line - f.extent.start.line)
        for first, last, ptext in _pragmas(files.texts[header]):
            stmt = next((c for c in func.walk_preorder()
                         if (c.kind.is_statement() or c.kind.is_expression())
                         and c.extent.start.file is not None
                         and files.key(c.extent.start.file.name) == header
                         and c.extent.start.line > last), None)
            out.append(_region_kernel(func, stmt, header, first, ptext, files, errors))
    return out


def _region_kernel(func: Any, stmt: Any | None, file: str, line: int, directive: str,
                   files: FileSet, errors: list[tuple[str, int, str]]) -> Kernel:
    constructs, clauses = parse_directive(directive)
    if stmt is not None:  # nested "#pragma omp teams/parallel for" inside the region
        text = files.texts.get(file, "")
        for _line, _, sub in _inner_pragmas(text, stmt.extent.start.line,
                                            stmt.extent.end.line):
            c2, cl2 = parse_directive(sub)
            constructs += tuple(c for c in c2 if c not in constructs)
            for kk, vv in cl2.items():
                clauses[kk] = clauses.get(kk, ()) + vv
    region = TargetRegion(
        function=func.spelling, mangled=func.mangled_name or None, file=file, line=line,
        directive=" ".join(directive.replace("\\\n", " ").split()), constructs=constructs,
        clauses=clauses,
    )
    k = Kernel(name=region.name, language="omp", file=file, line=line, params=[],
               mangled=region.mangled,
               template=func.kind == cindex().CursorKind.FUNCTION_TEMPLATE, region=region)
    if stmt is None:
        k.problems.append(f"{file}:{line}: no statement follows the target pragma")
        k.text = directive
        return k
    k.end_line = stmt.extent.end.line
    k.params = _captured(stmt)
    k.text = directive.strip() + "\n" + files.text_of(stmt)
    k.node = stmt
    k.callee_nodes = collect_callees(stmt, files)
    k.callees = sorted(k.callee_nodes)
    k.extracted, k.macros = extract_text(stmt, k.callee_nodes, files)
    k.extracted = k.extracted.replace(files.text_of(stmt), k.text)
    errs = errors_between(errors, file, line, k.end_line)
    if errs:
        k.problems.append(f"{len(errs)} parse error(s) inside the region, first: {errs[0]}")
    return k


def split_omp_name(name: str) -> tuple[str, int] | None:
    """``main_l57`` -> ("main", 57); ``__omp_offloading_10309_2fc5ad7__Z3fooPf_l452`` ->
    ("_Z3fooPf", 452); fragments like ``ii_l186`` -> ("ii", 186). None if no ``_l<line>``."""
    m = _NAME_RE.match(name.strip())
    if not m:
        return None
    hint = _OFFLOAD_RE.sub("", m.group("hint"))
    if hint.startswith("Z") and not hint.startswith("_Z"):
        hint = "_" + hint
    return hint, int(m.group("line"))


def _score(k: Kernel, hint: str) -> int:
    r = k.region
    if r is None:
        return 0
    mangled = r.mangled or ""
    if hint in (r.function, mangled):
        return 3
    if mangled and (mangled.endswith(hint.lstrip("_")) or hint.startswith(mangled)):
        return 2
    if r.function and r.function in hint:
        return 1
    tail = r.function.rsplit("_", 1)[-1]
    if len(tail) >= 2 and hint.startswith(tail + "I"):  # "_Z7test_1DIdE..." split at "_"
        return 2
    return 0


def _by_function(omp: list[Kernel], hint: str) -> Kernel | None:
    """The only region of the one function whose (mangled) name the hint identifies."""
    if len(hint) < 4 or hint == "main":
        return None
    funcs = {(k.region.function, k.region.mangled) for k in omp
             if k.region and _score(k, hint) >= 2}
    if len(funcs) != 1:
        return None
    regions = [k for k in omp if k.region and (k.region.function, k.region.mangled) in funcs]
    return regions[0] if len(regions) == 1 else None


def match_omp_name(name: str, kernels: list[Kernel]) -> Kernel | None:
    """The target region a runtime kernel name refers to (by line, then by function hint)."""
    parts = split_omp_name(name)
    if parts is None:
        return None
    hint, line = parts
    omp = [k for k in kernels if k.language == "omp"]
    cands = [k for k in omp if k.line == line]
    if not cands:  # sources edited since profiling: nearest region within a few lines
        near = [k for k in omp if abs(k.line - line) <= 12]
        scored = [k for k in near if _score(k, hint) > 0] or near
        if not scored:
            return _by_function(omp, hint)
        return min(scored, key=lambda k: (-_score(k, hint), abs(k.line - line)))
    return max(cands, key=lambda k: _score(k, hint))
