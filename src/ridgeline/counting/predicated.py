"""Floating-point operations that a GPU runs under a predicate where the CPU optimizer made
them unconditional (``instrument.instrument_ir`` counts them at run time, where their
condition holds)."""

from __future__ import annotations

import re

from ridgeline.counting.irsyntax import DEF, FP_FLAGS, LABEL, NAME, use_counts

__all__ = ["speculated", "count_if"]

_SELECT = re.compile(rf"^\s*(%[-\w.$]+)\s*=\s*select\s+{FP_FLAGS}i1\s+(%[-\w.$]+),\s*"
                     r"(half|bfloat|float|double)\s+(\S+),\s*(?:half|bfloat|float|double)\s+"
                     r"([^,\s]+)\s*$")
_SPEC_OP = re.compile(r"^(?:fadd|fsub|fmul)\s|^(?:tail\s+)?call\b.*@llvm\.(?:fmuladd|fma)\.f\d+\(")
#: the identity of an operation, as the optimizer puts it in a select's other arm
_IDENTITY = {"fmul": ("1.000000e+00", "0x3FF0000000000000"),
             "fadd": ("-0.000000e+00", "0x8000000000000000")}


def speculated(body: list[str]) -> dict[int, tuple[int, str, bool]]:
    """Floating-point operations the CPU optimizer executes unconditionally that a GPU runs
    under a predicate: {line of the operation: (line after which to count it, condition,
    the condition's value that selects it)}.

    ``if (c) y *= d`` reaches the counter as ``select c, (y * d), y`` or, folded further, as
    ``y * (select c, d, 1.0)``; nvcc's ptxas makes the multiply a predicated FMUL that
    counts only where ``c`` holds (particles' integrateSystemK: six boundary multiplies
    counted per particle, none measured). An operation counts conditionally when its one use
    is a select's arm in the same block and the other arm is one of its operands (an update
    in place), or when it takes a select between a value and its identity (1 for a product,
    -0 for a sum) that nothing else uses. What feeds a select between a result and a
    constant stays unconditional: ptxas computes it and selects (dpid's ``f *= 1 - (sx -
    x)``: the FADDs always run, only the FMUL is predicated)."""
    uses = use_counts(body)
    defs: dict[str, int] = {}
    operands: dict[str, set[str]] = {}
    out: dict[int, tuple[int, str, bool]] = {}
    idsel: dict[str, tuple[int, str, bool, str]] = {}
    for i, ln in enumerate(body):
        if LABEL.match(ln):
            defs.clear()
            idsel.clear()
            continue
        m = _SELECT.match(ln)
        if m:
            sel, cond, _, a, b = m.groups()
            for arm, other, want in ((a, b, True), (b, a, False)):
                j = defs.get(arm)
                if j is not None and uses.get(arm) == 2 and other in operands[arm]:
                    out[j] = (i, cond, want)
            if uses.get(sel) == 2:
                for arm, want in ((b, True), (a, False)):
                    for op, ids in _IDENTITY.items():
                        if arm in ids:
                            idsel[sel] = (i, cond, want, op)
            continue
        d = DEF.match(ln)
        if not d:
            continue
        if _SPEC_OP.match(d.group(2)):
            defs[d.group(1)] = i
            op = d.group(2).split()[0]
            operands[d.group(1)] = set(NAME.findall(d.group(2)))
            for o in (operands[d.group(1)] if op in _IDENTITY else ()):
                if o in idsel and idsel[o][3] == op:
                    _, cond, want, _ = idsel[o]
                    out[i] = (i, cond, want)
    return out


def count_if(hist: dict[str, float], cond: str, want: bool, tmp: int) -> list[str]:
    """Runtime calls that add *hist*'s FLOPs when *cond* is *want*."""
    lines = []
    for p, code in (("sp", 0), ("dp", 1), ("hp", 2)):
        n = int(round(hist.get(p, 0)))
        if n:
            a, b = (n, 0) if want else (0, n)
            lines += [f"  %__rl_f{tmp}{p} = select i1 {cond}, i64 {a}, i64 {b}",
                      f"  call void @__rl_count_extra(i32 {code}, i64 %__rl_f{tmp}{p}, i64 0)"]
    return lines
