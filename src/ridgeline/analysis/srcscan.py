"""A light text front end over a program's sources: functions, kernels, launch sites, macros.

It needs no compiler and no libclang, so ``ridgeline predict`` runs on a base install. It is
deliberately simple (comments stripped, braces matched, regular expressions for headers);
what it cannot find it reports as missing instead of guessing.
"""

from __future__ import annotations

import itertools
import logging
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ridgeline.errors import InputFileError, KernelNotFoundError, SourceError
from ridgeline.limits import (
    MAX_EXPANDED_BYTES,
    MAX_MACRO_EXPANSIONS,
    MAX_SCANNED_HEADER_BYTES,
    check_regular_source,
    check_source_size,
)
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
    "match_paren",
    "split_top",
    "strip_comments",
    "expand_fn_macros",
    "expand_stmt_macros",
    "fn_macros",
    "stmt_macros",
    "resolve_conditionals",
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
_FN_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)[ \t]*(.*)$", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n\\]|\\(?!\r?\n))*(?:\\\r?\n(?:[^\n\\]|\\(?!\r?\n))*)*",
                        re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)


def strip_comments(text: str) -> str:
    """Remove // and /* */ comments, keeping strings and line numbers."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in "/\"'":
                j += 1
            out.append(text[i:max(j, i + 1)])
            i = max(j, i + 1)
    return "".join(out)


def match_paren(text: str, start: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the bracket matching the one at *start* (or -1).

    Callers ask for every bracket of a text in turn (each subscript of a statement, each
    call); scanning from each would take time quadratic in the nesting (`a[a[a[...]]]`, or
    many openings never closed). The pairs of a text are found once, in one pass over its
    brackets, and kept for the texts asked about last."""
    if start < len(text) and text[start] == open_ and open_ != close:
        return _bracket_pairs(text, open_, close).get(start, -1)
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


@lru_cache(maxsize=8)
def _bracket_pairs(text: str, open_: str, close: str) -> dict[int, int]:
    """Each *open_* of *text* that is closed -> the index just past its *close*."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for m in re.finditer(f"[{re.escape(open_ + close)}]", text):
        if m.group() == open_:
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.end()
    return pairs



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


_COND = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
#: what a device compilation defines (an unknown name in `#if` is 0, as in C)
PREDEFINED = {"__CUDACC__": "1", "__CUDA_ARCH__": "800", "_OPENMP": "201811",
              "__cplusplus": "201703", "__NVCC__": "1"}


def _cond_value(kind: str, expr: str, defined: set[str], values: dict[str, str],
                next_line: str) -> bool | None:
    expr = expr.strip()
    if kind in ("ifdef", "ifndef"):
        name = expr.split()[0] if expr.split() else ""
        if kind == "ifndef" and re.match(rf"\s*#\s*define\s+{re.escape(name)}\b", next_line):
            return True  # an include guard
        return (name in defined) == (kind == "ifdef")
    from ridgeline.analysis.argeval import Env, try_evaluate

    e = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)",
               lambda m: "1" if (m.group(1) or m.group(2)) in defined else "0", expr)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = re.sub(r"\b[A-Za-z_]\w*\b",
               lambda m: m.group(0) if m.group(0) in ("and", "or", "not") else
               values.get(m.group(0), "0") if re.fullmatch(r"[-+]?\d+[uUlL]*",
                                                            values.get(m.group(0), "0")) else "0",
               e)
    e = re.sub(r"(\d+)[uUlL]+\b", r"\1", e)
    try:
        if not re.fullmatch(r"[\d\s()+\-*/%<>=!andortx]*", e):
            return None
        with warnings.catch_warnings():  # e.g. "1or 0": a SyntaxWarning, then read fine
            warnings.simplefilter("ignore", SyntaxWarning)
            return bool(eval(e, {"__builtins__": {}}, {}))  # noqa: S307 (digits, operators)
    except Exception:  # noqa: BLE001 (an expression we cannot read: unknown)
        v = try_evaluate(e, Env())
        return None if v is None else bool(v)


def resolve_conditionals(text: str, defined: set[str], values: dict[str, str]) -> str:
    """Blank the inactive branches of #if/#ifdef/#ifndef (line count kept). Names count as
    defined when the program #defines them anywhere (or :data:`PREDEFINED`); a condition
    that cannot be read keeps its first branch."""
    if "#" not in text:
        return text
    lines = text.split("\n")
    stack: list[tuple[bool, bool]] = []  # (this branch active, some branch taken)
    active, off = True, 0  # off: branches on the stack not taken
    for i, line in enumerate(lines):
        m = _COND.match(line)
        if not m:
            if not active:
                lines[i] = ""
            continue
        kind, rest = m.group(1), m.group(2)
        nxt = next((x for x in lines[i + 1:i + 3] if x.strip()), "")
        if stack and kind in ("elif", "else", "endif"):
            off -= not stack[-1][0]  # the innermost branch changes or ends
        if kind in ("if", "ifdef", "ifndef"):
            v = _cond_value(kind, rest, defined, values, nxt)
            take = True if v is None else v
            stack.append((take, take))
        elif kind == "elif" and stack:
            _, taken = stack[-1]
            v = _cond_value("if", rest, defined, values, nxt)
            take = not taken and (v is None or v)
            stack[-1] = (take, taken or take)
        elif kind == "else" and stack:
            stack[-1] = (not stack[-1][1], True)
        elif kind == "endif" and stack:
            stack.pop()
        if stack and kind != "endif":
            off += not stack[-1][0]
        active = off == 0  # all(stack) per line would be quadratic in the nesting depth
        lines[i] = ""
    return "\n".join(lines)


@dataclass(frozen=True)
class _FnMacro:
    params: tuple[str, ...]
    body: str


def fn_macros(files: dict[str, str]) -> dict[str, _FnMacro]:
    """Function-like macros of all files (first definition wins, as for object-like ones)."""
    out: dict[str, _FnMacro] = {}
    for text in files.values():
        for m in _FN_DEFINE.finditer(re.sub(r"\\\r?\n", " ", text)):
            params = tuple(p.strip() for p in m.group(2).split(",") if p.strip())
            if m.group(3).strip():
                out.setdefault(m.group(1), _FnMacro(params, m.group(3).strip()))
    return out


def _substitute(mac: _FnMacro, args: list[str]) -> str:
    vals = dict(zip(mac.params, args, strict=False))
    if mac.params and mac.params[-1] == "...":
        vals["__VA_ARGS__"] = ", ".join(args[len(mac.params) - 1:])
    if not vals:
        return mac.body
    names = "|".join(re.escape(k) for k in sorted(vals, key=len, reverse=True))
    body = re.sub(rf"#\s*({names})\b", lambda m: '"' + vals[m.group(1)] + '"', mac.body)
    body = re.sub(rf"\b({names})\b", lambda m: vals[m.group(1)], body)
    return re.sub(r"\s*##\s*", "", body)


def expand_fn_macros(text: str, macros: dict[str, _FnMacro], passes: int = 3) -> str:
    """*text* with function-like macro invocations expanded outside preprocessor lines.

    Newlines inside an invocation are kept after its expansion, so line numbers hold; a
    macro that mentions its own name is left alone (no recursion). At most
    :data:`~ridgeline.limits.MAX_MACRO_EXPANSIONS` invocations are expanded, and none once the
    text would grow past :data:`~ridgeline.limits.MAX_EXPANDED_BYTES` (a warning is logged;
    the rest stays unexpanded)."""
    usable = {k: v for k, v in macros.items() if not re.search(rf"\b{re.escape(k)}\b", v.body)}
    if not usable:
        return text
    call = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(usable, key=len,
                                                                      reverse=True)) + r")\s*\(")
    done = 0
    for _ in range(passes):
        text, n = _expand_pass(text, call, usable, MAX_MACRO_EXPANSIONS - done)
        done += n
        if not n:
            break
    return text


_STATEMENT = re.compile(r"^\s*(?:\{|do\b|if\b|for\b|while\b)|;|[^=!<>+\-*/%&|^]=(?!=)")


def stmt_macros(files: dict[str, str]) -> dict[str, str]:
    """Object-like macros whose value is a statement (`#define BODY y[i] = a * x[i]`, a
    block, a loop): code to count where they are used, unlike constants and type names."""
    out: dict[str, str] = {}
    for text in files.values():
        for m in _DEFINE.finditer(re.sub(r"\\\r?\n", " ", text)):
            val = m.group(2).strip()
            if val and _STATEMENT.search(val):
                out.setdefault(m.group(1), val)
    return out


def expand_stmt_macros(text: str, macros: dict[str, str]) -> str:
    """*text* with statement macros replaced by their values outside preprocessor lines."""
    if not macros:
        return text
    use = re.compile(r"\b(" + "|".join(re.escape(k) for k in macros) + r")\b(?!\s*\()")
    skip = [(d.start(), d.end()) for d in _DIRECTIVE.finditer(text)]
    out, pos, si, size = [], 0, 0, len(text)
    for m in use.finditer(text):
        while si < len(skip) and skip[si][1] <= m.start():
            si += 1
        if si < len(skip) and skip[si][0] <= m.start():
            continue
        size += len(macros[m.group(1)]) - (m.end() - m.start())
        if size > MAX_EXPANDED_BYTES:
            log.warning("statement macro expansion stopped at %s: the text would pass %d "
                        "bytes; the rest of the file is read unexpanded", m.group(1),
                        MAX_EXPANDED_BYTES)
            break
        out += [text[pos:m.start()], macros[m.group(1)]]
        pos = m.end()
    return "".join(out) + text[pos:]


def _expand_pass(text: str, call: re.Pattern[str], usable: dict[str, _FnMacro],
                 budget: int) -> tuple[str, int]:
    """One left-to-right expansion pass: (new text, invocations expanded)."""
    skip = [(d.start(), d.end()) for d in _DIRECTIVE.finditer(text)]
    out: list[str] = []
    pos, si, done, size = 0, 0, 0, len(text)
    for m in call.finditer(text):
        if m.start() < pos or done >= budget:
            continue
        while si < len(skip) and skip[si][1] <= m.start():
            si += 1
        if si < len(skip) and skip[si][0] <= m.start():
            continue
        end = match_paren(text, m.end() - 1)
        if end < 0:
            continue
        inner = text[m.end():end - 1]
        args = split_top(inner) if inner.strip() else []
        new = _substitute(usable[m.group(1)], [" ".join(a.split()) for a in args])
        new += "\n" * text.count("\n", m.start(), end)
        if size + len(new) - (end - m.start()) > MAX_EXPANDED_BYTES:
            log.warning("macro expansion stopped at %s(...): the text would pass %d bytes; "
                        "the rest of the file is read unexpanded", m.group(1), MAX_EXPANDED_BYTES)
            budget = done
            continue
        out += (text[pos:m.start()], new)
        size += len(new) - (end - m.start())
        pos = end
        done += 1
    if not done:
        return text, 0
    out.append(text[pos:])
    return "".join(out), done


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
        for m in _DEFINE.finditer(text.replace("\\\n", " ")):
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
