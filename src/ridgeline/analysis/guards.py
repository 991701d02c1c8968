"""How many of a launch's threads pass the kernel's bounds guard and do the work.

A grid is rounded up to whole blocks, so kernels begin with a guard: ``if (i >= n) return;``,
``if (i < n) { ... }`` around the body, ``if (x < w && y < h)`` in 2-D. The guard counts when
only scalar set-up comes before it (an ``if (tid < 32)`` after a reduction's loads guards a
tail, not the kernel). Each comparison of a thread-dependent value ``v`` with a bound ``n``
keeps the threads whose ``v`` is in range; ``v`` is evaluated at the first and last thread
along the launch axes it depends on, so ``blockIdx.x * blockDim.x + threadIdx.x`` keeps
``min(grid.x * block.x, n)`` threads and ``threadIdx.x`` keeps ``min(block.x, n)`` per block.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ridgeline.analysis.argeval import Dim, Env, try_evaluate
from ridgeline.analysis.text import match_paren
from ridgeline.launch import Dim3
from ridgeline.sources._text import split_top_level as split_top

__all__ = ["active_threads", "spmd_active_threads"]

_AXES = [("threadIdx", "x"), ("threadIdx", "y"), ("threadIdx", "z"),
         ("blockIdx", "x"), ("blockIdx", "y"), ("blockIdx", "z")]
_HEAD = re.compile(r"(if|for|while|switch)\s*\(|do\b|\{|#")
_ASSIGN = re.compile(r"^(?:[A-Za-z_][\w:<>]*[\s*&]+)*?([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.S)
_WORK = re.compile(r"\[|__syncthreads|\batomic|\bbarrier\b")
#: a local or shared array declared (`float e[3];`, `__shared__ float s[256];`): no work
_ARRAY_DECL = re.compile(r"(?:[A-Za-z_][\w:<>]*\s+)+[A-Za-z_]\w*\s*(?:\[[^\[\]]*\]\s*)+"
                         r"(?:=\s*\{[^{}]*\}\s*)?;?")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _statement_end(text: str, i: int) -> int:
    """End of the statement starting at *i* (a block, a compound statement, or up to ';')."""
    if text.startswith("{", i):
        end = match_paren(text, i, "{", "}")
        return end if end > 0 else len(text)
    if text.startswith("#", i):
        nl = text.find("\n", i)
        return nl if nl > 0 else len(text)
    m = re.match(r"(if|for|while|switch)\s*\(", text[i:])
    if m:
        pe = match_paren(text, i + m.end() - 1)
        if pe < 0:
            return len(text)
        end = _statement_end(text, _skip_ws(text, pe))
        if m.group(1) == "if":
            e = re.match(r"\s*else\b", text[end:])
            if e:
                end = _statement_end(text, _skip_ws(text, end + e.end()))
        return end
    if re.match(r"do\b", text[i:]):
        end = _statement_end(text, _skip_ws(text, i + 2))
        semi = text.find(";", end)
        return semi + 1 if semi >= 0 else len(text)
    semi = text.find(";", i)
    return semi + 1 if semi >= 0 else len(text)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _statements(text: str) -> list[str]:
    out, i = [], _skip_ws(text, 0)
    while i < len(text):
        end = _statement_end(text, i)
        out.append(text[i:end].strip())
        i = _skip_ws(text, max(end, i + 1))
    return out


class _Threads:
    """A thread-dependent expression's value at chosen launch axes, given the scalar
    assignments seen so far."""

    def __init__(self, env: Env, grid: Dim3, block: Dim3) -> None:
        self.env, self.grid, self.block = env, grid, block
        self.assigns: list[tuple[str, str]] = []

    def size(self, axis: int) -> int:
        return (self.block if axis < 3 else self.grid)[axis % 3]

    def value(self, expr: str, at_max: set[int]) -> Any:
        pos = {k: [0, 0, 0] for k in ("threadIdx", "blockIdx")}
        for a in at_max:
            pos[_AXES[a][0]][a % 3] = self.size(a) - 1
        env = self.env.child(threadIdx=Dim(*pos["threadIdx"]), blockIdx=Dim(*pos["blockIdx"]))
        for name, rhs in self.assigns:
            v = try_evaluate(rhs, env)
            env = env.child(**{name: v}) if isinstance(v, int | float) else \
                Env({k: x for k, x in env.vars.items() if k != name}, env.macros, env.argv)
        v = try_evaluate(expr, env)
        return v if isinstance(v, int | float) and math.isfinite(v) else None

    def kept(self, lhs: str, op: str, rhs: str) -> tuple[set[int], float] | None:
        """(axes, fraction of threads along them) for which `lhs op rhs` holds."""
        sides = [(lhs, op, rhs), (rhs, _FLIP[op], lhs)]
        for var, o, bound in sides:
            v0 = self.value(var, set())
            if v0 is None:
                continue
            axes = {a for a in range(6) if self.size(a) > 1
                    and self.value(var, {a}) not in (None, v0)}
            b = self.value(bound, set())
            if not axes or b is None or any(self.value(bound, {a}) != b for a in axes):
                continue
            last = self.value(var, axes)
            count = math.prod(self.size(a) for a in axes)
            if last is None or last <= v0:
                return None
            step = (last - v0) / (count - 1)  # the spacing of the values the threads take
            q = (b - v0) / step
            lt = min(count, max(0, math.ceil(q)))  # threads with v < b
            le = min(count, max(0, math.floor(q) + 1))  # ... and v <= b
            n = {"<": lt, "<=": le, ">=": count - lt, ">": count - le}[o]
            return axes, min(1.0, max(0.0, n / count))
        return None


def _terms(cond: str, joiner: str) -> list[str] | None:
    """The comparisons of *cond* joined by *joiner* (None when the other one appears)."""
    cond = cond.strip()
    while cond.startswith("(") and match_paren(cond, 0) == len(cond):
        cond = cond[1:-1].strip()
    other = "||" if joiner == "&&" else "&&"
    parts = [p for p in _split_op(cond, joiner)]
    if any(other in _top(p) for p in parts):
        return None
    return parts


def _top(text: str) -> str:
    """*text* with parenthesised parts blanked."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        out.append(ch if depth == 0 else " ")
        depth -= ch == ")" and depth > 0
    return "".join(out)


def _split_op(text: str, op: str) -> list[str]:
    top, parts, start = _top(text), [], 0
    for m in re.finditer(re.escape(op), top):
        parts.append(text[start:m.start()])
        start = m.end()
    return parts + [text[start:]]


def _comparison(term: str) -> tuple[str, str, str] | None:
    top = _top(term)
    m = re.search(r"(?<![-<>=!])(<=|>=|<|>)(?![<>=])", top)
    if not m or re.search(r"(?<![-<>=!])(<=|>=|<|>)(?![<>=])", top[m.end():]):
        return None
    return term[:m.start()].strip(), m.group(1), term[m.end():].strip()


def _fractions(cond: str, joiner: str, th: _Threads, negate: bool
               ) -> list[tuple[set[int], float]] | None:
    terms = _terms(cond, joiner)
    if terms is None:
        return None
    out = []
    for t in terms:
        c = _comparison(t)
        if c is None:
            continue
        lhs, op, rhs = c
        if negate:  # `if (i >= n) return;` keeps the threads with i < n
            op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
        kept = th.kept(lhs, op, rhs)
        if kept is not None:
            out.append(kept)
    return out


def _guard(stmts: list[str], th: _Threads, found: list[tuple[set[int], float]]) -> None:
    """Collect the guards of a statement list into *found* (nested `if`s too)."""
    for k, s in enumerate(stmts):
        m = re.match(r"if\s*\(", s)
        if m:
            pe = match_paren(s, m.end() - 1)
            cond, rest = s[m.end():pe - 1], s[pe:].strip()
            if re.fullmatch(r"\{?\s*return\s*;\s*\}?", rest):
                got = _fractions(cond, "||", th, negate=True)
                if got is None:
                    return
                found += got
                continue
            tail = [t for t in stmts[k + 1:] if not re.fullmatch(r"return\s*;|;", t)]
            if tail or re.search(r"\belse\b", _top(rest.replace("{", "(").replace("}", ")"))):
                return
            got = _fractions(cond, "&&", th, negate=False)
            if got:
                found += got
                body = rest[1:-1] if rest.startswith("{") and rest.endswith("}") else rest
                _guard(_statements(body), th, found)
            return
        if s.startswith("#") or _ARRAY_DECL.fullmatch(s):
            continue
        if _HEAD.match(s) or _WORK.search(s):
            return  # work before any guard: whatever follows guards a part, not the kernel
        for part in split_top(s.rstrip(";")):
            a = _ASSIGN.match(part.strip())
            if a:
                th.assigns.append((a.group(1), a.group(2)))


def active_threads(body: str, env: Env, grid: Dim3, block: Dim3) -> float | None:
    """Threads of a *grid* x *block* launch that pass *body*'s leading guards (None when the
    kernel has no guard that evaluates)."""
    th = _Threads(env, grid, block)
    found: list[tuple[set[int], float]] = []
    _guard(_statements(body), th, found)
    if not found:
        return None
    groups: list[tuple[set[int], float]] = []
    for axes, frac in found:  # bounds on the same axes: the tighter; on others: both
        for i, (g_axes, g_frac) in enumerate(groups):
            if g_axes & axes:
                groups[i] = (g_axes | axes, min(g_frac, frac))
                break
        else:
            groups.append((set(axes), frac))
    launched = float(math.prod(grid) * math.prod(block))
    return launched * math.prod(f for _, f in groups)


_OMP_IDS = {"omp_get_team_num": "blockIdx.x", "omp_get_thread_num": "threadIdx.x",
            "omp_get_num_threads": "blockDim.x", "omp_get_num_teams": "gridDim.x"}
_INNER_PARALLEL = re.compile(r"#\s*pragma\s+omp\s+parallel\b(?![^\n]*\bfor\b)[^\n]*\n")


def spmd_active_threads(body: str, env: Env, teams: Dim3, threads: Dim3 | None
                        ) -> float | None:
    """For an OpenMP target region run SPMD (once per team, and per thread when *threads*
    is given: the body opens a `parallel` block), the copies that pass the guard written
    with `omp_get_team_num()` / `omp_get_thread_num()`, as for a CUDA kernel."""
    text = re.sub(r"\b(" + "|".join(_OMP_IDS) + r")\s*\(\s*\)",
                  lambda m: _OMP_IDS[m.group(1)], body.strip())
    if text.startswith("{") and match_paren(text, 0, "{", "}") == len(text):
        text = text[1:-1]
    if threads is not None:
        m = _INNER_PARALLEL.search(text)
        if m is None:
            return None
        start = _skip_ws(text, m.end())
        text = text[start:_statement_end(text, start)].strip()
        if text.startswith("{"):
            text = text[1:-1]
    block = threads or (1, 1, 1)
    env = env.child(blockDim=Dim(*block), gridDim=Dim(*teams))
    return active_threads(text, env, teams, block)
