"""Static source features of one kernel, from its libclang AST.

Counts are per thread (CUDA, OpenCL) or per region execution (OpenMP) *as written*; loops
are listed with their trip counts as symbolic expressions so a later stage can evaluate them
with the program's arguments and launch sizes. ``*_weighted`` counts multiply each operation by
the trip counts of its enclosing loops where those are integer constants, else by
``UNKNOWN_TRIP`` per loop level.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ridgeline.errors import SourceError
from ridgeline.features._exprs import LAUNCH_NAMES, depends_on, parse_for_header, trip_count
from ridgeline.sources import Kernel
from ridgeline.sources._clang import binary_operator, cindex, unary_operator

__all__ = ["static_features", "UNKNOWN_TRIP"]

UNKNOWN_TRIP = 8
_SPECIAL = {"sqrt", "rsqrt", "cbrt", "rcbrt", "exp", "exp2", "exp10", "expm1", "log", "log2",
            "log10", "log1p", "pow", "sin", "cos", "tan", "sincos", "sinpi", "cospi", "asin",
            "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
            "erfc", "erfinv", "erfcinv", "lgamma", "tgamma", "hypot", "fdivide", "native_sqrt",
            "native_exp", "native_log", "native_sin", "native_cos", "native_recip",
            "native_rsqrt", "native_divide", "native_powr", "half_sqrt", "half_exp", "powr",
            "rootn", "fmod", "remainder", "sincospi", "normcdf", "j0", "j1", "y0", "y1"}
_BARRIERS = {"__syncthreads", "barrier", "work_group_barrier", "__syncwarp", "sync",
             "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "grid_sync",
             "mem_fence", "__threadfence", "__threadfence_block"}
_CMP = {"<", ">", "<=", ">=", "==", "!="}
_LOGIC = {"&&", "||"}
_BIT = {"&", "|", "^", "<<", ">>"}
_ARITH = {"+": "add", "-": "add", "*": "mul", "/": "div", "%": "mod"}


@dataclass
class _State:
    params: set[str]
    locals: set[str] = field(default_factory=set)
    x_vars: set[str] = field(default_factory=set)   # thread-x / innermost parallel index vars
    t_vars: set[str] = field(default_factory=set)   # any thread-dependent var
    ops: Any = field(default_factory=Counter)
    ops_w: Any = field(default_factory=Counter)
    mem: Any = field(default_factory=Counter)
    mem_w: Any = field(default_factory=Counter)
    special: Any = field(default_factory=Counter)
    calls: Any = field(default_factory=Counter)
    loops: list[dict[str, Any]] = field(default_factory=list)
    accesses: list[dict[str, Any]] = field(default_factory=list)
    counts: Any = field(default_factory=Counter)
    shared_vars: set[str] = field(default_factory=set)
    inits: dict[str, str | None] = field(default_factory=dict)  # local -> initializer text
    annot: dict[int, str] = field(default_factory=dict)  # declaration hash -> CUDA annotation


def _prec(t: Any) -> str:
    tk = cindex().TypeKind
    c = t.get_canonical()
    if c.kind in (tk.EXTVECTOR, tk.VECTOR):
        c = c.element_type
    k = c.kind
    if k == tk.FLOAT:
        return "fp32"
    if k in (tk.DOUBLE, tk.LONGDOUBLE):
        return "fp64"
    if k.name in ("HALF", "FLOAT16", "BFLOAT16"):
        return "fp16"
    if c.spelling in ("__half", "__half2", "half", "__nv_bfloat16", "struct __half"):
        return "fp16"
    return "int"


def _lanes(t: Any) -> int:
    tk = cindex().TypeKind
    c = t.get_canonical()
    if c.kind in (tk.EXTVECTOR, tk.VECTOR):
        try:
            return max(1, int(c.get_array_size()))
        except Exception:
            return 1
    return 1


def _strip(c: Any) -> Any:
    ck = cindex().CursorKind
    while c.kind in (ck.UNEXPOSED_EXPR, ck.PAREN_EXPR, ck.CSTYLE_CAST_EXPR,
                     ck.CXX_STATIC_CAST_EXPR) and list(c.get_children()):
        c = list(c.get_children())[-1]
    return c


def _tokens_text(c: Any) -> str:
    text = " ".join(t.spelling for t in c.get_tokens())
    text = re.sub(r"\s*(\.|->|::)\s*", r"\1", text)
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", re.sub(r"(\w)\s+\(", r"\1(", text)))


def _add(st: _State, key: str, w: float, n: int = 1) -> None:
    st.ops[key] += n
    st.ops_w[key] += n * w


def _space_of(base: Any, st: _State, language: str) -> str:
    ck = cindex().CursorKind
    b = _strip(base)
    ref = b.referenced if b.kind in (ck.DECL_REF_EXPR, ck.MEMBER_REF_EXPR) else None
    if ref is None:
        return "global"
    if ref.spelling in st.shared_vars:
        return "shared"
    tspell = ref.type.spelling
    if re.search(r"\b__local\b|\blocal\b", tspell):
        return "shared"
    if re.search(r"\b__constant\b", tspell):
        return "constant"
    key = ref.hash
    if key not in st.annot:
        st.annot[key] = next((a.spelling for a in ref.get_children()
                              if a.kind == ck.ANNOTATE_ATTR), "")
    if st.annot[key] == "__shared__":
        return "shared"
    if st.annot[key] == "__constant__":
        return "constant"
    if ref.kind == ck.VAR_DECL and ref.type.get_canonical().kind.name == "CONSTANTARRAY":
        return "local" if language != "omp" or ref.spelling in st.locals else "global"
    return "global"


def _pattern(index_text: str, has_subscript: bool, st: _State) -> str:
    if has_subscript:
        return "indirect"
    index_text = re.sub(r"\s*\.\s*", ".", index_text)
    names = set(re.findall(r"[A-Za-z_]\w*", index_text))
    x = names & st.x_vars
    if x or "threadIdx.x" in index_text or re.search(r"get_(global|local)_id\s*\(\s*0", index_text):
        for v in x or {"threadIdx", "get_global_id", "get_local_id"}:
            if re.search(rf"\b{v}\b(\.x)?\s*[\*<]|[\*]\s*\(?\s*{v}\b", index_text):
                return "strided"
        return "unit"
    if names & st.t_vars:
        return "strided"
    return "uniform"


def _access(node: Any, store: bool | None, w: float, depth: int, loop: int | None, st: _State,
            language: str) -> None:
    kids = list(node.get_children())
    if len(kids) != 2:
        return
    base, index = kids
    ck = cindex().CursorKind
    space = _space_of(base, st, language)
    itext = _tokens_text(index)
    sub = any(c.kind == ck.ARRAY_SUBSCRIPT_EXPR for c in index.walk_preorder())
    pat = _pattern(itext, sub, st)
    size = node.type.get_canonical().get_size()
    kinds = ["store"] if store is True else ["load"] if store is False else ["load", "store"]
    for kind in kinds:
        key = f"{space}.{kind}"
        st.mem[key] += 1
        st.mem_w[key] += w
        st.mem[f"{space}.{kind}.{pat}"] += 1
        st.mem_w[f"{space}.{kind}.{pat}"] += w
        st.mem[f"{space}.{kind}_bytes"] += max(size, 0)
        st.mem_w[f"{space}.{kind}_bytes"] += max(size, 0) * w
    if len(st.accesses) < 400:
        st.accesses.append({"space": space, "kind": "+".join(kinds), "index": itext,
                            "pattern": pat, "bytes": size if size > 0 else None,
                            "loop": loop, "depth": depth, "line": node.location.line})


def _const_int(expr: str | None) -> int | None:
    if expr is None or not re.fullmatch(r"[\d\s\+\-\*/\(\)]+", expr):
        return None
    try:
        v = eval(expr.replace("/", "//"), {"__builtins__": {}}, {})  # digits and operators only
    except Exception:
        return None
    return int(v) if isinstance(v, int) and 0 <= v < 10**9 else None


_TALLIES = ("ops", "ops_w", "mem", "mem_w", "special", "counts")


class _Walker:
    def __init__(self, kernel: Kernel) -> None:
        self.k = kernel
        self.lang = kernel.language
        self.st = _State(params={p.name for p in kernel.params})
        self.ck = cindex().CursorKind
        self.cur_loop: int | None = None
        self.loop_ops: dict[int | None, Any] = {None: Counter()}
        self.active: set[str] = set()
        self.memo: dict[str, tuple[float, dict[str, Any]]] = {}
        self.collapse = 1
        if kernel.region is not None:
            c = kernel.region.clauses.get("collapse", ("1",))
            self.collapse = int(c[0]) if c and c[0].strip().isdigit() else 1

    def add(self, key: str, w: float, n: int = 1) -> None:
        _add(self.st, key, w, n)
        self.loop_ops[self.cur_loop][key] += n

    def walk(self, c: Any, w: float, depth: int, store: bool | None = False) -> None:
        ck = self.ck
        kind = c.kind
        h = getattr(self, "on_" + kind.name, None)
        if h is not None:
            h(c, w, depth, store)
            return
        if kind.name.startswith("OMP_") and kind.name.endswith("_DIRECTIVE"):
            if kind == ck.OMP_ATOMIC_DIRECTIVE:
                self.st.counts["atomics"] += 1
                self.st.counts["atomics_weighted"] += w
            elif kind == ck.OMP_BARRIER_DIRECTIVE:
                self.st.counts["barriers"] += 1
        for ch in c.get_children():
            self.walk(ch, w, depth)

    # --- declarations -------------------------------------------------------------------
    def on_VAR_DECL(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        st = self.st
        st.locals.add(c.spelling)
        if any(a.kind == self.ck.ANNOTATE_ATTR and a.spelling == "__shared__"
               for a in c.get_children()) or re.search(r"\b__local\b|\blocal\b", c.type.spelling):
            st.shared_vars.add(c.spelling)
        kids = [ch for ch in c.get_children() if ch.kind.is_expression()]
        # a name declared twice (shadowing, several loops) has no single initializer
        st.inits[c.spelling] = None if c.spelling in st.inits or not kids else \
            _tokens_text(kids[-1])
        if kids:
            text = _tokens_text(kids[-1])
            names = set(re.findall(r"[A-Za-z_]\w*", text))
            if re.search(r"threadIdx\s*\.\s*x|get_(global|local)_id\s*\(\s*0\s*\)", text) or (
                names & st.x_vars
            ):
                st.x_vars.add(c.spelling)
            if names & (LAUNCH_NAMES | st.t_vars | st.x_vars):
                st.t_vars.add(c.spelling)
            for ch in kids:
                self.walk(ch, w, depth)

    # --- loops --------------------------------------------------------------------------
    def _loop(self, c: Any, w: float, depth: int, header: tuple[str, str, str] | None) -> None:
        st = self.st
        trip, var = trip_count(*header) if header else (None, None)
        const = _const_int(trip)
        mult = const if const is not None else UNKNOWN_TRIP
        lid = len(st.loops)
        parallel = self.lang == "omp" and depth < self.collapse
        if var:
            st.locals.add(var)
            if parallel:
                st.t_vars.add(var)
                st.x_vars.clear()
                st.x_vars.add(var)
        st.loops.append({
            "id": lid, "parent": self.cur_loop, "depth": depth + 1, "line": c.location.line,
            "kind": c.kind.name.replace("_STMT", "").lower(), "var": var,
            "header": "; ".join(header) if header else None, "trip_count": trip,
            "trip_count_const": const,
            "depends_on": depends_on(trip, st.params, st.locals - st.params),
            "trip_count_expanded": (exp := _expand(trip, st)),
            "expanded_depends_on": depends_on(exp, st.params, st.locals - st.params),
            "parallel": parallel,
        })
        prev, self.cur_loop = self.cur_loop, lid
        self.loop_ops[lid] = Counter()
        for ch in c.get_children():
            self.walk(ch, w * mult, depth + 1)
        self.cur_loop = prev

    def on_FOR_STMT(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        text = " ".join(t.spelling for t in _head_tokens(c))
        self._loop(c, w, depth, parse_for_header(text))

    def on_WHILE_STMT(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        self._loop(c, w, depth, None)

    on_DO_STMT = on_WHILE_STMT

    # --- operators ------------------------------------------------------------------------
    def on_BINARY_OPERATOR(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        kids = list(c.get_children())
        op = binary_operator(c)
        if op == "=" and len(kids) == 2:
            self.walk(kids[0], w, depth, True)
            self.walk(kids[1], w, depth)
            return
        self._count_op(op, c, kids, w)
        for ch in kids:
            self.walk(ch, w, depth)

    def _count_op(self, op: str, c: Any, kids: list[Any], w: float) -> None:
        if op in _ARITH:
            prec = _prec(c.type)
            n = _lanes(c.type)
            if op in "+-" and prec != "int" and any(
                _strip(k).kind == self.ck.BINARY_OPERATOR and binary_operator(_strip(k)) == "*"
                for k in kids
            ):
                self.add(f"{prec}.fma", w, n)
                self.add(f"{prec}.mul", w, -n)
            else:
                self.add(f"{prec}.{_ARITH[op]}", w, n)
        elif op in _CMP and kids:
            self.add(f"{_prec(kids[0].type)}.cmp", w)
        elif op in _LOGIC:
            self.add("int.logic", w)
        elif op in _BIT:
            self.add("int.bit", w)

    def on_COMPOUND_ASSIGNMENT_OPERATOR(self, c: Any, w: float, depth: int,
                                        store: bool | None) -> None:
        kids = list(c.get_children())
        op = binary_operator(c).rstrip("=")
        self._count_op(op, kids[0] if kids else c, kids, w)
        if len(kids) == 2:
            self.walk(kids[0], w, depth, None)
            self.walk(kids[1], w, depth)

    def on_UNARY_OPERATOR(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        op = unary_operator(c)
        kids = list(c.get_children())
        if op in ("++", "--") and kids:
            self.add(f"{_prec(c.type)}.add", w)
            self.walk(kids[0], w, depth, None)
            return
        for ch in kids:
            self.walk(ch, w, depth)

    def on_ARRAY_SUBSCRIPT_EXPR(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        _access(c, store, w, depth, self.cur_loop, self.st, self.lang)
        kids = list(c.get_children())
        for ch in kids[1:]:
            self.walk(ch, w, depth)
        if kids and _strip(kids[0]).kind != self.ck.DECL_REF_EXPR:
            self.walk(kids[0], w, depth)

    # --- control flow ----------------------------------------------------------------------
    def _branch(self, cond: Any | None) -> None:
        self.st.counts["branches"] += 1
        if cond is None:
            return
        names = set(re.findall(r"[A-Za-z_]\w*", _tokens_text(cond)))
        if names & (LAUNCH_NAMES | self.st.t_vars):
            self.st.counts["divergent_branches"] += 1

    def on_IF_STMT(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        kids = list(c.get_children())
        self._branch(kids[0] if kids else None)
        for ch in kids:
            self.walk(ch, w, depth)

    def on_CONDITIONAL_OPERATOR(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        self.on_IF_STMT(c, w, depth, store)

    # --- calls ----------------------------------------------------------------------------
    def on_CALL_EXPR(self, c: Any, w: float, depth: int, store: bool | None) -> None:
        name = c.spelling
        st = self.st
        base = name.lstrip("_")
        base = base[:-1] if base.endswith("f") and base[:-1] in _SPECIAL else base
        base = re.sub(r"_r[nzud]$", "", base)
        if name.startswith(("atomic", "atom_", "__atomic")):
            st.counts["atomics"] += 1
            st.counts["atomics_weighted"] += w
        elif name in _BARRIERS:
            st.counts["barriers"] += 1
            st.counts["barriers_weighted"] += w
        elif base in _SPECIAL:
            st.special[name] += 1
            self.add(f"{_prec(c.type)}.special", w)
        elif base in ("min", "max", "fmin", "fmax", "fminf", "fmaxf", "abs", "fabs", "fabsf"):
            self.add(f"{_prec(c.type)}.cmp", w)
        elif name in ("fma", "fmaf", "mad", "__fmaf_rn", "__fma_rn"):
            self.add(f"{_prec(c.type)}.fma", w)
        st.calls[name] += 1
        node = self.k.callee_nodes.get(name)
        if node is not None and name not in self.active and len(self.active) < 6:
            self._inline(name, node, w, depth)
        for ch in c.get_children():
            self.walk(ch, w, depth)

    def _inline(self, name: str, node: Any, w: float, depth: int) -> None:
        """Count a called function's body at the call site. The first call walks it; later
        calls reuse the counts it added (weighted ones scaled by the call site's weight)."""
        st = self.st
        memo = self.memo.get(name)
        if memo is not None:
            w0, deltas = memo
            for attr, delta in deltas.items():
                tally = getattr(st, attr)
                for k, v in delta.items():
                    weighted = attr in ("ops_w", "mem_w") or k.endswith("_weighted")
                    tally[k] += v * (w / w0) if weighted else v
            self.loop_ops[self.cur_loop].update(deltas["ops"])
            return
        before = {a: Counter(getattr(st, a)) for a in _TALLIES}
        self.active.add(name)
        for ch in node.get_children():
            if ch.kind == self.ck.COMPOUND_STMT:
                self.walk(ch, w, depth)
        self.active.discard(name)
        if w > 0:
            self.memo[name] = (w, {a: {k: v - before[a].get(k, 0)
                                       for k, v in getattr(st, a).items()
                                       if v != before[a].get(k, 0)} for a in _TALLIES})


def _expand(expr: str | None, st: _State, rounds: int = 4) -> str | None:
    """Substitute locals by their initializers (when declared once), so a trip count reads in
    kernel parameters, launch sizes and constants where possible."""
    if expr is None:
        return None
    for _ in range(rounds):
        changed = False

        def sub(m: re.Match[str]) -> str:
            nonlocal changed
            init = st.inits.get(m.group(0))
            if init and len(init) < 300:
                changed = True
                return f"({init})"
            return m.group(0)

        expr = re.sub(r"(?<![\w.])[A-Za-z_]\w*", sub, expr)
        if not changed:
            break
    return expr


def _head_tokens(c: Any) -> list[Any]:
    """Tokens of a for statement up to the closing parenthesis of its header."""
    out = []
    depth = 0
    for t in c.get_tokens():
        out.append(t)
        if t.spelling == "(":
            depth += 1
        elif t.spelling == ")":
            depth -= 1
            if depth == 0:
                break
        if len(out) > 400:
            break
    return out


def _split_ops(ops: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for key, n in sorted(ops.items()):
        prec, op = key.split(".", 1)
        if n:
            out.setdefault(prec, {})[op] = round(n, 3)
    return out


def _flops(ops: Any) -> dict[str, float]:
    res: dict[str, float] = {}
    for prec in ("fp16", "fp32", "fp64"):
        f = sum(ops.get(f"{prec}.{k}", 0) for k in ("add", "mul", "div", "special"))
        res[prec] = round(f + 2 * ops.get(f"{prec}.fma", 0), 3)
    res["int"] = round(sum(v for k, v in ops.items() if k.startswith("int.")), 3)
    return res


def static_features(kernel: Kernel) -> dict[str, Any]:
    """The static feature record of *kernel* (see the module doc). Raises SourceError when
    the kernel's body was lost to a parse failure: that is reported, never empty features."""
    if not kernel.has_body:
        why = "; ".join(kernel.problems) or "no body was parsed"
        raise SourceError(f"kernel {kernel.name!r} ({kernel.file}:{kernel.line}) has no usable "
                          f"body, so it has no source features: {why}")
    wk = _Walker(kernel)
    root = kernel.node
    ck = wk.ck
    kids = list(root.get_children())
    body = [c for c in kids if c.kind == ck.COMPOUND_STMT] if kernel.language != "omp" else [root]
    for c in body:
        wk.walk(c, 1.0, 0)
    st = wk.st
    return {
        "ops": _split_ops(st.ops),
        "ops_weighted": _split_ops(st.ops_w),
        "flops": _flops(st.ops),
        "flops_weighted": _flops(st.ops_w),
        "memory": dict(sorted((k, round(v, 3)) for k, v in st.mem.items())),
        "memory_weighted": dict(sorted((k, round(v, 3)) for k, v in st.mem_w.items())),
        "loops": [{**lp, "ops": _split_ops(wk.loop_ops.get(lp["id"], Counter()))}
                  for lp in st.loops],
        "ops_outside_loops": _split_ops(wk.loop_ops[None]),
        "max_loop_depth": max((lp["depth"] for lp in st.loops), default=0),
        "accesses": st.accesses,
        "atomics": st.counts["atomics"],
        "barriers": st.counts["barriers"],
        "branches": st.counts["branches"],
        "divergent_branches": st.counts["divergent_branches"],
        "special_functions": dict(st.special),
        "calls": dict(st.calls),
        "shared_arrays": sorted(st.shared_vars),
        "unknown_trip_weight": UNKNOWN_TRIP,
    }
