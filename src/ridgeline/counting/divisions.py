"""Divisions the CPU optimizer would rewrite into something a GPU does not run.

nvcc compiles ``1 / x`` as a reciprocal (5 counted FLOPs in single precision) and any other
quotient as a division (10), ``-1 / x`` included. LLVM's InstCombine on the CPU moves the sign
of ``-1 / x`` into the expression around it (``m * (-1 / dt)`` becomes ``m * (1 / dt)`` with a
subtraction), which the instrumenter would then count as a reciprocal (lif's ``mult *= -1.f /
dt``: 5 FLOPs counted, 10 measured). Before optimization such a division is moved into a small
function the optimizer keeps (``noinline``), so it stays a division."""

from __future__ import annotations

import re

from ridgeline.counting.irsyntax import DEF

__all__ = ["keep_negative_one_divisions", "keep_sign_products"]

_NEG_ONE_DIV = re.compile(r"^(\s*%[-\w.$]+\s*=\s*)fdiv\s+(float|double)\s+"
                          r"(?:-1\.000000e\+00|0xBFF0000000000000),\s*(%[-\w.$]+)\s*$")
_HELPER = "ridgeline.neg_one_div.{}"  # not __rl_: the instrumenter counts it


def keep_negative_one_divisions(text: str) -> str:
    """Replace each plain ``fdiv <ty> -1.0, %x`` in unoptimized IR *text* by a call to an
    internal ``noinline`` function that divides (one per type used)."""
    used: set[str] = set()

    def swap(m: re.Match[str]) -> str:
        ty = m.group(2)
        used.add(ty)
        return f"{m.group(1)}call {ty} @{_HELPER.format(ty)}({ty} {m.group(3)})"

    lines = [_NEG_ONE_DIV.sub(swap, ln) if "fdiv" in ln else ln for ln in text.split("\n")]
    for ty in sorted(used):
        lines += [f"define internal {ty} @{_HELPER.format(ty)}({ty} %x) noinline nounwind {{",
                  f"  %q = fdiv {ty} -1.000000e+00, %x", f"  ret {ty} %q", "}"]
    return "\n".join(lines)


_TO_FP = re.compile(r"^(\s*)(%[-\w.$]+)(\s*=\s*)sitofp\s+(i\d+)\s+(%[-\w.$]+)\s+to\s+"
                    r"(half|float|double)\s*$")
_SUB_ONE = re.compile(r"^sub\s+(?:(?:nuw|nsw)\s+)*i\d+\s+(\S+),\s*(\S+)$")
_TWICE = re.compile(r"^(?:mul\s+(?:(?:nuw|nsw)\s+)*i\d+\s+(?:\S+,\s*2|2,\s*\S+)|"
                    r"shl\s+(?:(?:nuw|nsw)\s+)*i\d+\s+\S+,\s*1)$")


def keep_sign_products(text: str) -> str:
    """Route the conversion of a sign computed as ``1 - 2 * b`` (or ``2 * b - 1``) to floating
    point through an internal ``noinline`` function without side effects, in unoptimized IR
    *text*, so that a product with it stays a multiply.

    ``sign * (1 - sq * 2)`` (ldpc, with ``sq`` a comparison's 0 or 1) is an I2F and an FMUL
    in nvcc 13's SASS, and measured so in both ldpc ports; InstCombine on the CPU knows the
    converted value is -1 or 1 and makes the product a select of ``-sign`` and ``sign``,
    which counts nothing. A plain ``c ? -x : x`` is left alone (an FSEL on the GPU too)."""
    lines = text.split("\n")
    defs: dict[str, str] = {}  # the current function's values (names repeat across functions)

    def twice(v: str) -> bool:
        return _TWICE.match(defs.get(v, "")) is not None

    def is_sign(v: str) -> bool:
        m = _SUB_ONE.match(defs.get(v, ""))
        return m is not None and (m.group(1) == "1" and twice(m.group(2))
                                  or m.group(2) == "1" and twice(m.group(1)))

    used: set[tuple[str, str]] = set()
    out = []
    for ln in lines:
        if ln.startswith("define "):
            defs.clear()
        m = DEF.match(ln)
        if m:
            defs[m.group(1)] = m.group(2).strip()
        m = _TO_FP.match(ln) if "sitofp" in ln else None
        if m and is_sign(m.group(5)):
            ind, name, eq, ity, val, fty = m.groups()
            used.add((ity, fty))
            ln = f"{ind}{name}{eq}call {fty} @ridgeline.sign.{ity}.{fty}({ity} {val})"
        out.append(ln)
    for ity, fty in sorted(used):
        out += [f"define internal {fty} @ridgeline.sign.{ity}.{fty}({ity} %v) noinline nounwind "
                "willreturn readnone {", f"  %f = sitofp {ity} %v to {fty}", f"  ret {fty} %f",
                "}"]
    return "\n".join(out)
