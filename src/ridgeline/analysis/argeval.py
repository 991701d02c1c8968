"""Evaluate C/C++ size and trip-count expressions from a program's own code.

A small, safe evaluator for the expressions that decide how much work a kernel does:
``atoi(argv[1])``, ``(argc > 2) ? atoi(argv[2]) : 1 << 20``, ``(n + 255) / 256``,
``dim3 grid(n / 256)``, ``sizeof(float) * n``, ``#define`` constants. Nothing is executed;
anything it cannot evaluate raises :class:`Unevaluable` (a :class:`LaunchError`), so callers
know a number is unknown instead of receiving a silent guess.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ridgeline.errors import LaunchError
from ridgeline.limits import MAX_EVAL_EXPANSIONS, MAX_MACRO_DEPTH

__all__ = ["Unevaluable", "Env", "evaluate", "try_evaluate", "split_args", "TYPE_SIZES"]


class Unevaluable(LaunchError):
    """An expression depends on something unknown (a runtime value, an unsupported form)."""


#: byte sizes of C/C++/CUDA scalar types (what ``sizeof`` and pointer element sizes use)
TYPE_SIZES: dict[str, int] = {
    "char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1, "uchar": 1, "unsigned char": 1,
    "short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2, "ushort": 2,
    "__nv_bfloat16": 2, "half2": 4, "__half2": 4,
    "int": 4, "unsigned": 4, "unsigned int": 4, "uint": 4, "int32_t": 4, "uint32_t": 4,
    "float": 4, "real": 4, "float2": 8, "int2": 8, "uint2": 8,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "size_t": 8,
    "int64_t": 8, "uint64_t": 8, "double": 8, "ptrdiff_t": 8, "long int": 8,
    "float3": 12, "int3": 12, "float4": 16, "int4": 16, "double2": 16, "uint4": 16,
    "double4": 32, "double3": 24,
}
_CONSTS: dict[str, float] = {
    "true": 1, "false": 0, "NULL": 0, "nullptr": 0, "M_PI": math.pi, "INT_MAX": 2**31 - 1,
    "UINT_MAX": 2**32 - 1, "FLT_MAX": 3.4028235e38, "DBL_MAX": 1.7976931348623157e308,
    "RAND_MAX": 2**31 - 1, "EXIT_SUCCESS": 0, "EXIT_FAILURE": 1, "warpSize": 32,
}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFuUlL]*)"
    r"|(?P<str>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)')"
    r"|(?P<id>(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)"
    r"|(?P<op><<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||->|\+\+|--|[-+*/%<>!~&|^?:(),\[\].{}]))"
)
_CAST_TYPES = set(TYPE_SIZES) | {"signed", "const", "unsigned", "long", "std::size_t"}
_BINARY: list[tuple[set[str], int]] = [
    ({"||"}, 1), ({"&&"}, 2), ({"|"}, 3), ({"^"}, 4), ({"&"}, 5), ({"==", "!="}, 6),
    ({"<", "<=", ">", ">="}, 7), ({"<<", ">>"}, 8), ({"+", "-"}, 9), ({"*", "/", "%"}, 10),
]
_PREC = {op: p for ops, p in _BINARY for op in ops}


@dataclass
class Dim:
    """A dim3 value (``grid.x`` etc.)."""

    x: float = 1
    y: float = 1
    z: float = 1


def _num(text: str) -> float:
    t = text.rstrip("uUlLfF") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if re.fullmatch(r"0[0-7]+", t):
        return int(t, 8)
    if re.fullmatch(r"\d+", t):
        return int(t)
    return float(t)


@dataclass
class Env:
    """What names mean: variables (evaluated), macros (expression text) and argv."""

    vars: dict[str, Any] = field(default_factory=dict)
    macros: Mapping[str, str] = field(default_factory=dict)
    argv: list[str] | None = None

    def child(self, **vars: Any) -> Env:
        return Env({**self.vars, **vars}, self.macros, self.argv)


def split_args(args: str) -> list[str]:
    """A command line as the program's argv (program name first)."""
    try:
        parts = shlex.split(args or "")
    except ValueError:
        parts = (args or "").split()
    return ["prog", *parts]


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise Unevaluable(f"cannot read {text[pos:pos + 20]!r} in expression {text!r}")
        kind = m.lastgroup or "op"
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str, env: Env, depth: int, budget: list[int] | None = None) -> None:
        if depth > MAX_MACRO_DEPTH:
            raise Unevaluable(f"macro expansion deeper than {MAX_MACRO_DEPTH} levels at "
                              f"{text[:80]!r}")
        self.text, self.env, self.depth = text, env, depth
        #: macro expansions left for the whole expression (shared with nested parsers)
        self.budget = [MAX_EVAL_EXPANSIONS] if budget is None else budget
        self.toks = _tokens(text)
        self.i = 0
        self.skip = 0  # > 0 while parsing a ternary branch that is not taken

    def lazy(self, fn: Callable[[], Any], taken: bool) -> Any:
        if taken:
            return fn()
        self.skip += 1
        try:
            return fn()
        finally:
            self.skip -= 1

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.toks[j][1] if j < len(self.toks) else None

    def take(self, expect: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expect is not None and tok != expect):
            raise Unevaluable(f"expected {expect or 'more'} in {self.text!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        v = self.ternary()
        if self.peek() is not None:
            raise Unevaluable(f"unexpected {self.peek()!r} in {self.text!r}")
        return v

    def ternary(self) -> Any:
        cond = self.binary(1)
        if self.peek() == "?":
            self.take()
            t = self.skip > 0 or _truth(cond)
            a = self.lazy(self.ternary, t)
            self.take(":")
            b = self.lazy(self.ternary, not t or self.skip > 0)
            return a if t else b
        return cond

    def binary(self, min_prec: int) -> Any:
        left = self.unary()
        while True:
            op = self.peek()
            prec = _PREC.get(op or "")
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec + 1)
            try:
                left = _apply(op or "", left, right)
            except Unevaluable:
                if not self.skip:
                    raise
                left = 0

    def unary(self) -> Any:
        tok = self.peek()
        if tok in ("-", "+", "!", "~"):
            self.take()
            v = _scalar(self.unary())
            return {"-": -v, "+": v, "!": int(not v), "~": ~int(v)}[tok]
        if tok == "(" and self._is_cast():
            self.take()
            ty = []
            while self.peek() != ")":
                ty.append(self.take())
            self.take(")")
            return _cast(" ".join(ty), self.unary())
        return self.postfix(self.primary())

    def _is_cast(self) -> bool:
        j, words = self.i + 1, []
        while j < len(self.toks) and self.toks[j][1] != ")":
            words.append(self.toks[j][1])
            j += 1
        return bool(words) and all(w in _CAST_TYPES or w == "*" for w in words) and (
            j + 1 < len(self.toks) and self.toks[j + 1][1] not in _PREC and
            self.toks[j + 1][1] not in (")", "?", ":", ",")
        )

    def postfix(self, v: Any) -> Any:
        while self.peek() in (".", "[", "->"):
            op = self.take()
            if op == "[":
                idx = _scalar(self.ternary())
                self.take("]")
                if self.skip:
                    v = "0"
                    continue
                if not isinstance(v, list | tuple | str):
                    raise Unevaluable(f"cannot index a non-array in {self.text!r}")
                if not 0 <= int(idx) < len(v):
                    raise Unevaluable(f"index {int(idx)} out of range in {self.text!r}")
                v = v[int(idx)]
            else:
                name = self.take()
                if isinstance(v, Dim) and name in ("x", "y", "z"):
                    v = getattr(v, name)
                elif name in ("size", "length") and self.peek() == "(":
                    self.take("(")
                    self.take(")")
                    if not isinstance(v, list | tuple | str):
                        raise Unevaluable(f".{name}() of an unknown object in {self.text!r}")
                    v = len(v)
                else:
                    raise Unevaluable(f"member {name!r} unknown in {self.text!r}")
        return v

    def primary(self) -> Any:
        kind, tok = self.toks[self.i] if self.i < len(self.toks) else ("", "")
        if not tok:
            raise Unevaluable(f"expression {self.text!r} ends early")
        self.i += 1
        if kind == "num":
            return _num(tok)
        if kind == "str":
            return tok[1:-1]
        if tok == "(":
            v = self.ternary()
            self.take(")")
            return v
        if kind == "id":
            return self.name(tok)
        raise Unevaluable(f"unexpected {tok!r} in {self.text!r}")

    def call_args(self) -> list[Any]:
        self.take("(")
        out: list[Any] = []
        if self.peek() == ")":
            self.take()
            return out
        while True:
            out.append(self.ternary())
            if self.take() == ")":
                return out

    def name(self, tok: str) -> Any:
        base = tok.split("::")[-1]
        if base in ("static_cast", "reinterpret_cast") and self.peek() == "<":
            self.take("<")
            ty = []
            while self.peek() != ">":
                ty.append(self.take())
            self.take(">")
            (arg,) = self.call_args()
            return _cast(" ".join(ty), arg)
        if base == "sizeof":
            return self.sizeof()
        if self.peek() == "(" and base in _FUNCS:
            return _FUNCS[base](self, self.call_args())
        if self.peek() == "<" and base in ("min", "max") :  # std::min<int>(a, b)
            while self.take() != ">":
                pass
            return _FUNCS[base](self, self.call_args())
        env = self.env
        if tok in env.vars:
            return env.vars[tok]
        if base in env.vars:
            return env.vars[base]
        if tok == "argv" and env.argv is not None:
            return env.argv
        if tok == "argc" and env.argv is not None:
            return len(env.argv)
        if tok in env.macros:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise Unevaluable(f"more than {MAX_EVAL_EXPANSIONS} macro expansions in one "
                                  f"expression (at {tok!r})")
            return _Parser(env.macros[tok], env, self.depth + 1, self.budget).parse()
        if base in _CONSTS:
            return _CONSTS[base]
        if self.skip:
            return 0
        raise Unevaluable(f"{tok!r} has no known value (in {self.text!r})")

    def sizeof(self) -> Any:
        self.take("(")
        words = []
        while self.peek() != ")":
            words.append(self.take())
        self.take(")")
        ty = " ".join(w for w in words if w not in ("const", "struct", "std", "::"))
        if ty.endswith("*"):
            return 8
        if ty in TYPE_SIZES:
            return TYPE_SIZES[ty]
        raise Unevaluable(f"sizeof({ty}) unknown")


def _truth(v: Any) -> bool:
    return bool(_scalar(v))


def _scalar(v: Any) -> Any:
    if isinstance(v, int | float):
        return v
    if isinstance(v, Dim):
        return v.x
    raise Unevaluable(f"value {v!r} is not a number")


def _cast(ty: str, v: Any) -> Any:
    v = _scalar(v)
    if any(w in ty for w in ("float", "double", "real")) and "*" not in ty:
        return float(v)
    return int(v)


def _apply(op: str, a: Any, b: Any) -> Any:
    a, b = _scalar(a), _scalar(b)
    both_int = isinstance(a, int) and isinstance(b, int)
    if op in ("/", "%") and b == 0:
        raise Unevaluable("division by zero")
    if op == "/":
        return int(a / b) if both_int else a / b
    if op == "%":
        return int(math.fmod(a, b)) if both_int else math.fmod(a, b)
    if op in ("<<", ">>", "&", "|", "^"):
        a, b = int(a), int(b)
        if op == "<<" and b > 64:
            raise Unevaluable("shift too large")
    fns: dict[str, Callable[[Any, Any], Any]] = {
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "&": lambda x, y: x & y,
        "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "<": lambda x, y: int(x < y),
        "<=": lambda x, y: int(x <= y), ">": lambda x, y: int(x > y),
        ">=": lambda x, y: int(x >= y), "==": lambda x, y: int(x == y),
        "!=": lambda x, y: int(x != y), "&&": lambda x, y: int(bool(x) and bool(y)),
        "||": lambda x, y: int(bool(x) or bool(y)),
    }
    return fns[op](a, b)


def _to_int(p: _Parser, a: list[Any]) -> Any:
    if not a or not isinstance(a[0], str):
        raise Unevaluable(f"string conversion of a non-string in {p.text!r}")
    s = a[0].strip()
    base = int(a[2]) if len(a) > 2 and isinstance(a[2], int) and a[2] else 10
    m = re.match(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)", s)
    if not m:
        return 0  # atoi of a non-number is 0, as in C
    return int(m.group(0), 0 if base == 16 or m.group(1).lower().startswith("0x") else base)


def _to_float(p: _Parser, a: list[Any]) -> Any:
    if not a or not isinstance(a[0], str):
        raise Unevaluable(f"string conversion of a non-string in {p.text!r}")
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", a[0])
    return float(m.group(0)) if m else 0.0


def _math(fn: Callable[..., Any], n: int = 1) -> Callable[[_Parser, list[Any]], Any]:
    def call(p: _Parser, a: list[Any]) -> Any:
        if len(a) != n:
            raise Unevaluable(f"wrong argument count in {p.text!r}")
        return fn(*(_scalar(x) for x in a))

    return call


_FUNCS: dict[str, Callable[[_Parser, list[Any]], Any]] = {
    **{k: _to_int for k in ("atoi", "atol", "atoll", "strtol", "strtoul", "strtoll", "strtoull",
                            "stoi", "stol", "stoll", "stoul", "stoull")},
    **{k: _to_float for k in ("atof", "strtod", "strtof", "stof", "stod")},
    "min": _math(min, 2), "max": _math(max, 2), "fmin": _math(min, 2), "fmax": _math(max, 2),
    "MIN": _math(min, 2), "MAX": _math(max, 2),
    "ceil": _math(math.ceil), "floor": _math(math.floor), "sqrt": _math(math.sqrt),
    "sqrtf": _math(math.sqrt), "pow": _math(math.pow, 2), "powf": _math(math.pow, 2),
    "log2": _math(math.log2), "log": _math(math.log), "abs": _math(abs), "fabs": _math(abs),
    "exp": _math(math.exp), "exp2": _math(lambda x: 2.0**x), "ceilf": _math(math.ceil),
    "int": _math(int), "float": _math(float), "double": _math(float), "size_t": _math(int),
    "dim3": lambda p, a: Dim(*(_scalar(x) for x in a[:3])),
}


def evaluate(expr: str, env: Env | None = None) -> Any:
    """Value of a C expression (int, float, str or dim3) or :class:`Unevaluable`."""
    if not expr or not expr.strip():
        raise Unevaluable("empty expression")
    try:
        return _Parser(expr.strip(), env or Env(), 0).parse()
    except (OverflowError, ValueError, TypeError, RecursionError) as e:
        raise Unevaluable(f"cannot evaluate {expr!r}: {e}") from None


def try_evaluate(expr: str, env: Env | None = None) -> Any | None:
    """Like :func:`evaluate`, but ``None`` when the value is unknown."""
    try:
        return evaluate(expr, env)
    except LaunchError:
        return None
