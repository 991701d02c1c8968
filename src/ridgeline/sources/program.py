"""Load a program (files or folders): detect each file's language, parse it, and collect
kernels, launch sites and problems. One bad file never stops the rest."""

from __future__ import annotations

import bisect
import logging
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ridgeline.errors import (
    InputFileError,
    KernelNotFoundError,
    SourceError,
    SourceTooLargeError,
    UsageError,
)
from ridgeline.sources._ast import FileSet, scan
from ridgeline.sources._build import errors_of
from ridgeline.sources._clang import parse_text, toolchain_dirs
from ridgeline.sources._guard import check_includes, check_macro_growth
from ridgeline.sources._text import SOURCE_EXTS, read_source, strip_comments
from ridgeline.sources._textkernels import scan_cuda_kernels
from ridgeline.sources.build import BuildFlags, ProgramBuild
from ridgeline.sources.cuda import cuda_args, cuda_kernels
from ridgeline.sources.launches import find_launches
from ridgeline.sources.model import Kernel, Language, Param, Program
from ridgeline.sources.opencl import opencl_args, opencl_kernels
from ridgeline.sources.openmp import match_omp_name, omp_args, omp_kernels

log = logging.getLogger(__name__)

__all__ = ["collect_files", "detect_language", "load_program", "find_kernels", "get_kernel"]

_MAIN_EXTS = {".cu", ".cl", ".c", ".cc", ".cpp", ".cxx"}
_OMP_TARGET_RE = re.compile(r"#\s*pragma\s+omp\s+target\b")
_GLOBAL_RE = re.compile(r"\b__global__\b")
_CL_KERNEL_RE = re.compile(r"\b__kernel\b")
LANGUAGES = ("cuda", "omp", "opencl")
#: function extents per program being loaded (program id -> file -> spans), for launch sites
_spans: dict[int, dict[str, set[tuple[int, int, str]]]] = {}


def collect_files(paths: Iterable[str | Path]) -> list[str]:
    """Source files named by *paths* (folders searched recursively), normalised, sorted."""
    out: set[str] = set()
    for p in paths:
        pp = Path(p)
        if pp.is_dir():
            for f in pp.rglob("*"):
                if f.suffix.lower() in SOURCE_EXTS and f.is_file():
                    out.add(os.path.normpath(f.resolve()))
        elif pp.is_file():
            out.add(os.path.normpath(pp.resolve()))
        else:
            raise InputFileError(f"{p}: no such file or folder")
    return sorted(out)


def detect_language(path: str, text: str) -> Language | None:
    """The front end for a file, or None for files with no kernels (host code, headers)."""
    ext = Path(path).suffix.lower()
    if ext == ".cl":
        return "opencl"
    if ext in (".cu", ".cuh"):
        return "cuda"
    clean = strip_comments(text)
    if _OMP_TARGET_RE.search(clean):
        return "omp"
    if _GLOBAL_RE.search(clean):
        return "cuda"
    return None


def _args_for(lang: Language, path: str, defines: list[str], incs: list[str]) -> list[str]:
    if lang == "cuda":
        return cuda_args(defines, incs)
    if lang == "opencl":
        return opencl_args(defines, incs)
    return omp_args(defines, incs, "c" if path.endswith(".c") else "c++")


_FRONT = {"cuda": cuda_kernels, "opencl": opencl_kernels, "omp": omp_kernels}


def _parse_one(path: str, lang: Language, files: FileSet, defines: list[str],
               incs: list[str], prog: Program) -> list[Kernel]:
    dirs = [os.path.dirname(path), *incs]
    guard = check_includes(path, files.texts[path], [*dirs, *toolchain_dirs()], dirs,
                           toolchain_dirs())
    prog.problems += guard.problems
    check_macro_growth(guard.texts, path)
    tu = parse_text(path, files.texts[path], _args_for(lang, path, defines, dirs),
                    guard.overrides)
    prog.units.append(tu)
    decls = scan(tu, files)
    errs = errors_of(tu, files)
    prog_spans = _spans.setdefault(id(prog), {})
    for c in decls:
        if c.kind.name in ("FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD") and \
                c.is_definition():
            k = files.key(c.location.file.name)
            if k:
                prog_spans.setdefault(k, set()).add(
                    (c.extent.start.offset, c.extent.end.offset, c.spelling))
    kernels = _FRONT[lang](decls, files, errs)
    if lang == "cuda":
        kernels += _lost_cuda_kernels(path, files, kernels, errs)
    return kernels


def _lost_cuda_kernels(path: str, files: FileSet, found: list[Kernel],
                       errs: list[tuple[str, int, str]]) -> list[Kernel]:
    """``__global__`` definitions in the text that the parser did not return."""
    have = {(k.name, k.file) for k in found}
    mine = sorted((ln, m) for f, ln, m in errs if f == path)
    lines = [ln for ln, _ in mine]
    out = []
    for name, line, params, has_body in scan_cuda_kernels(files.texts[path]):
        if (name, path) in have or not has_body:
            continue
        i = bisect.bisect_right(lines, line - 40)  # the first error within 40 lines
        near = mine[i] if i < len(mine) and lines[i] < line + 40 else None
        why = f"; parse errors nearby, first: {path}:{near[0]}: {near[1]}" if near else ""
        k = Kernel(
            name=name, language="cuda", file=path, line=line,
            params=[_text_param(p) for p in params],
        )
        k.problems.append(f"{path}:{line}: kernel {name!r} was found in the text but the parser "
                          f"lost its body (a macro not defined? pass it with -D){why}")
        out.append(k)
        have.add((name, path))
    return out


# A parameter's type, then its name (tried from the first ASCII letter of each word and read
# possessively: the same matches as `(.*?)([A-Za-z_]\w*)`, which retried a long word from each
# of its letters), then at most one array extent.
_TEXT_PARAM = re.compile(r"([^\n]*?(?<!\w)(?:(?![A-Za-z_])\w)*+)([A-Za-z_]\w*+)\s*+"
                         r"(\[\s*+\w*+\s*+\])?$")


def _text_param(text: str) -> Param:
    m = _TEXT_PARAM.match(text)
    ptype, name = (m.group(1).strip(), m.group(2)) if m else (text, "")
    pointer = "*" in ptype or bool(m and m.group(3))
    elem = " ".join(re.sub(r"\b(const|volatile|__restrict__|__restrict)\b|\*", " ", ptype).split())
    return Param(name=name, type=ptype, pointer=pointer, element_type=elem, element_size=None,
                 address_space="global" if pointer else "private", const="const" in ptype)


def load_program(
    paths: Sequence[str | Path] | str | Path,
    defines: Iterable[str] = (),
    include_dirs: Iterable[str | Path] = (),
    language: Language | None = None,
    build: ProgramBuild | None = None,
) -> Program:
    """Find every kernel in the given source files/folders.

    *defines* are ``NAME`` or ``NAME=VALUE`` (what ``-D`` would get). *language* forces the
    front end for every file (default: by extension and content). *build* adds each file's
    build flags (its folder's Makefile and make fragment for the file's language, or its
    ``compile_commands.json`` entry, then the command line's ``-D``/``-I``) before
    *defines* and *include_dirs*. Unreadable files and parse
    failures are recorded in ``Program.problems``; they do not stop the other files.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    if language is not None and language not in LANGUAGES:
        raise UsageError(f"language {language!r} is not known; use one of {', '.join(LANGUAGES)}")
    names = collect_files(paths)
    files = FileSet()
    prog = Program(files=names, kernels=[])
    for n in names:
        try:
            text, warns = read_source(n)
        except SourceTooLargeError:
            raise  # the same error in every command: never a silent skip or cut
        except InputFileError as e:
            prog.problems.append(str(e))
            continue
        files.texts[n] = text
        prog.problems += warns
    defs = [str(d) for d in defines]
    incs = [os.path.normpath(Path(i).resolve()) for i in include_dirs]
    roots = sorted({os.path.normpath(Path(p).resolve()) for p in paths if Path(p).is_dir()})
    seen: set[tuple[str, str, int]] = set()
    for path in [p for p in names if p in files.texts]:
        lang = language or detect_language(path, files.texts[path])
        is_main = Path(path).suffix.lower() in _MAIN_EXTS or lang is not None
        if lang is None or not is_main:
            continue
        try:
            fdefs, fincs = defs, incs
            if build is not None:
                flags = build.for_file(Path(path), lang).merge(BuildFlags(tuple(defs)))
                fdefs = list(flags.defines)
                fincs = [*(os.path.normpath(i) for i in flags.includes if str(i) not in incs),
                         *incs]
            ks = _parse_one(path, lang, files, fdefs, [*roots, *fincs], prog)
        except SourceError:  # over its time or memory budget: the command fails, clearly
            raise
        except Exception as e:  # libclang failures must not stop the batch
            prog.problems.append(f"{path}: could not be parsed ({type(e).__name__}: {e})")
            continue
        for k in ks:
            key = (k.name, k.file, k.line)
            if key not in seen:
                seen.add(key)
                prog.kernels.append(k)
    _drop_prototypes(prog)
    _attach_launches(prog, files)
    _spans.pop(id(prog), None)
    return prog


def _drop_prototypes(prog: Program) -> None:
    """A kernel declared in one file and defined in another is one kernel."""
    with_body = {k.name for k in prog.kernels if k.has_body}
    prog.kernels = [k for k in prog.kernels if k.has_body or k.name not in with_body]


def _attach_launches(prog: Program, files: FileSet) -> None:
    for path, text in files.texts.items():
        if "<<<" in text:
            prog.launches += find_launches(text, path, _function_lookup(prog, path))
    by_name: dict[str, list[Kernel]] = {}
    for k in prog.kernels:
        by_name.setdefault(k.name, []).append(k)
    for s in prog.launches:
        for k in by_name.get(s.kernel, []):
            k.launches.append(s)


def _function_lookup(prog: Program, path: str) -> Any:
    spans = sorted(_spans.get(id(prog), {}).get(path, ()))
    starts = [s[0] for s in spans]

    def at(offset: int) -> str | None:
        i = bisect.bisect_right(starts, offset) - 1
        if i >= 0 and spans[i][0] <= offset <= spans[i][1]:
            return spans[i][2]
        return None

    return at


def find_kernels(paths: Sequence[str | Path] | str | Path, **kw: Any) -> list[Kernel]:
    """The kernels of :func:`load_program` (see it for the keyword arguments)."""
    return load_program(paths, **kw).kernels


def get_kernel(program: Program, name: str) -> Kernel:
    """The kernel called *name*: exact name, mangled name, OpenMP runtime name
    (``main_l57``, ``__omp_offloading_..._l452``), or ``file:line``. Raises
    KernelNotFoundError listing the kernels that exist."""
    for k in program.kernels:
        if name in (k.name, k.mangled):
            return k
    m = match_omp_name(name, program.kernels)
    if m is not None:
        return m
    fm = re.match(r"^(.+):(\d+)$", name)
    if fm:
        for k in program.kernels:
            if k.file.endswith(fm.group(1)) and k.line == int(fm.group(2)):
                return k
    raise KernelNotFoundError(name, sorted({k.name for k in program.kernels}))
