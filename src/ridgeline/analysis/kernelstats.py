"""Per-thread (CUDA) or per-region (OpenMP) operation and access counts from kernel text.

Loops are weighted by their trip counts when the bounds evaluate (from kernel arguments bound
at the launch site, macros, blockDim/gridDim); a loop whose bound is unknown counts with
``UNKNOWN_TRIP`` iterations and is recorded in ``unknown_loops`` so callers can tell.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ridgeline.analysis.argeval import TYPE_SIZES, Dim, Env, try_evaluate
from ridgeline.analysis.declscan import declared_types
from ridgeline.analysis.srcscan import Function, Param
from ridgeline.analysis.text import match_paren
from ridgeline.sources._text import split_top_level as split_top

__all__ = ["Stats", "analyze", "UNKNOWN_TRIP", "Callees", "resolve_type"]

UNKNOWN_TRIP = 16.0
_MAX_TRIP = 1e9
_FP_TYPES = {"float": "sp", "double": "dp", "half": "hp", "__half": "hp", "half2": "hp",
             "__half2": "hp", "float2": "sp", "float4": "sp", "float3": "sp", "double2": "dp",
             "real": "sp", "__nv_bfloat16": "hp", "FP": "sp", "Real": "sp"}
_MATH = re.compile(r"\b(?:__)?(sqrt|rsqrt|exp|exp2|exp10|log|log2|log10|sin|cos|tan|pow|"
                   r"tanh|erf|atan|atan2|asin|acos|cbrt|sinh|cosh|expm1|log1p|hypot|fma|"
                   r"fdivide|sincos|norm3d)(f?)\s*\(")
_ATOMIC = re.compile(r"\batomic\w*\s*\(")
_SYNC = re.compile(r"__syncthreads|barrier\s*\(|#\s*pragma\s+omp\s+barrier")
_ARITH = re.compile(r"(?<![-+*/=<>!&|^%])([-+*/])(?![-+=>])|([-+*/])=")
_MEMBER = re.compile(r"(?:\.|->)\s*[A-Za-z_]\w*")
_INT_HINT = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim|omp_get_\w+)\b")


@dataclass
class Stats:
    """Counts for one thread (CUDA) or the whole region (OpenMP), loops weighted."""

    fp: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    math: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    int_ops: float = 0.0
    loads: float = 0.0  # global loads (elements)
    stores: float = 0.0
    load_bytes: float = 0.0
    store_bytes: float = 0.0
    shared: float = 0.0
    atomics: float = 0.0
    syncs: float = 0.0
    loops: int = 0
    unknown_loops: int = 0
    max_depth: int = 0
    trip_product: float = 1.0  # product of the outermost-first known trips along the deepest nest
    static_fp: Counter[str] = field(default_factory=Counter)  # unweighted
    static_accesses: float = 0.0
    read: set[str] = field(default_factory=set)  # global pointers loaded from
    written: set[str] = field(default_factory=set)  # global pointers stored to
    notes: list[str] = field(default_factory=list)

    def flops(self, prec: str) -> float:
        return self.fp[prec] + self.math[prec] * 4.0

    def add(self, other: Stats, weight: float) -> None:
        """Add *other*'s weighted counts times *weight* (an inlined call)."""
        for k, v in other.fp.items():
            self.fp[k] += v * weight
        for k, v in other.math.items():
            self.math[k] += v * weight
        for name in ("int_ops", "loads", "stores", "load_bytes", "store_bytes", "shared",
                     "atomics", "syncs"):
            setattr(self, name, getattr(self, name) + getattr(other, name) * weight)
        self.loops += other.loops
        self.unknown_loops += other.unknown_loops
        self.static_fp.update(other.static_fp)
        self.static_accesses += other.static_accesses


@dataclass
class Callees:
    """What a kernel body may call: the program's functions (inlined at their call weight),
    and what its type names mean (typedefs, macros, template parameters)."""

    functions: dict[str, Function] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)


@dataclass
class _Ctx:
    env: Env
    types: dict[str, str]  # identifier -> base type
    pointers: dict[str, str]  # global pointer identifier -> element type
    shared: set[str]
    stats: Stats
    depth: int = 0
    callees: Callees = field(default_factory=Callees)
    call_depth: int = 0
    memo: dict[tuple[str, tuple[Any, ...]], Stats] = field(default_factory=dict)


_MAX_CALL_DEPTH = 4
_NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "do", "else"}


def resolve_type(ty: str, aliases: dict[str, str]) -> str:
    """A type name through typedefs, macros and template parameters (a few hops)."""
    ty = re.sub(r"\b(?:const|volatile|__restrict__|restrict|struct|unsigned|signed)\b", "",
                ty).strip() or ty
    for _ in range(4):
        nxt = aliases.get(ty)
        if not nxt or nxt == ty:
            break
        ty = nxt
    return ty


def _elem_size(ty: str, aliases: dict[str, str] | None = None) -> int:
    return TYPE_SIZES.get(resolve_type(ty, aliases or {}), 4)


def _precision_of(stmt: str, ctx: _Ctx) -> str:
    precs = set()
    aliases = ctx.callees.aliases
    # member names (`blockIdx.x`, `p->y`) are not variables: `.x` must not pick up a pointer x
    for ident in re.findall(r"[A-Za-z_]\w*", _MEMBER.sub("", stmt)):
        ty = ctx.types.get(ident) or ctx.pointers.get(ident)
        if ty is not None:
            ty = resolve_type(ty, aliases)
        if ty in _FP_TYPES:
            precs.add(_FP_TYPES[ty])
    # `\d+(?:\.\d*)?`, not `\d+\.?\d*`: the latter splits a long digit run every way
    if re.search(r"\b\d+\.\d*(?:[eE][-+]?\d+)?f\b|\b\d+(?:\.\d*)?[eE][-+]?\d+f\b", stmt):
        precs.add("sp")
    elif re.search(r"\b\d+\.\d+(?:[eE][-+]?\d+)?\b(?!f)", stmt) and not precs:
        precs.add("dp")
    for p in ("dp", "sp", "hp"):
        if p in precs:
            return p
    return "int"


def _count_flat(text: str, ctx: _Ctx, weight: float) -> None:
    """Count a stretch of code without loops at weight *weight*."""
    st = ctx.stats
    for stmt in re.split(r"[;{}]", text):
        stmt = stmt.strip()
        if not stmt or stmt.startswith("#"):
            continue
        no_sub = re.sub(r"\[[^\[\]]*\]", "[]", re.sub(r"\[[^\[\]]*\]", "[]", stmt))
        subs = re.findall(r"\[([^\[\]]*)\]", stmt)
        n_arith = len(_ARITH.findall(no_sub))
        prec = _precision_of(no_sub, ctx)
        if re.match(r"(if|else|return)\b", stmt) or re.search(r"[<>]=?|==|!=", no_sub):
            st.int_ops += weight
        if prec == "int":
            st.int_ops += n_arith * weight
        else:
            st.fp[prec] += n_arith * weight
            st.static_fp[prec] += n_arith
        for m in _MATH.finditer(_expand_idents(stmt, ctx.callees.aliases)):
            mp = "sp" if m.group(2) == "f" else (prec if prec != "int" else "dp")
            st.math[mp] += weight
        st.int_ops += sum(len(_ARITH.findall(s)) + 1 for s in subs) * weight
        _count_accesses(stmt, ctx, weight)
        st.atomics += len(_ATOMIC.findall(stmt)) * weight
        st.syncs += len(_SYNC.findall(stmt)) * weight
        if ctx.callees.functions:
            _count_calls(stmt, ctx, weight)


def _expand_idents(stmt: str, aliases: dict[str, str]) -> str:
    """*stmt* with identifiers that name another identifier (`#define SQRT sqrtf`) replaced."""
    if not aliases:
        return stmt
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: aliases.get(m.group(0), m.group(0)), stmt)


def _count_calls(stmt: str, ctx: _Ctx, weight: float) -> None:
    """Inline calls of the program's own functions: their counts at this statement's weight,
    with parameters bound where the arguments evaluate."""
    if ctx.call_depth >= _MAX_CALL_DEPTH:
        return
    for m in re.finditer(r"(?<![.\w>])([A-Za-z_]\w*)\s*(?:<[^;<>()]*>)?\s*\(", stmt):
        name = m.group(1)
        fn = ctx.callees.functions.get(name)
        if fn is None or name in _NOT_CALLS:
            continue
        params = fn.params
        end = match_paren(stmt, m.end() - 1)
        args = split_top(stmt[m.end():end - 1]) if end > 0 else []
        bound: dict[str, Any] = {}
        in_shared: set[str] = set()  # pointer parameters given a shared array
        for prm, arg in zip(params, args, strict=False):
            if not prm.pointer:
                v = try_evaluate(arg, ctx.env)
                if isinstance(v, int | float | Dim):
                    bound[prm.name] = v
            elif _base_name(arg) in ctx.shared:
                in_shared.add(prm.name)
        key = (name, tuple(sorted((k, str(v)) for k, v in bound.items())) +
               tuple(sorted(in_shared)))
        sub = ctx.memo.get(key)
        if sub is None:
            ctx.memo[key] = Stats()  # recursion guard
            types, pointers, shared = declared_types(fn.body, params)
            for p in in_shared:
                pointers.pop(p, None)
            shared |= in_shared
            inner = _Ctx(ctx.env.child(**bound), types, pointers, shared, Stats(),
                         callees=ctx.callees, call_depth=ctx.call_depth + 1, memo=ctx.memo)
            _walk(fn.body, inner, 1.0)
            sub = ctx.memo[key] = inner.stats
        ctx.stats.add(sub, weight)


def _base_name(arg: str) -> str:
    """The array an argument passes (`smem`, `&tile[0][0]`, `(float*)buf + k`), or ""."""
    m = re.match(r"\s*(?:\(\s*[\w\s:<>*]+\*\s*\)\s*)?[(&\s]*([A-Za-z_]\w*)", arg)
    return m.group(1) if m else ""


def _count_accesses(stmt: str, ctx: _Ctx, weight: float) -> None:
    st = ctx.stats
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\[", stmt):
        name = m.group(1)
        end = match_paren(stmt, m.end() - 1, "[", "]")
        is_store = end > 0 and bool(_STORE.match(stmt, end))
        rmw = end > 0 and bool(_RMW.match(stmt, end))
        if name in ctx.shared:
            if not _SHARED_DECL_STMT.match(stmt):  # the declaration is no access
                st.shared += weight
            continue
        if name not in ctx.pointers:
            continue
        size = _elem_size(ctx.pointers[name], ctx.callees.aliases)
        st.static_accesses += 1
        if is_store:
            st.stores += weight
            st.store_bytes += weight * size
            st.written.add(name)
        if rmw or not is_store:
            st.loads += weight
            st.load_bytes += weight * size
            st.read.add(name)


#: what follows a subscript that stores to it: more subscripts (one bracket level each: a
#: subscript holding `[` ends the chain, so each `[` is read by one try at most), then `=` or
#: a compound assignment; read in place (a slice of the rest per access was quadratic)
_STORE = re.compile(r"\s*(?:\[[^\[\]]*\]\s*)*(=(?!=)|[-+*/|&^]=)")
_RMW = re.compile(r"\s*(?:\[[^\[\]]*\]\s*)*[-+*/|&^]=")
_SHARED_DECL_STMT = re.compile(r"(?:extern\s+|static\s+)*(?:__shared__|__local)\b")
_LOOP = re.compile(r"\b(for|while)\s*\(|\bdo\s*\{")


def _trip(header: str, ctx: _Ctx) -> tuple[float | None, str | None, Any]:
    """(trip count, loop variable, midpoint value) of a for header."""
    try:
        return _trip_unsafe(header, ctx)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None, None, None


def _trip_unsafe(header: str, ctx: _Ctx) -> tuple[float | None, str | None, Any]:
    parts = header.split(";")
    if len(parts) != 3:
        return None, None, None
    init, cond, inc = (p.strip() for p in parts)
    m = re.search(r"([A-Za-z_]\w*)\s*=\s*(.+)$", init, re.S)
    if not m:
        return None, None, None
    var, start = m.group(1), try_evaluate(m.group(2), ctx.env)
    cm = re.match(rf"{var}\s*(<=|<|>=|>|!=)\s*(.+)$", cond, re.S)
    if not cm:
        cm2 = re.match(rf"(.+?)\s*(>=|>|<=|<)\s*{var}$", cond, re.S)
        if not cm2:
            return None, var, None
        flip = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
        op, end = flip[cm2.group(2)], try_evaluate(cm2.group(1), ctx.env)
    else:
        op, end = cm.group(1), try_evaluate(cm.group(2), ctx.env)
    if start is None or end is None or isinstance(start, Dim) or isinstance(end, Dim):
        return None, var, None
    step, mult = _step(inc, var, ctx)
    if step is None and mult is None:
        return None, var, None
    lo, hi = float(start), float(end)
    if mult is not None:
        if mult <= 1 or lo <= 0 or hi <= 0:
            return None, var, None
        n = math.log(max(hi, lo) / min(hi, lo)) / math.log(mult)
        trip = max(0.0, math.ceil(n) + (1 if op in ("<=", ">=") else 0))
    else:
        assert step is not None
        if step == 0:
            return None, var, None
        span = hi - lo if step > 0 else lo - hi
        if op in ("<=", ">="):
            span += abs(step)
        trip = max(0.0, math.ceil(span / abs(step)))
    return min(trip, _MAX_TRIP), var, (lo + hi) / 2 if mult is None else None


def _step(inc: str, var: str, ctx: _Ctx) -> tuple[float | None, float | None]:
    if re.fullmatch(rf"(\+\+{var}|{var}\+\+)", inc):
        return 1.0, None
    if re.fullmatch(rf"(--{var}|{var}--)", inc):
        return -1.0, None
    m = re.fullmatch(rf"{var}\s*(\+=|-=|\*=|/=|<<=|>>=)\s*(.+)", inc, re.S) or \
        re.fullmatch(rf"{var}\s*=\s*{var}\s*(\+|-|\*|/|<<|>>)\s*(.+)", inc, re.S)
    if not m:
        return None, None
    op, val = m.group(1).rstrip("="), try_evaluate(m.group(2), ctx.env)
    if not isinstance(val, int | float) or val == 0:
        return None, None
    if op in ("+", "-"):
        return (float(val) if op == "+" else -float(val)), None
    if op in ("*", "/"):
        return None, float(val)
    if not 0 < val < 64:  # a shift by a huge or negative amount: not a loop we can count
        return None, None
    return None, 2.0 ** val


def _walk(text: str, ctx: _Ctx, weight: float) -> None:
    pos = 0
    while True:
        m = _LOOP.search(text, pos)
        if not m:
            _count_flat(text[pos:], ctx, weight)
            return
        _count_flat(text[pos:m.start()], ctx, weight)
        ctx.stats.loops += 1
        if m.group(0).startswith("do"):
            bs = m.end() - 1
            be = match_paren(text, bs, "{", "}")
            body, header, kind = text[bs:be], "", "do"
            tail = re.match(r"\s*while\s*\(", text[be:]) if be > 0 else None
            pos = (match_paren(text, be + tail.end() - 1) if tail else be) if be > 0 else len(text)
            if tail and pos > 0 and try_evaluate(text[be + tail.end():pos - 1], ctx.env) == 0:
                kind = "once"  # `do { ... } while (0)`: a statement macro's wrapper
        else:
            ho = m.end() - 1
            he = match_paren(text, ho)
            if he < 0:
                _count_flat(text[m.start():], ctx, weight)
                return
            header, kind = text[ho + 1:he - 1], m.group(1)
            body, pos = _body(text, he)
        trip, var, mid = _trip(header, ctx) if kind == "for" else (None, None, None)
        if kind == "once":
            trip = 1.0
            ctx.stats.loops -= 1
        elif trip is None:
            ctx.stats.unknown_loops += 1
            trip = UNKNOWN_TRIP
        _count_flat(header, ctx, weight * (trip + 1) / 2)
        ctx.depth += kind != "once"
        ctx.stats.max_depth = max(ctx.stats.max_depth, ctx.depth)
        saved = ctx.env
        if var is not None and mid is not None:
            ctx.env = ctx.env.child(**{var: mid})
        _walk(body, ctx, weight * trip)
        ctx.env = saved
        ctx.depth -= kind != "once"
        if pos < 0:
            return


def _body(text: str, after: int) -> tuple[str, int]:
    i = after
    while i < len(text) and text[i].isspace():
        i += 1
    if text.startswith("{", i):
        end = match_paren(text, i, "{", "}")
        return (text[i + 1:end - 1], end) if end > 0 else (text[i + 1:], len(text))
    lm = _LOOP.match(text, i)
    if lm:  # a loop whose body is another loop: take up to the end of the inner one
        if lm.group(0).startswith("do"):
            end = match_paren(text, lm.end() - 1, "{", "}")
        else:
            he = match_paren(text, lm.end() - 1)
            _, end = _body(text, he) if he > 0 else ("", len(text))
        return text[i:end], end
    semi = text.find(";", i)
    end = len(text) if semi < 0 else semi + 1
    return text[i:end], end


def analyze(body: str, params: list[Param], env: Env, extra_pointers: dict[str, str] | None = None,
            callees: Callees | None = None) -> Stats:
    """Weighted counts for *body* with kernel parameters bound in *env*; calls of the
    functions in *callees* are inlined."""
    types, pointers, shared = declared_types(body, params)
    if extra_pointers:
        for k, v in extra_pointers.items():
            pointers.setdefault(k, v)
    ctx = _Ctx(env, types, pointers, shared, Stats(), callees=callees or Callees())
    _walk(body, ctx, 1.0)
    return ctx.stats
