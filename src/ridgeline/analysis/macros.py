"""The preprocessor as far as the text front end needs it: ``#if`` branches resolved against
what a device compilation and the build define, statement-like and function-like macros
expanded (each bounded by the input limits)."""

from __future__ import annotations

import logging
import re
import warnings
from dataclasses import dataclass

from ridgeline.analysis.argeval import Env, try_evaluate
from ridgeline.analysis.text import match_paren
from ridgeline.limits import MAX_EXPANDED_BYTES, MAX_MACRO_EXPANSIONS
from ridgeline.sources._text import split_top_level as split_top

log = logging.getLogger(__name__)

__all__ = ["OBJECT_DEFINE", "PREDEFINED", "expand_fn_macros", "expand_stmt_macros", "fn_macros",
           "resolve_conditionals", "stmt_macros"]

_FN_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)[ \t]*(.*)$", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n\\]|\\(?!\r?\n))*(?:\\\r?\n(?:[^\n\\]|\\(?!\r?\n))*)*",
                        re.M)
#: an object-like ``#define NAME value`` line
OBJECT_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)

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
        for m in OBJECT_DEFINE.finditer(re.sub(r"\\\r?\n", " ", text)):
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
