"""What the names in a stretch of kernel or host text are: scalar types, global pointers
(with element types) and shared-memory arrays, read from their declarations.

A text reading cannot tell ``a * x`` the product from ``a *x`` the declaration by types
alone; it goes by where the text stands: after an operator, ``return``, or inside a call's
arguments it is an expression.
"""

from __future__ import annotations

import re

from ridgeline.analysis.srcscan import Param
from ridgeline.sources._text import split_top_level as split_top

__all__ = ["declared_types"]

_DECL = re.compile(r"\b(?:const\s+)?(unsigned\s+\w+|[A-Za-z_]\w*)\s*\*?\s+"
                   r"\*?\s*([A-Za-z_]\w*)\s*(?=[=;,\[)])")
#: a run of whitespace, made one space before matching: the same matches (the patterns only ask
#: for \s), and _DECL's `\s*\*?\s+` cannot split a run of 10,000 blank lines every way
_WS_RUN = re.compile(r"\s{2,}")
_NOT_TYPES = {"return", "else", "case", "goto", "new", "delete", "throw", "sizeof"}
#: text before a `T * name` match that makes it an expression: an operator or an opening
#: subscript, or a keyword that starts an expression
_EXPR_BEFORE = re.compile(r"(?:[-+*/%=<>&|^!?\[~]|(?<!:):|\b(?:return|case|throw|sizeof))\s*$")
_ARRAY_PTR = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\[")
_VECTOR = re.compile(r"\b(?:std::)?vector\s*<\s*(?:const\s+)?([\w:]+)\s*>\s*&?\s*([A-Za-z_]\w*)")
#: `T name[..][..];` (extents without brackets inside: one try per `[`, not one per name)
_ARRAY = re.compile(r"\b([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*\[[^\[\]]+\]\s*(?:\[[^\[\]]+\]\s*)*[;=,]")
#: a `__shared__` (CUDA) or `__local` (OpenCL) declaration up to its `;`
_SHARED_DECL = re.compile(r"\b(?:__shared__|__local)\b((?:[^;{}()]|\([^()]*(?:\([^()]*\))*"
                          r"[^()]*\))*);")
# A declarator's star, name and array extents at the end of a declaration part. Unless at a
# star it starts where no blank precedes it, and its name at the first ASCII letter of a word
# (a later start finds the same name, later); the name is read possessively. The same matches
# as `(\*?)\s*([A-Za-z_]\w*)...`, which rescanned a long word or blank run from each character.
# An extent holds no bracket, so each `[` ends a try (as in srcscan's parameters).
_DECLARATOR = re.compile(r"(?:(\*)|(?<!\s))\s*+(?<!\w)(?(1)|(?:(?![A-Za-z_])\w)*+)"
                         r"([A-Za-z_]\w*+)\s*+((?:\[[^\[\]]*+\]\s*+)*+)$")
_ATTRIBUTE = re.compile(r"\b(?:__align__|alignas|__attribute__|__declspec)\s*"
                        r"\((?:[^()]|\([^()]*\))*\)")
#: `T *p = <shared array> ...` (a cast, `&` and parentheses allowed before the array name)
_POINTER_INIT = re.compile(r"\*\s*(?:const\s+|__restrict__\s+|volatile\s+)*([A-Za-z_]\w*)\s*="
                           r"\s*(?:\(\s*[\w\s:<>*]+\*\s*\)\s*)?[(&\s]*([A-Za-z_]\w*)")


def _is_expression(text: str, m: re.Match[str]) -> bool:
    """Whether the `T * name` match *m* is a product, not a pointer declaration."""
    before = text[max(0, m.start() - 12):m.start()]
    if _EXPR_BEFORE.search(before):
        return True
    full = m.group(0)
    # `f(a * x[i])`, `g(b, a * x)`: in an argument list a star spaced on both sides is a
    # product (declarators there write `T *p` or `T* p`)
    prev = before.rstrip()[-1:] if before.strip() else ""
    return prev in ("(", ",") and bool(re.search(r"\s\*\s", full))


def _shared_names(text: str) -> set[str]:
    """Arrays and scalars declared `__shared__` (every declarator of a declaration), and
    `__local` names; a `__shared__ T *p` pointer points elsewhere, so it is not one."""
    out: set[str] = set()
    for m in _SHARED_DECL.finditer(text):
        decl = _ATTRIBUTE.sub(" ", m.group(1))
        for k, part in enumerate(split_top(decl)):
            part = re.sub(r"=.*$", "", part, flags=re.S)
            dm = _DECLARATOR.search(part.strip())
            if not dm or (k == 0 and not re.search(r"[A-Za-z_]\w*[\s*&]+[A-Za-z_]\w*",
                                                   part)):
                continue
            if dm.group(1) and not dm.group(3):
                continue
            out.add(dm.group(2))
    for m in re.finditer(r"\b__local\s+\w+\s*\*?\s*([A-Za-z_]\w*)", text):
        out.add(m.group(1))
    return out


def _shared_aliases(text: str, shared: set[str]) -> None:
    """Add pointers declared from a shared array (`float *s = (float*)smem;`, `&tile[0][0]`,
    `buf + off`) to *shared*, following chains."""
    for _ in range(3):
        new = {m.group(1) for m in _POINTER_INIT.finditer(text)
               if m.group(2) in shared and m.group(1) not in shared}
        if not new:
            return
        shared |= new


def declared_types(text: str, params: list[Param], arrays: bool = False
                   ) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """(variable types, global pointers with element types, shared/local arrays) declared in
    *text* or as *params*; with *arrays*, fixed-size arrays and vectors count as global
    memory too (host arrays that an OpenMP target region maps to the device)."""
    text = _WS_RUN.sub(" ", text)
    types: dict[str, str] = {}
    pointers: dict[str, str] = {}
    for p in params:
        (pointers if p.pointer else types)[p.name] = p.type
    for m in _ARRAY_PTR.finditer(text):  # T (*p)[N]
        pointers.setdefault(m.group(2), m.group(1))
    shared = _shared_names(text)
    _shared_aliases(text, shared)
    if arrays:
        for m in _VECTOR.finditer(text):
            pointers.setdefault(m.group(2), m.group(1))
        for m in _ARRAY.finditer(text):
            if m.group(1) not in ("return", "else", "case", "new", "delete", "__shared__") \
                    and m.group(2) not in shared:
                pointers.setdefault(m.group(2), m.group(1))
    for m in _DECL.finditer(text):
        ty, name = m.group(1), m.group(2)
        if ty in _NOT_TYPES or _is_expression(text, m):
            continue
        full = text[m.start():m.end()]
        if "*" in full and name not in shared:
            pointers.setdefault(name, ty)
        else:
            types.setdefault(name, ty)
    return types, pointers, shared
