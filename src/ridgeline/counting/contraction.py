"""Multiplies that nvcc fuses into each of their sums (``-fmad=true``, its default).

A product used by several additions becomes one FFMA per addition: nvcc's code generator
fuses aggressively, whatever the product's other uses, within a basic block. The CPU build
keeps the product once (``t = s * 0.5; p - t; q - t`` is one multiply and two subtractions,
3 counted FLOPs; the GPU runs two FFMAs, 4). rng-wallace's Hadamard steps count 11 FLOPs on
the GPU for 8 here; the OpenMP ports, built without cross-statement contraction, measure 8.
"""

from __future__ import annotations

import re

__all__ = ["fused_multiplies"]

_LABEL = re.compile(r"^([\w.$-]+|\"[^\"]+\"):")
_FLAGS = r"(?:(?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc)\s+)*"
_TYPE = r"(half|bfloat|float|double|<\d+ x (?:half|bfloat|float|double)>)"
_OP = re.compile(rf"^\s*(%[-\w.$]+)\s*=\s*(fmul|fadd|fsub)\s+{_FLAGS}{_TYPE}\s+"
                 r"([^,\s]+),\s*([^,\s]+)\s*(?:,.*)?$")
_NAME = re.compile(r"%[-\w.$]+")
_PREC = {"half": "hp", "bfloat": "hp", "float": "sp", "double": "dp"}


def _prec_lanes(ty: str) -> tuple[str, int]:
    m = re.match(r"<(\d+) x (\w+)>", ty)
    return (_PREC[m.group(2)], int(m.group(1))) if m else (_PREC[ty], 1)


def fused_multiplies(body: list[str]) -> dict[int, tuple[str, float]]:
    """FLOPs to add at lines of one function's *body* where nvcc fuses products into sums:
    {line: (precision, FLOPs)}.

    An addition or subtraction with an operand that a multiply of the same type and block
    computed becomes an FFMA (one more counted FLOP; with two such operands the product with
    fewer uses is fused, as LLVM's combiner prefers); a multiply whose every use was fused
    disappears (one FLOP fewer). A product with one use thus counts the same either way."""
    uses: dict[str, int] = {}
    for ln in body:
        for n in _NAME.findall(ln):
            uses[n] = uses.get(n, 0) + 1
    out: dict[int, tuple[str, float]] = {}
    muls: dict[str, tuple[int, str]] = {}  # this block's products: name -> (line, type)
    fused: dict[str, int] = {}  # product -> additions it was fused into
    where: dict[str, tuple[int, str]] = {}

    def close_block() -> None:
        for name, n in fused.items():
            line, ty = where[name]
            if n == uses.get(name, 0) - 1:  # every use (all but the definition) fused
                prec, lanes = _prec_lanes(ty)
                out[line] = (prec, out.get(line, (prec, 0.0))[1] - lanes)
        muls.clear()
        fused.clear()

    for i, ln in enumerate(body):
        if _LABEL.match(ln):
            close_block()
            continue
        m = _OP.match(ln)
        if not m:
            continue
        name, op, ty, a, b = m.groups()
        if op == "fmul":
            muls[name] = (i, ty)
            where[name] = (i, ty)
            continue
        cands = [x for x in (a, b) if x in muls and muls[x][1] == ty]
        if not cands:
            continue
        pick = min(cands, key=lambda x: uses.get(x, 0))  # ties: the first operand
        fused[pick] = fused.get(pick, 0) + 1
        prec, lanes = _prec_lanes(ty)
        out[i] = (prec, out.get(i, (prec, 0.0))[1] + lanes)
    close_block()
    return out
