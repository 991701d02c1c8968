"""Host-side values: what a program's variables hold at a launch site, given its argv.

Walks the statements of the function holding the launch (and, one call level up, of its
callers) in order: declarations, assignments, ``dim3`` constructors, ``sscanf(argv[i]...)``.
Branches on ``argc`` are followed when their condition can be evaluated; loop bodies are not
(a value changed inside a loop is unknown, not guessed).
"""

from __future__ import annotations

import re
from typing import Any

from ridgeline.analysis.argeval import Env, Unevaluable, evaluate, split_args, try_evaluate
from ridgeline.analysis.srcscan import Function, Program
from ridgeline.analysis.text import match_paren
from ridgeline.sources._text import split_top_level as split_top

__all__ = ["host_env", "launch_values", "bind_params"]

_TYPE_WORDS = (r"(?:(?:static|const|constexpr|unsigned|signed|long|short|volatile|register)\s+)*"
               r"(?:int|long|size_t|std::size_t|float|double|unsigned|auto|u?int(?:8|16|32|64)_t|"
               r"char|bool|uint|short|real|FP|Real|dim3)\b(?:\s+(?:long|int))*")
_DECL = re.compile(rf"^{_TYPE_WORDS}\s+(?P<rest>[A-Za-z_].*)$", re.S)
_ASSIGN = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*(?P<op>[-+*/%]|<<|>>)?=(?!=)\s*(?P<expr>.+)$",
                     re.S)
_SSCANF = re.compile(r"sscanf\s*\(\s*argv\s*\[\s*(\d+)\s*\]\s*,\s*\"%[a-z]+\"\s*,\s*&\s*(\w+)")
_GLOBAL_CONST = re.compile(
    r"^[ \t]*(?:static\s+)?(?:const|constexpr)\s+(?:static\s+)?[\w:]+(?:\s+\w+)?\s+([A-Za-z_]\w*)"
    r"\s*=\s*([^;{]+);", re.M)
_MAX_DEPTH = 3


_CACHE: dict[tuple[Any, ...], Any] = {}


def _cached(key: tuple[Any, ...], make: Any) -> Any:
    if key not in _CACHE:
        if len(_CACHE) > 20000:
            _CACHE.clear()
        _CACHE[key] = make()
    return _CACHE[key]


def _globals(prog: Program) -> dict[str, str]:
    return dict(_cached(("globals", prog.serial), lambda: _globals_uncached(prog)))


def _globals_uncached(prog: Program) -> dict[str, str]:
    out = dict(prog.macros)
    for text in prog.files.values():
        for m in _GLOBAL_CONST.finditer(text):
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def _statements(body: str) -> list[tuple[str, str]]:
    """(kind, text) items: ("stmt", s), ("open", header), ("close", "")."""
    out: list[tuple[str, str]] = []
    cur: list[str] = []
    depth = 0
    for ch in body:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if depth == 0 and ch in ";{}":
            text = "".join(cur).strip()
            cur = []
            if ch == ";":
                out.append(("stmt", text))
            elif ch == "{":
                out.append(("open", text))
            else:
                if text:
                    out.append(("stmt", text))
                out.append(("close", ""))
        else:
            cur.append(ch)
    return out


def _assign(stmt: str, env: Env) -> None:
    m_if = re.match(r"(?:else\s+)?if\s*\(", stmt)
    if m_if:
        close = match_paren(stmt, m_if.end() - 1)
        if close < 0:
            return
        cond = try_evaluate(stmt[m_if.end():close - 1], env)
        if cond is not None and not cond:
            return
        stmt = stmt[close:].strip()
    for sm in _SSCANF.finditer(stmt):
        env.vars[sm.group(2)] = try_evaluate(f"atof(argv[{sm.group(1)}])", env)
    dm0 = _DECL.match(stmt)
    if dm0:
        for decl in split_top(dm0.group("rest")):
            dm = re.match(r"([A-Za-z_]\w*)\s*(?:=\s*(.+)|\((.*)\)|\{(.*)\})?$", decl, re.S)
            if not dm:
                continue
            name = dm.group(1)
            expr = dm.group(2) or dm.group(3) or dm.group(4)
            if "dim3" in stmt.split(name)[0] and (dm.group(3) or dm.group(4)):
                expr = f"dim3({expr})"
            env.vars[name] = try_evaluate(expr, env) if expr else None
        return
    am = _ASSIGN.match(stmt)
    if am:
        name, op, expr = am.group("name"), am.group("op"), am.group("expr")
        if op:
            expr = f"({name}) {op} ({expr})"
        env.vars[name] = try_evaluate(expr, env)


def _walk(body: str, env: Env) -> None:
    stack: list[bool] = []  # per open block: are its assignments taken?
    dead = 0  # blocks on the stack not taken (all(stack) per statement is quadratic)
    last_if: bool | None = None
    for kind, text in _statements(body):
        live = dead == 0
        if kind == "open":
            take = live
            if re.match(r"for\s*\(", text):
                # a launch inside a loop sees the loop variable at its first value
                if live:
                    _assign(text[text.index("(") + 1:].split(";")[0], env)
            elif re.match(r"(while|do)\b", text):
                pass
            elif text.endswith(")") and "[" in text:
                take = False  # a lambda body
            elif re.match(r"if\s*\(", text):
                cond = try_evaluate(text[text.index("(") + 1:text.rindex(")")], env)
                take = live and (cond is None or bool(cond))
                last_if = None if cond is None else bool(cond)
            elif re.match(r"else\b", text):
                take = live and last_if is not True
            stack.append(take)
            dead += not take
        elif kind == "close":
            if stack:
                dead -= not stack.pop()
        elif live and text:
            if re.match(r"(for|while)\s*\(", text):
                continue
            _assign(text, env)
    env.vars = {k: v for k, v in env.vars.items() if v is not None}


def _call_args(prog: Program, fn: Function, depth: int, argv: list[str]) -> Env | None:
    """Env holding *fn*'s parameters, from the first call site that evaluates."""
    pat = re.compile(rf"\b{re.escape(fn.name)}\s*(?:<[^;<>]*>)?\s*\(")
    for callers in prog.functions.values():
        for caller in callers:
            if caller is fn:
                continue
            for m in pat.finditer(caller.body):
                pe = match_paren(caller.body, m.end() - 1)
                if pe < 0:
                    continue
                args = split_top(caller.body[m.end():pe - 1])
                if len(args) != len(fn.params):
                    continue
                cenv = host_env(prog, caller, m.start(), argv, depth + 1)
                vals = {p.name: try_evaluate(a, cenv) for p, a in zip(fn.params, args,
                                                                        strict=True)}
                return Env({k: v for k, v in vals.items() if v is not None}, cenv.macros, argv)
    return None


def host_env(prog: Program, fn: Function | None, offset: int, argv: list[str],
             depth: int = 0) -> Env:
    """Variables' values just before *offset* in *fn*'s body."""
    key = ("env", prog.serial, id(fn), offset, tuple(argv), depth)
    env = _cached(key, lambda: _host_env(prog, fn, offset, argv, depth))
    return Env(dict(env.vars), env.macros, env.argv)


def _host_env(prog: Program, fn: Function | None, offset: int, argv: list[str],
              depth: int) -> Env:
    env = Env({}, _globals(prog), argv)
    if fn is None:
        return env
    if fn.name != "main" and depth < _MAX_DEPTH:
        called = _call_args(prog, fn, depth, argv)
        if called is not None:
            env.vars.update(called.vars)
    _walk(fn.body[:offset], env)
    return env


def launch_values(prog: Program, fn: Function | None, offset: int, args: str) -> Env:
    return host_env(prog, fn, offset, split_args(args))


def bind_params(params: list[Any], exprs: list[str], env: Env) -> dict[str, Any]:
    """Kernel parameter name -> value for the launch arguments that evaluate."""
    out: dict[str, Any] = {}
    for p, e in zip(params, exprs, strict=False):
        try:
            v = evaluate(e, env)
        except Unevaluable:
            continue
        if isinstance(v, int | float):
            out[p.name] = v
    return out
