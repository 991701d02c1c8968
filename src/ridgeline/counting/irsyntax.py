"""Pieces of LLVM IR text syntax the counting passes share (instrument, predicated,
contraction, divisions): block labels, value names and definitions, fast-math flags and
floating-point types."""

from __future__ import annotations

import re

__all__ = ["LABEL", "DEF", "NAME", "FP_FLAGS", "FP_TYPES", "VEC", "fp_lanes", "use_counts"]

#: a basic block's label line
LABEL = re.compile(r"^([\w.$-]+|\"[^\"]+\"):")
#: a value's definition: (name, the rest)
DEF = re.compile(r"^\s*(%[-\w.$]+)\s*=\s*(.*)$")
#: a local value's name
NAME = re.compile(r"%[-\w.$]+")
#: fast-math flags an instruction may carry (a regular-expression fragment, each followed by
#: white space)
FP_FLAGS = r"(?:(?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc)\s+)*"
#: floating-point types -> counted precision
FP_TYPES = {"half": "hp", "bfloat": "hp", "float": "sp", "double": "dp", "x86_fp80": "dp",
            "fp128": "dp"}
VEC = re.compile(r"^<(\d+) x (\w+)>$")


def fp_lanes(tystr: str) -> tuple[str | None, int]:
    """(precision, lanes) of a scalar or vector type; precision None when not floating."""
    m = VEC.match(tystr)
    if m:
        return FP_TYPES.get(m.group(2)), int(m.group(1))
    return FP_TYPES.get(tystr), 1


def use_counts(body: list[str]) -> dict[str, int]:
    """How often each value name occurs in *body* (its definition included)."""
    uses: dict[str, int] = {}
    for ln in body:
        for n in NAME.findall(ln):
            uses[n] = uses.get(n, 0) + 1
    return uses
