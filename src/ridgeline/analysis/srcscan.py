"""A light text front end over a program's sources: functions, kernels, launch sites.

It needs no compiler and no libclang, so ``ridgeline predict`` runs on a base install. It is
deliberately simple (comments stripped, braces matched, regular expressions for headers);
what it cannot find it reports as missing instead of guessing. The preprocessor's part
(conditionals, macros) is in :mod:`ridgeline.analysis.macros`.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ridgeline.analysis.macros import (
    OBJECT_DEFINE,
    PREDEFINED,
    expand_fn_macros,
    expand_stmt_macros,
    fn_macros,
    resolve_conditionals,
    stmt_macros,
)
from ridgeline.analysis.text import match_paren, strip_comments
from ridgeline.errors import InputFileError, KernelNotFoundError, SourceError
from ridgeline.limits import MAX_SCANNED_HEADER_BYTES, check_regular_source, check_source_size
from ridgeline.sources._text import split_top_level as split_top

log = logging.getLogger(__name__)

__all__ = [
    "SOURCE_SUFFIXES",
    "Function",
    "Launch",
    "OmpRegion",
    "Program",
    "load_program",
    "source_files",
]

SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c", ".cl",
                   ".inc", ".hip")
_HEADER_SUFFIXES = {".h", ".hpp", ".hh", ".cuh", ".inc"}
_WARNED: set[Path] = set()  # large headers already reported
_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "else", "do",
             "defined", "__launch_bounds__", "__attribute__", "decltype", "alignas"}
_LAUNCH = re.compile(r"\b(?P<name>[A-Za-z_]\w*)\s*(?P<targs><[^;<>]*(?:<[^;<>]*>[^;<>]*)*>)?\s*<<<")
# `#pragma omp target ...` with backslash-continued lines (a backslash not ending a line is text)
_OMP_TARGET = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+target\b"
                         r"((?:[^\n\\]|\\(?!\r?\n))*(?:\\\r?\n(?:[^\n\\]|\\(?!\r?\n))*)*)", re.M)


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    pointer: bool


@dataclass
class Function:
    name: str
    qualifiers: str
    params: list[Param]
    body: str  # text between the braces
    file: str
    line: int
    offset: int  # offset of the body in the file text

    @property
    def is_kernel(self) -> bool:
        q = f" {self.qualifiers} "
        return "__global__" in q or " __kernel " in q or " kernel " in q


@dataclass
class Launch:
    kernel: str
    grid: str
    block: str
    args: list[str]
    file: str
    line: int
    function: str | None  # enclosing function
    offset: int  # in the enclosing function's body
    targs: str = ""  # explicit template arguments at the launch (`float, 4`), if any


@dataclass
class OmpRegion:
    line: int
    file: str
    pragma: str
    body: str  # the statement after the pragma (a loop nest or a block)
    function: str | None
    offset: int


_PROGRAM_SERIAL = itertools.count()
#: how many lines a profiled OpenMP region name (``main_l190``) may be off its region in the
#: sources (the counting runtime's expect rule uses the same slack)
OMP_LINE_SLACK = 8


@dataclass
class Program:
    root: Path
    #: never reused within a process (unlike id()): caches keyed on it cannot go stale when an
    #: evicted program's memory is given to a new one
    serial: int = field(default_factory=lambda: next(_PROGRAM_SERIAL), compare=False)
    files: dict[str, str] = field(default_factory=dict)
    macros: dict[str, str] = field(default_factory=dict)
    functions: dict[str, list[Function]] = field(default_factory=dict)
    launches: list[Launch] = field(default_factory=list)
    omp: list[OmpRegion] = field(default_factory=list)

    @property
    def kernels(self) -> list[Function]:
        return [f for fs in self.functions.values() for f in fs if f.is_kernel]

    def kernel_names(self) -> list[str]:
        names = sorted({k.name for k in self.kernels})
        names += sorted({f"{r.function or 'region'}_l{r.line}" for r in self.omp})
        return names

    def function(self, name: str) -> Function | None:
        fs = self.functions.get(name)
        return fs[0] if fs else None

    def kernel(self, name: str) -> Function:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KernelNotFoundError(name, self.kernel_names())

    def omp_region(self, name: str) -> OmpRegion:
        m = re.search(r"_l(\d+)$", name)
        if m:
            line = int(m.group(1))
            # the profiled build's line may be a few lines off the sources at hand (edits
            # above the region): the nearest region within OMP_LINE_SLACK lines, preferring
            # the named function (the counting runtime matches regions the same way)
            near = [r for r in self.omp if abs(r.line - line) <= OMP_LINE_SLACK]
            near.sort(key=lambda r: (r.function is None or not name.startswith(r.function),
                                     abs(r.line - line)))
            if near:
                return near[0]
        raise KernelNotFoundError(name, self.kernel_names())

    def launches_of(self, name: str) -> list[Launch]:
        return [la for la in self.launches if la.kernel == name]


#: upstream names some templated CUDA kernels by a fragment of their template arguments
#: (``int>``, ``float,``): such a row is matched on its launch sizes alone
TEMPLATE_FRAGMENT = re.compile(r"^[\w:\s]*[>,]$")


def renamed_kernel(name: str, names: Iterable[str]) -> str | None:
    """The one kernel of *names* that *name* starts or ends with, or that starts with *name*,
    ignoring case: profiles of another version of a program call ``kernel1``
    ``attention_kernel1`` and ``gemm`` ``gemm_impl1``. None when no kernel or several match
    (names under 4 characters never do)."""
    low = name.lower()
    hits = list(dict.fromkeys(
        n for n in names if len(n) >= 4 and n.lower() != low and (
            low.endswith(n.lower()) or low.startswith(n.lower()) or n.lower().startswith(low))))
    return hits[0] if len(hits) == 1 else None


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# A parameter's type and name on its first line, then its array extents. A name is tried only
# from the first ASCII letter of a word (a later start in the same word ends where it ends, so
# it cannot match where the first did not), and the word and the extents are read
# possessively: each word is read once, not once per character as `(.*?)([A-Za-z_]\w*)` did.
# An extent holds no bracket (`[^\[\]]`): with `[^\]]`, every `x[` of `x[x[x[...]*` was a try
# reading on to the one `]`, quadratic in the length; now each `[` ends the try before it.
_PARAM = re.compile(r"([^\n]*?(?<!\w)(?:(?![A-Za-z_])\w)*+)([A-Za-z_]\w*+)\s*+"
                    r"((?:\[[^\[\]]*+\])*+)$")


def _params(text: str) -> list[Param]:
    out = []
    for p in split_top(text):
        p = _before_default(p).strip()
        if not p or p == "void":
            continue
        m = _PARAM.match(p)
        if not m:
            continue
        ty = m.group(1).strip()
        ptr = "*" in ty or bool(m.group(3)) or "&" in ty and "[" in p
        base = re.sub(r"\b(const|__restrict__|restrict|__restrict|volatile|__global|global|"
                      r"__local|local|__constant|constant|struct|unsigned)\b|[*&]", " ", ty)
        base = " ".join(base.split())
        if "unsigned" in ty and base in ("int", "char", "short", "long", "long long", ""):
            base = ("unsigned " + base).strip() or "unsigned"
        out.append(Param(m.group(2), base, ptr))
    return out


def _before_default(p: str) -> str:
    """*p* up to the first `=` of its last line (what `re.sub(r"=.*$", "", p)` keeps, in one
    pass: that pattern retried each `=` of a long line to its end)."""
    last = p.rfind("\n", 0, len(p) - p.endswith("\n"))
    eq = p.find("=", last + 1)
    return p if eq < 0 else p[:eq]


def _header_before(text: str, brace: int) -> tuple[str, int, int] | None:
    """(name, name start, params start) when the block at *brace* is a function body."""
    j = brace - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    tail = re.search(r"(?:\bconst|\bnoexcept|\boverride|\s)*$", text[max(0, j - 40):j + 1])
    if tail and tail.group(0).strip():
        j -= len(tail.group(0))
        while j >= 0 and text[j].isspace():
            j -= 1
    if j < 0 or text[j] != ")":
        return None
    depth, i = 0, j
    while i >= 0:
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                break
        elif text[i] in "{};" and j - i > 3000:
            return None
        i -= 1
    if i < 0:
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*$", text[max(0, i - 200):i])
    if not m or m.group(1) in _KEYWORDS:
        return None
    return m.group(1), i - len(text[max(0, i - 200):i]) + m.start(1), i


def _scan_functions(text: str, file: str, prog: Program) -> None:
    pos = 0
    while True:
        brace = text.find("{", pos)
        if brace < 0:
            return
        head = _header_before(text, brace)
        if head is None:
            pos = brace + 1
            continue
        name, nstart, popen = head
        end = match_paren(text, brace, "{", "}")
        if end < 0:
            return
        k = nstart
        while k > 0 and text[k - 1] not in ";{}" and nstart - k < 300:
            k -= 1
        pre = re.sub(r"^\s*#[^\n]*\n", "", text[k:nstart])
        params_text = text[popen + 1:text.rfind(")", popen, brace)]
        fn = Function(name, " ".join(pre.split()), _params(params_text),
                      text[brace + 1:end - 1], file, _line_of(text, nstart), brace + 1)
        prog.functions.setdefault(name, []).append(fn)
        pos = end


def _scan_launches(fn: Function, prog: Program) -> None:
    body = fn.body
    for m in _LAUNCH.finditer(body):
        close = body.find(">>>", m.end())
        if close < 0:
            continue
        cfg = split_top(body[m.end():close])
        po = body.find("(", close + 3)
        if po < 0 or body[close + 3:po].strip():
            continue
        pe = match_paren(body, po)
        if pe < 0 or len(cfg) < 2:
            continue
        prog.launches.append(Launch(
            m.group("name"), cfg[0], cfg[1], split_top(body[po + 1:pe - 1]), fn.file,
            _line_of(prog.files[fn.file], fn.offset + m.start()), fn.name, m.start(),
            (m.group("targs") or "")[1:-1].strip(),
        ))


def _statement_after(text: str, pos: int) -> str:
    """The statement starting at *pos*: a braced block, a loop with its body, or up to ';'."""
    i = pos
    while i < len(text) and text[i].isspace():
        i += 1
    if text.startswith("{", i):
        end = match_paren(text, i, "{", "}")
        return text[i:end if end > 0 else len(text)]
    m = re.match(r"(for|while)\s*\(", text[i:])
    if m:
        pe = match_paren(text, i + m.end() - 1)
        if pe < 0:
            return text[i:]
        return text[i:pe] + " " + _statement_after(text, pe)
    if text.startswith("#pragma", i):
        nl = text.find("\n", i)
        return _statement_after(text, nl if nl > 0 else len(text))
    semi = text.find(";", i)
    return text[i:semi + 1 if semi >= 0 else len(text)]


def _scan_omp(text: str, file: str, prog: Program) -> None:
    for m in _OMP_TARGET.finditer(text):
        pragma = re.sub(r"\\\r?\n", " ", m.group(1))
        if re.match(r"\s*(data|update|enter|exit)\b", pragma):
            continue
        line = _line_of(text, m.start() + len(m.group(0)) - len(m.group(0).lstrip()))
        owner = None
        for fs in prog.functions.values():
            for f in fs:
                if f.file == file and f.offset <= m.start() <= f.offset + len(f.body):
                    owner = f
        prog.omp.append(OmpRegion(
            line, file, " ".join(pragma.split()), _statement_after(text, m.end()),
            owner.name if owner else None, m.start() - owner.offset if owner else m.start(),
        ))


@lru_cache(maxsize=64)
def _load_cached(key: tuple[tuple[str, float], ...], defines: tuple[str, ...] = ()) -> Program:
    paths = [Path(p) for p, _ in key]
    root = paths[0].parent if paths else Path(".")
    prog = Program(root)
    for p in paths:
        try:
            raw = p.read_bytes()
        except OSError as e:
            raise InputFileError(f"cannot read source {p}: {e}") from None
        check_source_size(p, len(raw))  # it may have grown since it was listed
        if b"\0" in raw[:4096]:
            raise InputFileError(f"source {p} is binary, expected C/C++/CUDA text")
        prog.files[p.name] = strip_comments(raw.decode("utf-8", errors="replace"))
    joined = {k: re.sub(r"\\\r?\n", " ", v) for k, v in prog.files.items()}
    defined = set(PREDEFINED)
    values = dict(PREDEFINED)
    for d in defines:  # the build's -D: before the files' own #defines
        name, _, val = d.partition("=")
        defined.add(name)
        values[name] = val if "=" in d else "1"
    for text in joined.values():
        for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]*(.*)$", text, re.M):
            defined.add(m.group(1))
            values.setdefault(m.group(1), m.group(2).strip())
    prog.files = {k: resolve_conditionals(v, defined, values) for k, v in prog.files.items()}
    statements = stmt_macros(prog.files)
    prog.files = {k: expand_stmt_macros(v, statements) for k, v in prog.files.items()}
    macros = fn_macros(prog.files)
    if macros:
        prog.files = {k: expand_fn_macros(v, macros) for k, v in prog.files.items()}
    for name, text in prog.files.items():
        for m in OBJECT_DEFINE.finditer(text.replace("\\\n", " ")):
            val = m.group(2).strip()
            if val:
                prog.macros.setdefault(m.group(1), val)
        _scan_functions(text, name, prog)
    for fs in list(prog.functions.values()):
        for f in fs:
            _scan_launches(f, prog)
    for name, text in prog.files.items():
        if "omp" in text and "target" in text:
            _scan_omp(text, name, prog)
    return prog


def source_files(sources: tuple[Path, ...]) -> list[Path]:
    files: list[Path] = []
    for s in sources:
        if s.is_dir():
            files += sorted(p for p in s.rglob("*") if p.suffix.lower() in SOURCE_SUFFIXES
                            and p.is_file())
        elif s.is_file():
            files.append(s)
        elif s.exists():
            raise InputFileError(f"source {str(s)!r} is not a regular file (a device, FIFO or "
                                 "socket); expected a C/C++/CUDA/OpenCL source file or folder")
        else:
            raise InputFileError(f"source {str(s)!r} does not exist")
    for p in list(files):
        try:
            st = check_regular_source(p)
        except InputFileError as e:
            if p in sources:
                raise
            log.warning("skipped: %s", e)  # a link into /proc in a folder, as `kernels` does
            files.remove(p)
            continue
        check_source_size(p, st.st_size)
        if (st.st_size > MAX_SCANNED_HEADER_BYTES and p not in sources
                and p.suffix.lower() in _HEADER_SUFFIXES):
            if p not in _WARNED:
                _WARNED.add(p)
                log.warning("header %s (%d bytes) not scanned: over %d bytes", p, st.st_size,
                            MAX_SCANNED_HEADER_BYTES)
            files.remove(p)
    if not files:
        raise SourceError(
            f"no C/C++/CUDA/OpenCL source files in {[str(s) for s in sources]} "
            f"(looked for {', '.join(SOURCE_SUFFIXES)})"
        )
    return files


def load_program(sources: tuple[Path, ...] | list[Path] | Path,
                 defines: Iterable[str] = ()) -> Program:
    """Scan a program folder or a list of files (cached on paths, modification times and
    *defines*, the build's ``NAME[=VALUE]`` definitions that ``#if`` branches see)."""
    if isinstance(sources, Path):
        sources = (sources,)
    files = source_files(tuple(Path(s) for s in sources))
    return _load_cached(tuple((str(p.resolve()), p.stat().st_mtime) for p in files),
                        tuple(defines))
