"""Multiplies that nvcc fuses into each of their sums (``-fmad=true``, its default).

A product used only by additions becomes one FFMA per addition: nvcc's code generator fuses
it into each of them within a basic block. The CPU build keeps the product once (``t = s *
0.5; p - t; q - t`` is one multiply and two subtractions, 3 counted FLOPs; the GPU runs two
FFMAs, 4). rng-wallace's Hadamard steps count 11 FLOPs on
the GPU for 8 here; the OpenMP ports, built without cross-statement contraction, measure 8.
"""

from __future__ import annotations

import re

from ridgeline.counting.irsyntax import FP_FLAGS, LABEL, fp_lanes, use_counts

__all__ = ["fused_multiplies"]

_TYPE = r"(half|bfloat|float|double|<\d+ x (?:half|bfloat|float|double)>)"
_OP = re.compile(rf"^\s*(%[-\w.$]+)\s*=\s*(fmul|fadd|fsub)\s+{FP_FLAGS}{_TYPE}\s+"
                 r"([^,\s]+),\s*([^,\s]+)\s*(?:,.*)?$")


def _prec_lanes(ty: str) -> tuple[str, int]:
    """Precision and lanes of a type _TYPE matched (always a floating-point one)."""
    prec, lanes = fp_lanes(ty)
    assert prec is not None
    return prec, lanes


def fused_multiplies(body: list[str]) -> dict[int, tuple[str, float]]:
    """FLOPs to add at lines of one function's *body* where nvcc fuses products into sums:
    {line: (precision, FLOPs)}.

    A multiply whose every use is an addition or subtraction of the same type in its block
    disappears into them (one FLOP fewer; each of them becomes an FFMA, one more). A product
    that is also stored, compared or used elsewhere stays an FMUL and its sums stay FADDs
    (ldpc's ``R_temp``, stored and subtracted: FMUL and FADD in nvcc 13's SASS; cbsfil's
    recursion). Where a sum adds two such products, the one with fewer uses fuses (LLVM's
    combiner's preference) and the other stays. A product with one use thus counts the same
    either way."""
    uses = use_counts(body)
    out: dict[int, tuple[str, float]] = {}

    def add(line: int, prec: str, n: float) -> None:
        out[line] = (prec, out.get(line, (prec, 0.0))[1] + n)

    def close_block(muls: dict[str, tuple[int, str]],
                    sums: list[tuple[int, str, list[str]]]) -> None:
        # products every use of which is one of this block's sums of their type
        seen: dict[str, int] = {}
        for _, _, ops in sums:
            for x in ops:
                seen[x] = seen.get(x, 0) + 1
        fusable = {x for x in muls if seen.get(x, 0) == uses.get(x, 0) - 1}
        while True:  # a sum fuses one product: the other one then stays a multiply
            taken: dict[int, str] = {}
            blocked: set[str] = set()
            for line, _, ops in sums:
                cands = [x for x in ops if x in fusable]
                if not cands:
                    continue
                pick = min(cands, key=lambda x: uses.get(x, 0))
                taken[line] = pick
                blocked.update(x for x in cands if x != pick)
            if not blocked:
                break
            fusable -= blocked
        for line, ty, _ in sums:
            if line in taken:
                prec, lanes = _prec_lanes(ty)
                add(line, prec, lanes)
        for x in fusable:
            line, ty = muls[x]
            prec, lanes = _prec_lanes(ty)
            add(line, prec, -lanes)

    muls: dict[str, tuple[int, str]] = {}  # this block's products: name -> (line, type)
    sums: list[tuple[int, str, list[str]]] = []  # this block's sums using one of them
    for i, ln in enumerate(body):
        if LABEL.match(ln):
            close_block(muls, sums)
            muls, sums = {}, []
            continue
        m = _OP.match(ln)
        if not m:
            continue
        name, op, ty, a, b = m.groups()
        if op == "fmul":
            muls[name] = (i, ty)
            continue
        ops = [x for x in (a, b) if x in muls and muls[x][1] == ty]
        if ops:
            sums.append((i, ty, ops))
    close_block(muls, sums)
    return out
