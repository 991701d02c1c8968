"""What a kernel sees beyond its own body, read from the program's text: type aliases and
template arguments, the functions it calls, file-scope arrays and pointers, the memory the
host allocates or maps for it (its footprint) and the copies an SPMD region runs."""


import math
import re

from ridgeline.analysis.argeval import TYPE_SIZES, Env, try_evaluate
from ridgeline.analysis.declscan import declared_types
from ridgeline.analysis.hostenv import _cached, host_env
from ridgeline.analysis.kernelstats import Callees, Stats, resolve_type
from ridgeline.analysis.srcscan import (
    Function,
    Program,
)
from ridgeline.analysis.srcscan import Launch as Site
from ridgeline.analysis.text import match_paren
from ridgeline.launch import Dim3
from ridgeline.sources._text import split_top_level as split_top

__all__ = ["cuda_footprint", "kernel_callees", "omp_footprint", "scope_pointers", "spmd_copies"]

_TYPEDEF = re.compile(r"\btypedef\s+(?:const\s+)?([A-Za-z_][\w:]*)\s+([A-Za-z_]\w*)\s*;")
_USING = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=\s*(?:const\s+)?([A-Za-z_][\w:]*)\s*;")
_TEMPLATE = re.compile(r"template\s*<(.*)>", re.S)
#: Itanium mangling of builtin template arguments (`_Z15upperMaskKernelIiEv...` -> int)
_MANGLED = {"f": "float", "d": "double", "i": "int", "j": "unsigned", "l": "long",
            "m": "unsigned long", "x": "long long", "y": "unsigned long long", "s": "short",
            "t": "unsigned short", "c": "char", "h": "unsigned char", "b": "bool"}


def _program_aliases(prog: Program) -> tuple[dict[str, str], str]:
    """Type names the program defines (typedef, using, object-like macros naming a type) and
    its dominant floating type (the one template parameters default to); once per program."""
    aliases, dominant = _cached(("aliases", prog.serial), lambda: _scan_aliases(prog))
    return dict(aliases), dominant


def _scan_aliases(prog: Program) -> tuple[dict[str, str], str]:
    aliases: dict[str, str] = {}
    n_float = n_double = 0
    for text in prog.files.values():
        for m in _TYPEDEF.finditer(text):
            aliases.setdefault(m.group(2), m.group(1))
        for m in _USING.finditer(text):
            aliases.setdefault(m.group(1), m.group(2))
        n_float += len(re.findall(r"\bfloat\b", text))
        n_double += len(re.findall(r"\bdouble\b", text))
    for name, val in prog.macros.items():  # types (`FP float`) and names (`SQRT sqrtf`)
        if re.fullmatch(r"[A-Za-z_]\w*", val):
            aliases.setdefault(name, val)
    return aliases, "double" if n_double > n_float else "float"


def _template_params(qualifiers: str) -> list[str]:
    m = _TEMPLATE.search(qualifiers)
    if not m:
        return []
    return [p.split()[-1] for p in split_top(m.group(1))
            if re.match(r"\s*(typename|class)\b", p) and len(p.split()) >= 2]


def kernel_callees(prog: Program, fn: Function | None, targs: str = "", mangled: str = "",
             notes: list[str] | None = None) -> Callees:
    """Functions a kernel body may call, and its type names: template parameters from the
    launch's explicit arguments, the mangled region name, or the program's dominant floating
    type (said in *notes*)."""
    aliases, dominant = _program_aliases(prog)
    if fn is not None:
        params = _template_params(fn.qualifiers)
        given = [a for a in split_top(targs) if a] if targs else []
        code = re.search(r"I([a-z])E", mangled) if mangled else None
        for i, name in enumerate(params):
            if i < len(given):
                aliases[name] = given[i]
            elif i == 0 and code and code.group(1) in _MANGLED:
                aliases[name] = _MANGLED[code.group(1)]
            else:
                aliases[name] = dominant
                if notes is not None:
                    notes.append(f"template parameter {name} of {fn.name} taken as {dominant} "
                                 "(the program's dominant floating type)")
    functions = {name: fs[0] for name, fs in prog.functions.items()
                 if not fs[0].is_kernel and name != "main"}
    return Callees(functions, aliases)


def _file_scope(text: str) -> str:
    """The text outside every brace pair (declarations at file scope)."""
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def scope_pointers(prog: Program) -> dict[str, str]:
    """Arrays and pointers declared at file scope in any of the program's files."""
    def scan() -> dict[str, str]:
        out: dict[str, str] = {}
        for text in prog.files.values():
            for k, v in declared_types(_file_scope(text), [], arrays=True)[1].items():
                out.setdefault(k, v)
        return out

    found: dict[str, str] = _cached(("scope-pointers", prog.serial), scan)
    return found


_MALLOC = re.compile(r"\b(?:cudaMalloc|cudaMallocManaged|hipMalloc)\s*\(\s*"
                     r"(?:\(\s*\w+\s*\*\s*\*\s*\)\s*)?&\s*([A-Za-z_]\w*)\s*,")
_MAP_CLAUSE = re.compile(r"\bmap\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
#: `name[lo:len][...]` in a map clause: a name tried from its word's start only and read
#: possessively (from every letter of a long word the old pattern reread the word), its
#: sections without brackets inside (each `[` ends a try)
_MAP_ITEM = re.compile(r"(?<!\w)(?:(?![A-Za-z_])\w)*+([A-Za-z_]\w*+)((?:\s*\[[^\[\]]*\])+)")


def _malloc_sizes(prog: Program, argv: list[str]) -> dict[str, float]:
    """Device buffer name -> bytes, from every cudaMalloc whose size evaluates."""
    found: dict[str, float] = _cached(("mallocs", prog.serial, tuple(argv)),
                                      lambda: _scan_mallocs(prog, argv))
    return found


def _scan_mallocs(prog: Program, argv: list[str]) -> dict[str, float]:
    sizes: dict[str, float] = {}
    for fs in prog.functions.values():
        for f in fs:
            for m in _MALLOC.finditer(f.body):
                end = match_paren(f.body, f.body.index("(", m.start()))
                if end < 0 or m.group(1) in sizes:
                    continue
                expr = f.body[m.end():end - 1]
                v = try_evaluate(expr, host_env(prog, f, m.start(), argv))
                if isinstance(v, int | float) and math.isfinite(v) and v > 0:
                    sizes[m.group(1)] = float(v)
    return sizes


def cuda_footprint(prog: Program, fn: Function, site: Site | None, stats: Stats,
                    argv: list[str]) -> float:
    """Bytes of the cudaMalloc'd buffers passed to the kernel, once per direction used
    (a buffer that is read and written counts twice); NaN when none evaluates."""
    if site is None:
        return float("nan")
    sizes = _malloc_sizes(prog, argv)
    total, found = 0.0, False
    for prm, arg in zip(fn.params, site.args, strict=False):
        name = re.sub(r"^\s*(?:\([^()]*\)\s*)*&?\s*", "", arg).strip()
        name = re.sub(r"\s*\+.*$", "", name)
        if prm.pointer and name in sizes:
            uses = (prm.name in stats.read) + (prm.name in stats.written)
            total, found = total + sizes[name] * uses, True
    return total if found else float("nan")


def omp_footprint(fn: Function | None, pragma: str, stats: Stats, env: Env,
                   pointers: dict[str, str]) -> float:
    """Bytes mapped for the arrays the region uses (its own and its function's map clauses)."""
    texts = [pragma] + ([fn.body] if fn is not None else [])
    sizes: dict[str, float] = {}
    for text in texts:
        for clause in _MAP_CLAUSE.finditer(text):
            for item in _MAP_ITEM.finditer(clause.group(1)):
                name = item.group(1)
                if name in sizes or name not in stats.read | stats.written:
                    continue
                n: float | None = 1.0
                for section in re.findall(r"\[([^\]]*)\]", item.group(2)):
                    length = try_evaluate(section.split(":", 1)[1], env) if ":" in section \
                        else None
                    n = n * float(length) if isinstance(length, int | float) and n else None
                if n is not None and math.isfinite(n) and n > 0:
                    elem = TYPE_SIZES.get(resolve_type(pointers.get(name, "float"), {}), 4)
                    uses = (name in stats.read) + (name in stats.written)
                    sizes[name] = n * elem * uses
    return sum(sizes.values()) if sizes else float("nan")


def spmd_copies(pragma: str, body: str, grid: Dim3 | None, block: Dim3 | None,
                 notes: list[str]) -> float:
    """How many times a target region's body runs: once for a work-shared loop nest, once per
    team for `teams` without `distribute` (SPMD by team number), and once per thread as well
    when the body opens a plain `parallel` block."""
    words = set(re.findall(r"[a-z_]+", pragma.split("(")[0]))
    if "teams" not in words or "distribute" in words or grid is None:
        return 1.0
    copies = float(math.prod(grid))
    inner = re.search(r"#\s*pragma\s+omp\s+parallel\b(?!\s+for)(?![^\n]*\bfor\b)", body)
    if inner and block is not None:
        copies *= float(math.prod(block))
    notes.append(f"SPMD target region: body counted {copies:.0f} times (teams"
                 + (" x threads)" if inner else ")"))
    return copies
