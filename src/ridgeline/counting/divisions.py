"""Divisions the CPU optimizer would rewrite into something a GPU does not run.

nvcc compiles ``1 / x`` as a reciprocal (5 counted FLOPs in single precision) and any other
quotient as a division (10), ``-1 / x`` included. LLVM's InstCombine on the CPU moves the sign
of ``-1 / x`` into the expression around it (``m * (-1 / dt)`` becomes ``m * (1 / dt)`` with a
subtraction), which the instrumenter would then count as a reciprocal (lif's ``mult *= -1.f /
dt``: 5 FLOPs counted, 10 measured). Before optimization such a division is moved into a small
function the optimizer keeps (``noinline``), so it stays a division."""

from __future__ import annotations

import re

__all__ = ["keep_negative_one_divisions"]

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
