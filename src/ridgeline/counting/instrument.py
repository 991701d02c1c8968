"""LLVM IR instrumentation (textual, LLVM 15 opaque pointers).

Every basic block gets an inline counter increment (``__rl_bbc[id] += 1``), in CUDA builds
adds its operations to the running thread's work (``__rl_tw``), and gets a static histogram
of what it executes (FLOPs by precision with FMA = 2 and library math functions as
their GPU instruction equivalents, integer operations by kind). Every load, store, atomic and
memcpy/memset gets a call to the counting runtime with its address and size. Dynamic counts
are then ``sum(block executions x block histogram)``; the runtime classifies addresses
(global / shared / local stack) and models the L2.

Why IR and not a source rewrite or valgrind: after ``opt -O2`` every floating-point
operation, integer operation and memory access is one explicit instruction with its type,
independent of C++ templates, macros and operator overloading; counting per basic block costs
one increment, so instrumented programs run at near native speed between counted launches
(valgrind runs everything 20-50x slower and cannot tell float from double arithmetic
without a custom tool).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ridgeline.counting.contraction import fused_multiplies
from ridgeline.counting.irsyntax import FP_FLAGS, LABEL, VEC, fp_lanes
from ridgeline.counting.mathops import (
    APPROX_SQRTF_FLOPS,
    DEFAULT_ARCH,
    FAST_SIN_COS_SHARED,
    INT_CALL_OPS,
    MATH_PREFIX_SKIP,
    SIN_COS_REDUCTION,
    SINH_COSH_SHARED,
    math_table,
    non_flops,
)
from ridgeline.counting.predicated import count_if, speculated

__all__ = ["Instrumented", "instrument_ir", "wrap_omp_regions", "OMP_PREFIX", "function_refs",
           "reachable", "launch_roots", "local_arrays", "mark_kernel_entries",
           "keep_math_calls", "math_name"]

OMP_PREFIX = "__omp_offloading_"

_SIZES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "i128": 16, "half": 2, "bfloat": 2,
          "float": 4, "double": 8, "x86_fp80": 16, "fp128": 16, "ptr": 8}
_DEFINE = re.compile(r"^define\b[^@]*@(\"[^\"]+\"|[\w.$]+)\(")
_FPOP = re.compile(rf"=\s*(fadd|fsub|fmul|fdiv|frem)\s+{FP_FLAGS}(<(\d+) x (\w+)>|\w+)")
_INTOP = re.compile(
    r"=\s*(add|sub|mul|udiv|sdiv|urem|srem|shl|lshr|ashr|and|or|xor)\s+"
    r"(?:(?:nuw|nsw|exact)\s+)*(<(\d+) x (i\d+)>|i\d+)")
_DIVS = ("udiv", "sdiv", "urem", "srem")
#: the first operand of an ``fdiv`` is exactly one (``1.000000e+00``; hexadecimal for floats
#: is always the double's bit pattern)
_ONE = re.compile(r"\s*(?:1\.0+(?:e\+0+)?|0x3FF0000000000000)\s*,")
_CALL = re.compile(r"\bcall\b.*?@(\"[^\"]+\"|[\w.$]+)\(")
_OMP_EMULATED = re.compile(
    r"@((?:__kmpc_(?:fork_call|fork_teams|push_num_teams|push_num_threads|barrier"
    r"|for_static_init_(?:4u|4|8u|8)|for_static_fini|dispatch_init_(?:4u|4|8u|8)"
    r"|dispatch_next_(?:4u|4|8u|8)|reduce_nowait|end_reduce_nowait|reduce|end_reduce"
    r"|critical_with_hint|critical|end_critical|single|end_single|master|end_master"
    r"|masked|end_masked))|omp_get_(?:team_num|thread_num|num_teams|num_threads))\(")


@dataclass
class Instrumented:
    """Result of instrumenting one module."""

    text: str
    #: static histogram per basic-block id (global numbering): category -> count
    blocks: dict[int, dict[str, float]] = field(default_factory=dict)
    #: function owning each block id (for reports)
    block_func: dict[int, str] = field(default_factory=dict)
    next_id: int = 0


def split_top(s: str) -> list[str]:
    """Split at commas that are not inside (), [], {}, <> or quotes."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, False
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "([{<":
            depth += 1
        elif not quote and ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def type_size(t: str) -> int:
    t = t.strip()
    if t in _SIZES:
        return _SIZES[t]
    m = VEC.match(t)
    if m:
        return int(m.group(1)) * type_size(m.group(2))
    m = re.match(r"^\[(\d+) x (.+)\]$", t)
    if m:
        return int(m.group(1)) * type_size(m.group(2))
    if t.startswith("{") or t.startswith("%"):
        return 8  # aggregate loads are rare after O2; approximate
    return 8


def _intrinsic_prec(name: str) -> str | None:
    for suffix, prec in ((".f16", "hp"), (".bf16", "hp"), (".f32", "sp"), (".f64", "dp"),
                         ("f16", "hp"), ("f32", "sp"), ("f64", "dp")):
        if name.endswith(suffix):
            return prec
    return None


def _vec_lanes(name: str) -> int:
    m = re.search(r"\.v(\d+)f\d+$", name)
    return int(m.group(1)) if m else 1


#: a C++ function's name inside its mangled one (``_ZL8normcdfff``: the CPU layer's static
#: inline ``normcdff``; ``_Z6rsqrtff``), and the parameters a math function's may have:
#: scalars, ``(int, const T *)`` (``normf``), ``(T, T *, T *)`` (``sincosf``), ``(T, T *)``
#: (``modff``), ``(T, [T,] int *)`` (``frexpf``, ``remquof``)
_MANGLED = re.compile(r"_ZL?(\d+)")
_MATH_PARAMS = re.compile(r"[fdil]+|iPK[fd]|([fd])P\1(?:S_)?|[fd]{1,2}Pi")

#: the floating-point type an overloaded LLVM intrinsic is named for (``llvm.ldexp.f32.i32``)
_INTRINSIC_TYPE = re.compile(r"\.(?:v\d+)?(b?f16|f32|f64)\b")


def math_name(name: str, table: dict[str, tuple[str, dict[str, float]]] | None = None
              ) -> str | None:
    """The CUDA math function (a key of *table*, by default ``mathops.math_table()``) a
    called or defined symbol stands for, else None: the name itself, an LLVM intrinsic's
    (``llvm.sin.f32``: ``sinf``) or the identifier inside a mangled C++ name whose
    parameters are a math function's of its precision (``_ZL8normcdfff``: the CPU layer's
    inline ``normcdff``; a program's own ``norm(float *, int)`` is none)."""
    table = math_table() if table is None else table
    prec = None
    if name.startswith("llvm."):
        key = name[5:].split(".")[0]
        tm = _INTRINSIC_TYPE.search(name)
        prec = _intrinsic_prec(tm.group(1)) if tm else None
    elif m := _MANGLED.match(name):
        key = name[m.end():m.end() + int(m.group(1))]
        params = name[m.end() + len(key):]
        if not _MATH_PARAMS.fullmatch(params):
            return None
        prec = "dp" if "d" in params else "sp" if "f" in params else None
        if key in table and prec and table[key][0] != prec and key + "f" not in table:
            return None
    else:
        key = name
    if prec == "sp" and key + "f" in table:
        key += "f"
    return key if key in table else None


def classify_call(name: str, hist: dict[str, float], fast_math: bool = False,
                  approx_sqrt: bool = False, arch: str = DEFAULT_ARCH) -> str | None:
    """Add the operations a called function stands for (math library, FMA intrinsics):
    a math function of the CUDA Math API counts what nvcc's code for *arch* executes
    (:func:`~ridgeline.counting.mathops.math_table`), with *fast_math* (nvcc
    -use_fast_math) that of the fast-math build; with *approx_sqrt* ``sqrtf`` is the
    approximate one (:data:`~ridgeline.counting.mathops.APPROX_SQRTF_FLOPS`). Returns the
    math function a scalar call resolved to (``sinf`` for ``llvm.sin.f32``), else None."""
    name = name.strip('"')
    if name.startswith(("llvm.fmuladd.", "llvm.fma.")):
        fprec = _intrinsic_prec(name) or "sp"
        hist[fprec] = hist.get(fprec, 0) + 2 * _vec_lanes(name)
        return None
    if name.startswith(MATH_PREFIX_SKIP):
        return None
    if name in INT_CALL_OPS:
        kind, n = INT_CALL_OPS[name]
        hist[kind] = hist.get(kind, 0) + n
        return None
    table = math_table(arch, "fast" if fast_math else "default")
    key = math_name(name, table)
    if key is None or key in non_flops():
        return None
    p, flops = table[key]
    if approx_sqrt and key == "sqrtf":
        flops = {"sp": APPROX_SQRTF_FLOPS}
    if name.startswith("llvm.") and _intrinsic_prec(name) == "hp":
        # half-precision intrinsics (llvm.sqrt.f16) count the function's figure in half
        # precision
        p, flops = "hp", {"hp": sum(flops.values())}
    lanes = _vec_lanes(name)
    for fprec, n in flops.items():
        hist[fprec] = hist.get(fprec, 0) + n * lanes
    hist.setdefault(p, 0)
    hist["math_calls"] = hist.get("math_calls", 0) + 1
    return key if lanes == 1 else None


def keep_math_calls(text: str) -> str:
    """Mark the definitions of CUDA math functions in *text* (the CPU layer's inline
    ``normcdff`` or ``sinpif``, before the optimizer) ``noinline``: their calls stay calls,
    counted as the GPU's code for the function (:func:`classify_call`), and their CPU bodies
    are not counted (:func:`instrument_ir` leaves them out)."""
    out = []
    for line in text.split("\n"):
        m = _DEFINE.match(line)
        if m and _is_math_definition(m.group(1)) and " noinline" not in line:
            line = line[:line.rindex(")") + 1] + " noinline" + line[line.rindex(")") + 1:]
        out.append(line)
    return "\n".join(out)


def _is_math_definition(fname: str) -> bool:
    key = math_name(fname.strip('"'))
    return key is not None and key not in non_flops()


_SIN_COS = {"sinf": ("sp", "sin"), "cosf": ("sp", "cos"), "sin": ("dp", "sin"),
            "cos": ("dp", "cos"), "sinhf": ("sp", "sinh"), "coshf": ("sp", "cosh"),
            "sinh": ("dp", "sinh"), "cosh": ("dp", "cosh"),
            "__rl_sinf_fast": ("sp", "fsin"), "__rl_cosf_fast": ("sp", "fcos")}
#: the first function of a pair whose shared work nvcc computes once -> (second, FLOPs saved)
_SHARED_PAIRS = {"sin": ("cos", SIN_COS_REDUCTION), "sinh": ("cosh", SINH_COSH_SHARED),
                 "fsin": ("fcos", FAST_SIN_COS_SHARED)}


def _sin_cos_call(line: str, name: str, key: str | None,
                  fast_math: bool = False) -> tuple[str, str, str] | None:
    """(precision, kind, argument) of a call that *classify_call* resolved to a scalar sine
    or cosine (*key*; ``fsin`` / ``fcos`` for the approximate ones, which ``sinf`` and
    ``cosf`` become under *fast_math*), else None."""
    kind = _SIN_COS.get(key or "")
    if kind is None:
        return None
    if fast_math and kind in (("sp", "sin"), ("sp", "cos")):
        kind = ("sp", "f" + kind[1])
    args = line[line.index(f"@{name}(") + len(name) + 2:]
    return kind[0], kind[1], split_top(args.rsplit(")", 1)[0])[0].strip()


def shared_sin_cos(calls: list[tuple[str, str, str]]) -> dict[str, float]:
    """FLOPs to take back where a block computes the sine and the cosine of one value: nvcc
    inlines both with one range reduction between them (``SIN_COS_REDUCTION``); likewise the
    hyperbolic sine and cosine, one exponential (``SINH_COSH_SHARED``), and the approximate
    ones, one multiply (``FAST_SIN_COS_SHARED``)."""
    out: dict[str, float] = {}
    seen = set(calls)
    for prec, kind, arg in seen:
        pair = _SHARED_PAIRS.get(kind)
        if pair and (prec, pair[0], arg) in seen:
            out[prec] = out.get(prec, 0.0) + pair[1][prec]
    return out


def _add(hist: dict[str, float], key: str, n: float) -> None:
    hist[key] = hist.get(key, 0) + n


_DDIV = re.compile(rf"^\s*(%[-\w.$]+)\s*=\s*fdiv\s+{FP_FLAGS}double\s+(.*)$")


def _ddiv_hook(line: str) -> str | None:
    """The runtime call after a scalar double division: whether the GPU's division would
    leave its fast path for these values (``__rl_ddiv`` in rl_count.c), None otherwise."""
    m = _DDIV.match(line)
    if not m:
        return None
    ops = split_top(m.group(2))
    if len(ops) < 2:
        return None
    return f"  call void @__rl_ddiv(double {ops[0]}, double {ops[1]}, double {m.group(1)})"


def _runtime_divisor(ops: list[str]) -> bool:
    """Whether the divisor (second of an integer division's operands, split and stripped) is
    a value, not a constant: ``%a, %b`` yes; ``%a, 7`` or a constant vector no (the compiler
    turns those into multiply-high and shifts, which int_arith already counts at -O2)."""
    return len(ops) >= 2 and ops[1].startswith("%")


#: the division a remainder pairs with (same signedness, same operands), and back
_DIV_PARTNER = {"udiv": "urem", "urem": "udiv", "sdiv": "srem", "srem": "sdiv"}


def _static_ops(line: str, hist: dict[str, float], fast_math: bool = False,
                divs: set[tuple[str, str, str]] | None = None) -> None:
    """Add one instruction's operations to *hist*. *divs*, the integer divisions by run-time
    values seen so far in the basic block: a quotient and a remainder of the same operands
    are one division on the GPU, the second a multiply and a subtract (LLVM's DivRemPairs
    does this for targets without a combined instruction, NVPTX among them; on x86, which
    has one, both stay divisions in the IR the CPU build counts)."""
    m = _FPOP.search(line)
    if m:
        prec, lanes = fp_lanes(m.group(2))
        if prec:
            _add(hist, prec, lanes)
            if m.group(1) == "fdiv":
                # IEEE division adds its refinement later (a reciprocal, ``1 / x``, a shorter
                # one); fast math divides approximately, its reciprocal is one MUFU
                rcp = _ONE.match(line[m.end():]) is not None
                if not (fast_math and prec == "sp"):
                    _add(hist, f"{'rcp' if rcp else 'div'}_{prec}", lanes)
                elif rcp:
                    _add(hist, prec, -lanes)
        return
    m = _INTOP.search(line)
    if m:
        ty = m.group(4) or m.group(2)
        lanes = int(m.group(3)) if m.group(3) else 1
        if ty != "i1":
            kind = "int_logic" if m.group(1) in ("and", "or", "xor", "shl", "lshr", "ashr") \
                else "int_arith"
            _add(hist, kind, lanes)
            ops = [o.strip() for o in split_top(line[m.end():].strip())[:2]] \
                if m.group(1) in _DIVS else []
            if _runtime_divisor(ops):
                operands = ",".join(ops)
                if divs is not None and (_DIV_PARTNER[m.group(1)], ty, operands) in divs:
                    _add(hist, "int_arith", lanes)  # the multiply; the subtract counted above
                else:
                    _add(hist, "int_div", lanes)
                    if divs is not None:
                        divs.add((m.group(1), ty, operands))
        return
    if re.search(r"=\s*icmp\s", line):
        _add(hist, "int_cmp", 1)
    elif re.search(r"=\s*fcmp\s", line):
        _add(hist, "fp_cmp", 1)
    elif re.search(r"=\s*select\s", line):
        _add(hist, "select", 1)
    elif re.search(r"=\s*getelementptr\b", line):
        # address arithmetic: one integer op when some index is not a constant
        if re.search(r",\s*i\d+\s+%", line):
            _add(hist, "int_gep", 1)
    elif re.search(r"=\s*(sext|zext|trunc)\s", line):
        _add(hist, "int_conv", 1)
    elif re.search(r"=\s*(sitofp|uitofp|fptosi|fptoui|fpext|fptrunc)\s", line):
        _add(hist, "fp_conv", 1)


_ANNOTATED = re.compile(r"\{\s*ptr\s+(@[-\w.$\"]+),\s*ptr\s+(@[-\w.$]+),")


def mark_kernel_entries(text: str, tag: str = "rl_kernel") -> str:
    """Have each function annotated *tag* (``__global__`` in the CUDA layer) tell the runtime
    its mangled name when a thread enters it (``__rl_instance``, first thread of a launch), so
    a launch record names the template instantiation it ran. The call touches no memory the
    program sees (``inaccessiblememonly``): the optimizer moves and folds the kernel's code
    as before, and the counters skip it. For unoptimized IR, before the optimizer inlines
    kernels into their launch lambdas."""
    strings = {m.group(1): m.group(2) for m in re.finditer(
        r'^(@[-\w.$]+) = [^\n]*constant \[\d+ x i8\] c"([^"]*)\\00"', text, re.M)}
    ann = next((ln for ln in text.splitlines() if ln.startswith("@llvm.global.annotations")),
               "")
    kernels = {f for f, s in _ANNOTATED.findall(ann) if strings.get(s) == tag}
    if not kernels:
        return text
    out: list[str] = []
    consts: list[str] = []
    for line in text.splitlines():
        out.append(line)
        m = _DEFINE.match(line)
        if m and "@" + m.group(1) in kernels and line.rstrip().endswith("{"):
            name = m.group(1).strip('"')
            gname = f"@__rl_instance.{len(consts)}"
            consts.append(f'{gname} = private unnamed_addr constant [{len(name) + 1} x i8] '
                          f'c"{name}\\00"')
            out.append(f"  call void @__rl_instance(ptr {gname})")
    out += consts
    out.append("declare void @__rl_instance(ptr) inaccessiblememonly nounwind willreturn")
    return "\n".join(out) + "\n"


def _omp_rename(m: re.Match[str]) -> str:
    """``@__kmpc_barrier(`` -> ``@__rl_kmpc_barrier(``, ``@omp_get_x(`` -> ``@__rl_omp_get_x(``"""
    return "@__rl_" + m.group(1).removeprefix("__") + "("


def _mem_hook(line: str) -> str | None:
    """The runtime call to insert before a memory instruction (None if not one)."""
    s = line.strip()
    m = re.match(r"^%[-\w.$]+\s*=\s*load\s+(atomic\s+)?(volatile\s+)?(.*)$", s)
    if m:
        ops = split_top(m.group(3))
        if len(ops) >= 2 and ops[1].startswith("ptr "):
            ptr = _ptr_operand(ops[1])
            if ptr is None:
                return None
            return _volatile_step(m, ptr) + f"call void @__rl_ld({ptr}, i64 {type_size(ops[0])})"
        return None
    m = re.match(r"^store\s+(atomic\s+)?(volatile\s+)?(.*)$", s)
    if m:
        ops = split_top(m.group(3))
        if len(ops) >= 2 and ops[1].startswith("ptr "):
            ty = ops[0].rsplit(" ", 1)[0] if not ops[0].startswith("<") else \
                ops[0][: ops[0].index(">") + 1]
            ptr = _ptr_operand(ops[1])
            if ptr is None:
                return None
            return _volatile_step(m, ptr) + f"call void @__rl_st({ptr}, i64 {type_size(ty)})"
        return None
    m = re.match(r"^(?:%[-\w.$]+\s*=\s*)?(atomicrmw|cmpxchg)\s+(?:volatile\s+)?(?:\w+\s+)?"
                 r"(ptr [^,]+),\s*(\S+)", s)
    if m:
        ops = split_top(s[s.index("ptr ", m.start(2)):])  # the pointer may be a constant GEP
        ptr = _ptr_operand(ops[0].strip()) if len(ops) >= 2 else None
        if ptr is None:
            return None
        # a float add as one atomic (OpenMP's atomic update): on the GPU a compare-and-swap
        # loop around the FADD where the memory is on-chip (the runtime decides, counts it);
        # float atomics are told apart (__rl_atom_f): a warp's integer ones on one address
        # go to the L2 as one, its float ones one by one
        fa = re.match(r"atomicrmw\s+(?:volatile\s+)?(fadd|fsub|fmax|fmin)\s", s[m.start(1):])
        fn = "__rl_atom_f" if fa else "__rl_atom"
        call = f"call void @{fn}({ptr}, i64 {type_size(ops[1].split()[0])})"
        prec = {"float": 0, "double": 1}.get(ops[1].split()[0]) if fa and fa.group(1) in (
            "fadd", "fsub") else None
        if prec is not None:
            call += f"\n  call void @__rl_fatomic({ptr}, i32 {prec})"
        return call
    m = re.search(r"call void @llvm\.(memcpy|memmove|memset)\.[\w.]+\((.*)\)", s)
    if m:
        ops = split_top(m.group(2))
        if len(ops) < 3:
            return None
        dst = _strip_ptr_attrs(ops[0])
        n64 = ops[2] if ops[2].startswith("i64 ") else None
        if n64 is None or dst is None:
            return None
        calls = [f"call void @__rl_st({dst}, {n64})"]
        src = _strip_ptr_attrs(ops[1])
        if m.group(1) != "memset" and src is not None:
            calls.append(f"call void @__rl_ld({src}, {n64})")
        return "\n  ".join(calls)
    return None


def _volatile_step(m: re.Match[str], ptr: str) -> str:
    """Before a plain volatile access: the runtime's warp step (``__rl_vol``), which keeps
    warp-synchronous shared-memory code in lockstep on the CPU."""
    if m.group(1) or not m.group(2):
        return ""
    return f"call void @__rl_vol({ptr})\n  "


def _strip_ptr_attrs(op: str) -> str | None:
    parts = op.split()
    return f"ptr {parts[-1]}" if parts[-1][:1] in "%@" else None


def _ptr_operand(op: str) -> str | None:
    """``ptr %p monotonic`` -> ``ptr %p`` (orderings and sync scopes removed); None for
    operands this instrumenter does not hook (constant expressions, null)."""
    rest = op[4:].strip()
    if rest[:1] in "%@":
        return "ptr " + rest.split()[0].rstrip(",")
    if rest.startswith("getelementptr") and rest.endswith(")"):
        return op
    return None


def _is_phi_or_pad(line: str) -> bool:
    s = line.strip()
    return bool(re.match(r"^%[-\w.$]+\s*=\s*(phi|landingpad)\b", s)) or s.startswith(
        ("cleanup", "catch ", "filter "))


_REF = re.compile(r"@(\"[^\"]+\"|[-\w.$]+)")


def function_refs(text: str) -> dict[str, set[str]]:
    """Each function defined in *text* -> the global names its body refers to (calls and
    function pointers, e.g. outlined OpenMP regions handed to the fork calls). A CUDA math
    function's CPU body refers to nothing: what it calls (libstdc++'s ``cyl_bessel_i``) is
    the CPU's implementation, counted as the GPU's through the call (:func:`classify_call`)."""
    out: dict[str, set[str]] = {}
    cur: str | None = None
    math = False
    for line in text.split("\n"):
        m = _DEFINE.match(line)
        if m and line.rstrip().endswith("{"):
            cur = m.group(1).strip('"')
            out[cur] = set()
            math = _is_math_definition(cur)
            continue
        if cur is None:
            continue
        if line == "}":
            cur = None
            continue
        if "@" in line and not math:
            out[cur].update(r.strip('"') for r in _REF.findall(line))
    return out


def launch_roots(text: str, call: str = "@__rl_run_launch(") -> set[str]:
    """Global names on the lines that call *call* (the CUDA layer's launch entry: the
    function pointer it receives runs the kernel), and the functions annotated in
    ``@llvm.global.annotations`` (the CUDA layer annotates every ``__global__`` function, so
    kernels launched through a function pointer are roots too)."""
    out: set[str] = set()
    for line in text.split("\n"):
        if call in line or line.startswith("@llvm.global.annotations "):
            out.update(r.strip('"') for r in _REF.findall(line))
    out.discard(call[1:-1])
    return out


def reachable(graph: dict[str, set[str]], roots: tuple[str, ...],
              extra: set[str] | None = None) -> set[str]:
    """Functions of *graph* reachable from those whose names start with *roots* or are in
    *extra*."""
    todo = [f for f in graph if f.startswith(roots) or f in (extra or set())]
    seen = set(todo)
    while todo:
        for g in graph.get(todo.pop(), ()):
            if g in graph and g not in seen:
                seen.add(g)
                todo.append(g)
    return seen


def instrument_ir(text: str, first_id: int = 0, skip_funcs: tuple[str, ...] = ("__rl_",),
                  omp: bool = False, only: set[str] | None = None,
                  fast_math: bool = False, approx_sqrt: bool = False,
                  contract: bool = False, arch: str = DEFAULT_ARCH) -> Instrumented:
    """Instrument every function defined in *text* except those starting with *skip_funcs*
    (and, when *only* is given, those not in it: host code then runs uninstrumented).
    *fast_math*: the GPU build uses approximate single-precision math (FAST_MATH_FLOPS);
    *approx_sqrt*: its ``sqrtf`` is the approximate one (APPROX_SQRTF_FLOPS); *contract*:
    it fuses products into every sum using them (contraction.fused_multiplies); *arch*: the
    architecture whose math function costs count (mathops.math_table). A definition of a
    CUDA math function (the CPU layer's ``sinpif``) is left out: its calls count as such."""
    res = Instrumented(text="", next_id=first_id)
    out: list[str] = []
    lines = text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        m = _DEFINE.match(line)
        if not m or not line.rstrip().endswith("{"):
            out.append(line)
            i += 1
            continue
        fname = m.group(1).strip('"')
        j = i + 1
        while j < n and lines[j] != "}":
            j += 1
        body = lines[i + 1 : j]
        out.append(line)
        if (fname.startswith(skip_funcs) or (only is not None and fname not in only)
                or _is_math_definition(fname)):
            out.extend(body)
        else:
            out.extend(_instrument_body(body, fname, res, fast_math, approx_sqrt, contract,
                                        thread_work=not omp, arch=arch))
        out.append("}")
        i = j + 1
    if omp:
        # the runtime's emulation of the offload launch (rl_omp.c) stands in for libomp's
        # teams/parallel/worksharing entry points and the team/thread queries
        out = _note_reduction_flops(out, reduction_flops(text))
        out = [_OMP_EMULATED.sub(_omp_rename, ln) if ("@__kmpc_" in ln or "@omp_get_" in ln)
               else ln for ln in out]
        out.append("declare void @__rl_omp_red_flops(i32, i32, i32, i32)")
    out.append("declare void @__rl_ld(ptr, i64)")
    out.append("declare void @__rl_st(ptr, i64)")
    out.append("declare void @__rl_lda(ptr, i64)")
    out.append("declare void @__rl_sta(ptr, i64)")
    out.append("declare void @__rl_atom(ptr, i64)")
    out.append("declare void @__rl_atom_f(ptr, i64)")
    out.append("declare void @__rl_fatomic(ptr, i32)")
    out.append("declare void @__rl_ddiv(double, double, double)")
    out.append("declare void @__rl_vol(ptr)")
    out.append("@__rl_bbc = external global [0 x i64]")
    if not omp:
        out.append("@__rl_tw = external global i64")
    res.text = "\n".join(out) + "\n"
    # predicated operations count through the runtime's extras (``predicated.count_if``)
    if "%__rl_f" in res.text and not re.search(r"^declare [^@]*@__rl_count_extra\(", text,
                                               re.M):
        res.text += "declare void @__rl_count_extra(i32, i64, i64)\n"
    return res


_REDUCE_CALL = re.compile(
    r"\bcall\b.*@__kmpc_(?:reduce_nowait|reduce)\(.*?ptr\s+(?:\w+\s+)*@([\w.$]*reduction_func[\w.$]*)")


def reduction_flops(text: str) -> dict[str, tuple[int, int, int, int]]:
    """Counted FLOPs (single, double, half precision) and integer operations of one call of
    each function that an OpenMP reduction hands to ``__kmpc_reduce(_nowait)``: what one
    thread's combine costs (``+``/``*`` reductions on floats: one FLOP per variable, on
    integers one integer op; min/max on floats: none, on integers the compare)."""
    names = {m.group(1) for m in _REDUCE_CALL.finditer(text)}
    found: dict[str, tuple[int, int, int, int]] = {}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = _DEFINE.match(line)
        if not m or m.group(1).strip('"') not in names:
            continue
        hist: dict[str, float] = {}
        for body_line in lines[i + 1:]:
            if body_line == "}":
                break
            _static_ops(body_line, hist)
        found[m.group(1).strip('"')] = (
            int(hist.get("sp", 0)), int(hist.get("dp", 0)), int(hist.get("hp", 0)),
            int(sum(hist.get(k, 0) for k in ("int_arith", "int_logic", "int_cmp"))))
    return found


def _note_reduction_flops(lines: list[str],
                          flops: dict[str, tuple[int, int, int, int]]) -> list[str]:
    """Before each ``__kmpc_reduce(_nowait)`` call, tell the runtime what one combine costs
    (rl_omp.c turns it into the GPU's warp and block reduction trees and adds the device
    runtime's own integer work per reduction)."""
    out: list[str] = []
    for line in lines:
        m = _REDUCE_CALL.search(line) if "@__kmpc_reduce" in line else None
        if m:
            sp, dp, hp, ints = flops.get(m.group(1), (0, 0, 0, 0))
            out.append(f"  call void @__rl_omp_red_flops(i32 {sp}, i32 {dp}, i32 {hp}, "
                       f"i32 {ints})")
        out.append(line)
    return out


_ALLOCA = re.compile(r"^\s*(%[-\w.$]+)\s*=\s*alloca\s+(\[|<)")
_GEP = re.compile(r"^\s*(%[-\w.$]+)\s*=\s*getelementptr\s+(?:inbounds\s+)?(.*)$")
_PTR_PHI = re.compile(r"^\s*(%[-\w.$]+)\s*=\s*phi\s+ptr\s+(.*)$")
_PHI_IN = re.compile(r"\[\s*(%[-\w.$]+)\s*,")


def local_arrays(body: list[str]) -> set[str]:
    """Pointers into the function's stack arrays that some access indexes with a run-time
    value (directly or through GEPs of GEPs): the arrays a GPU compiler keeps in local
    memory. Arrays indexed only by constants become registers there (and on the CPU after
    ``opt -O2`` too, mostly), as do scalar stack slots (loop bounds handed to the OpenMP
    runtime, spilled temporaries); their accesses are not local-memory traffic. A pointer that
    a loop steps through an array (a ``phi`` of the array and its own increments, as loop
    strength reduction writes indexing) is a run-time index too."""
    root: dict[str, str] = {}
    dynamic: set[str] = set()
    geps: list[tuple[str, str, bool]] = []  # (name, base, indexed by a run-time value)
    phis: list[tuple[str, list[str]]] = []
    for ln in body:
        m = _ALLOCA.match(ln)
        if m:
            root[m.group(1)] = m.group(1)
            continue
        m = _PTR_PHI.match(ln)
        if m:
            phis.append((m.group(1), _PHI_IN.findall(m.group(2))))
            continue
        m = _GEP.match(ln)
        if not m:
            continue
        ops = split_top(m.group(2))
        if len(ops) < 2 or not ops[1].startswith("ptr "):
            continue
        geps.append((m.group(1), ops[1].split()[-1], any("%" in o for o in ops[2:])))
    changed = True
    while changed:  # a phi may take a GEP defined below it (the loop's increment)
        changed = False
        for name, base, dyn in geps:
            if base in root and name not in root:
                root[name] = root[base]
                changed = True
            if dyn and base in root:
                dynamic.add(root[base])
        for name, incoming in phis:
            src = next((root[v] for v in incoming if v in root), None)
            if src is not None and name not in root:
                root[name] = src
                dynamic.add(src)
                changed = True
    return {name for name, r in root.items() if r in dynamic}


def _thread_work(bid: int, hist: dict[str, float]) -> str:
    """``__rl_tw += w``: the running thread's work, w the block's operations (at least one).
    The CUDA layer reads it around each thread's turns to find a launch's longest thread and
    how far its warps' lanes diverge (OpenMP builds do not add it: their layer does not
    follow GPU threads)."""
    w = max(1, round(sum(v for v in hist.values() if v > 0)))
    return (f"  %__rl_w{bid} = load i64, ptr @__rl_tw, align 8\n"
            f"  %__rl_x{bid} = add i64 %__rl_w{bid}, {w}\n"
            f"  store i64 %__rl_x{bid}, ptr @__rl_tw, align 8")


def _array_hook(hook: str, arrays: set[str]) -> str:
    """Route a hook whose pointer is a dynamic local array to the runtime's array entry."""
    if not arrays:
        return hook
    out = []
    for call in hook.split("\n  "):
        m = re.match(r"call void @__rl_(ld|st)\(ptr (%[-\w.$]+),", call)
        if m and m.group(2) in arrays:
            call = call.replace(f"@__rl_{m.group(1)}(", f"@__rl_{m.group(1)}a(", 1)
        out.append(call)
    return "\n  ".join(out)


def _instrument_body(body: list[str], fname: str, res: Instrumented,
                     fast_math: bool = False, approx_sqrt: bool = False,
                     contract: bool = False, thread_work: bool = True,
                     arch: str = DEFAULT_ARCH) -> list[str]:
    arrays = local_arrays(body)
    spec = speculated(body)
    fused = fused_multiplies(body) if contract else {}
    pending: dict[int, list[str]] = {}  # line -> conditional counts to add after it
    out: list[str] = []
    k = 0
    tmp = 0
    while k < len(body):
        # one basic block: optional label, phis/landingpad, instructions, terminator
        line = body[k]
        if LABEL.match(line):
            out.append(line)
            k += 1
        bid = res.next_id
        res.next_id += 1
        hist: dict[str, float] = {}
        divs: set[tuple[str, str, str]] = set()
        while k < len(body) and _is_phi_or_pad(body[k]):
            out.append(body[k])
            k += 1
        ref = f"getelementptr inbounds (i64, ptr @__rl_bbc, i64 {bid})"
        out.append(f"  %__rl_c{tmp} = load i64, ptr {ref}, align 8")
        out.append(f"  %__rl_d{tmp} = add i64 %__rl_c{tmp}, 1")
        out.append(f"  store i64 %__rl_d{tmp}, ptr {ref}, align 8")
        work_at = len(out)  # the thread's work counter: filled in once the block is scanned
        if thread_work:
            out.append("")
        tmp += 1
        trig: list[tuple[str, str, str]] = []
        while k < len(body) and not LABEL.match(body[k]):
            ln = body[k]
            hook = _mem_hook(ln)
            if hook:
                out.append("  " + _array_hook(hook, arrays))
            target = hist
            if k in spec:
                target = {}
            _static_ops(ln, target, fast_math, divs)
            if k in fused:
                _add(target, *fused[k])
            cm = _CALL.search(ln)
            if cm:
                key = classify_call(cm.group(1), target, fast_math, approx_sqrt, arch)
                sc = _sin_cos_call(ln, cm.group(1), key, fast_math)
                if sc:
                    trig.append(sc)
            if k in spec:
                at, cond, want = spec[k]
                pending.setdefault(at, []).extend(count_if(target, cond, want, tmp))
                tmp += 1
            out.append(ln)
            out.extend(pending.pop(k, []))
            ddiv = _ddiv_hook(ln)
            if ddiv:
                out.append(ddiv)
            k += 1
        for prec, saved in shared_sin_cos(trig).items():
            hist[prec] -= saved
        if thread_work:
            out[work_at] = _thread_work(bid, hist)
        res.blocks[bid] = hist
        res.block_func[bid] = fname
    return out


# --------------------------------------------------------------------------------------
# OpenMP target regions: wrap each host fallback function so the runtime sees its entry


#: the thread and team queries: on the GPU their calls are known to the optimizer (the
#: device runtime's inlined code reads the thread's state), so a second
#: ``omp_get_thread_num() / mx`` after ``omp_get_thread_num() % mx`` is no new division; on
#: the host they are opaque library calls that may write memory, so every call, and every
#: load after one, stayed (reaction-omp's zero-flux derivatives: six divisions by run-time
#: values per thread counted, three on the GPU). Declared reading memory only, not as free
#: of it: a loop with barriers or stores still computes its thread-dependent indices inside,
#: under their conditions, as the GPU's code does (``readnone`` let LICM hoist all of
#: scan-omp's guarded index arithmetic out of its block loop: 8.45 G integer ops counted,
#: 5.10 G measured, 5.07 G with ``readonly``)
_OMP_QUERY_DECL = re.compile(
    r"^declare\b[^@]*@omp_get_(?:thread_num|team_num|num_threads|num_teams)\(\)")


def wrap_omp_regions(text: str) -> tuple[str, list[str]]:
    """Rename each ``__omp_offloading_*`` function to ``<name>.rl_body`` (noinline) and add a
    wrapper with the original name that brackets the call with the runtime's begin/end (and
    skips the region once its launches are counted, when asked). The thread and team queries
    are declared to only read memory (:data:`_OMP_QUERY_DECL`). Works on -O0 IR."""
    names: list[str] = []
    out: list[str] = []
    extra: list[str] = []
    for line in text.split("\n"):
        q = _OMP_QUERY_DECL.match(line)
        if q:  # constant within a thread's call of the outlined function, as on the GPU
            line = line[:q.end()] + " nounwind readonly willreturn" + line[q.end():]
        m = _DEFINE.match(line)
        if m and m.group(1).startswith(OMP_PREFIX) and line.rstrip().endswith("{"):
            name = m.group(1)
            names.append(name)
            head, rest = line.split(f"@{name}(", 1)
            params, tail = _split_params(rest)
            # drop the attribute group (it may say alwaysinline) and forbid inlining
            tail = re.sub(r"\s#\d+", "", tail)
            # function attributes go before section/comdat/.../personality and the body
            at = re.search(r" (?:section|comdat|align|gc|prefix|prologue|personality)\b| \{",
                           tail)
            if at:
                tail = tail[:at.start()] + " noinline" + tail[at.start():]
            out.append(f"{head}@{name}.rl_body({params}{tail}")
            extra.append(_wrapper(name, params, len(names) - 1))
            continue
        out.append(line)
    for idx, name in enumerate(names):
        s = name.encode()
        extra.append(f'@__rl_kn{idx} = private unnamed_addr constant [{len(s) + 1} x i8] '
                     f'c"{name}\\00"')
    if names:
        extra.append("declare i32 @__rl_omp_begin(ptr)")
        extra.append("declare void @__rl_omp_end()")
    return "\n".join(out + extra) + "\n", names


def _split_params(rest: str) -> tuple[str, str]:
    depth = 1
    for i, ch in enumerate(rest):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return rest[:i], rest[i:]
    raise ValueError("unbalanced parameter list")


def _wrapper(name: str, params: str, idx: int) -> str:
    types = [p.split()[0] for p in split_top(params) if p.strip()]
    formal = ", ".join(f"{t} %a{i}" for i, t in enumerate(types))
    actual = formal
    return "\n".join([
        f"define internal void @{name}({formal}) noinline {{",
        f"  %s = call i32 @__rl_omp_begin(ptr @__rl_kn{idx})",
        "  %c = icmp ne i32 %s, 0",
        "  br i1 %c, label %skip, label %run",
        "run:",
        f"  call void @{name}.rl_body({actual})",
        "  call void @__rl_omp_end()",
        "  ret void",
        "skip:",
        "  ret void",
        "}",
    ])
