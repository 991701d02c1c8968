"""Loop headers -> symbolic trip counts; classification of expressions by what they depend on."""

from __future__ import annotations

import re

__all__ = ["LAUNCH_NAMES", "parse_for_header", "trip_count", "identifiers", "depends_on"]

LAUNCH_NAMES = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "get_global_id",
                "get_local_id", "get_group_id", "get_global_size", "get_local_size",
                "get_num_groups", "omp_get_thread_num", "omp_get_team_num",
                "omp_get_num_threads", "omp_get_num_teams"}
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
_KEYWORDS = {"int", "unsigned", "long", "short", "char", "size_t", "float", "double", "const",
             "auto", "sizeof", "true", "false", "uint", "ulong", "bool", "signed", "static_cast",
             "int64_t", "uint64_t", "int32_t", "uint32_t", "x", "y", "z"}


def parse_for_header(text: str) -> tuple[str, str, str] | None:
    """``for (init; cond; inc) ...`` -> (init, cond, inc) as text, or None."""
    m = re.match(r"\s*for\s*\(", text)
    if not m:
        return None
    depth, i = 1, m.end()
    parts: list[str] = []
    cur: list[str] = []
    while i < len(text) and depth:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        if c == ";" and depth == 1:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    if len(parts) != 3:
        return None
    return tuple(" ".join(p.split()) for p in parts)  # type: ignore[return-value]


_INIT_RE = re.compile(r"^(?:[\w:<>\s\*]*?\s)?(\w+)\s*=\s*(.+)$")
_COND_RE = re.compile(r"^\(?\s*(\w+)\s*(<=|<|>=|>|!=)\s*(.+?)\)?$")


def _step(inc: str, var: str) -> tuple[str, str] | None:
    """(kind, amount): kind 'add' / 'sub' / 'mul' / 'div'."""
    inc = inc.replace(" ", "")
    if inc in (f"{var}++", f"++{var}"):
        return "add", "1"
    if inc in (f"{var}--", f"--{var}"):
        return "sub", "1"
    for op, kind in (("+=", "add"), ("-=", "sub"), ("*=", "mul"), ("/=", "div"),
                     ("<<=", "mul"), (">>=", "div")):
        if inc.startswith(var + op):
            amt = inc[len(var) + len(op):]
            if op in ("<<=", ">>="):
                amt = f"(1<<{amt})"
            return kind, amt
    m = re.match(rf"^{var}=(.+)$", inc)
    if m:
        rhs = m.group(1)
        for sym, kind in (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div")):
            if rhs.startswith(var + sym):
                return kind, rhs[len(var) + 1:]
            if sym in "+*" and rhs.endswith(sym + var):
                return kind, rhs[: -len(var) - 1]
    return None


def trip_count(init: str, cond: str, inc: str) -> tuple[str | None, str | None]:
    """Symbolic trip count of a for loop, and its induction variable (None when unknown)."""
    mi = _INIT_RE.match(init.strip())
    mc = _COND_RE.match(cond.strip())
    if not mc:
        return None, (mi.group(1) if mi else None)
    var, op, bound = mc.group(1), mc.group(2), mc.group(3).strip()
    start = mi.group(2).strip() if mi and mi.group(1) == var else (None if init.strip() else var)
    st = _step(inc, var)
    if start is None or st is None:
        return None, var
    kind, amt = st
    if kind == "add" and op in ("<", "<=", "!="):
        span = bound if start == "0" else f"({bound}) - ({start})"
        span += " + 1" if op == "<=" else ""
        return (f"ceil(({span}) / ({amt}))" if amt != "1" else f"({span})"), var
    if kind == "sub" and op in (">", ">="):
        span = f"({start}) - ({bound})" + (" + 1" if op == ">=" else "")
        return (f"ceil(({span}) / ({amt}))" if amt != "1" else f"({span})"), var
    if kind == "mul" and op in ("<", "<="):
        return f"ceil(log(({bound}) / ({start})) / log({amt}))", var
    if kind == "div" and op in (">", ">="):
        return f"ceil(log(({start}) / ({bound})) / log({amt}))", var
    return None, var


def identifiers(expr: str) -> list[str]:
    return [m for m in _IDENT.findall(expr) if m not in _KEYWORDS]


def depends_on(expr: str | None, params: set[str], locals_: set[str]) -> list[str]:
    """What an expression depends on: 'param', 'launch', 'local', 'const' (sorted)."""
    if expr is None:
        return ["unknown"]
    out = set()
    for name in identifiers(expr):
        if name in LAUNCH_NAMES:
            out.add("launch")
        elif name in params:
            out.add("param")
        elif name in {"ceil", "log", "min", "max"}:
            continue
        elif name in locals_:
            out.add("local")
        else:
            out.add("const")  # macros, globals, enum constants
    return sorted(out) or ["const"]
