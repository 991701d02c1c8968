"""One name for an OpenMP target region across every command: ``<function>_l<line>``, the
function's own name without class, namespace or signature (``copy_l105`` for the region at
line 105 of ``OMPStream<double>::copy()``). The compiler's names (``__omp_offloading_..._
_ZN9OMPStreamIdE4copyEv_l105``, ``_ZN9OMPStreamIdE4copyEv_l105``) are accepted as aliases
wherever a user types a region name."""

from __future__ import annotations

import re

__all__ = ["region_short_name", "same_region", "demangled_function"]

_OFFLOAD = re.compile(r"^_*omp_offloading_[0-9a-fA-F]+_[0-9a-fA-F]+_+")
_LINE = re.compile(r"^(?P<fn>.*?)_l(?P<line>\d+)(?P<rest>(?:\.\w+)*)$")
#: ctor/dtor names of the Itanium ABI: the class name stands for them
_STRUCTORS = re.compile(r"^(?:C[1-5]I?|D[0-5])")


def _skip_name(m: str, i: int) -> tuple[str, int]:
    """A ``<length><identifier>`` at *i*: (identifier, index after it)."""
    j = i
    while j < len(m) and m[j].isdigit():
        j += 1
    n = int(m[i:j])
    return m[j:j + n], j + n


def _skip_balanced(m: str, i: int) -> int:
    """Index after the template arguments / expression that opens at *i* (``I``, ``L``,
    ``N``, ``X``), skipping length-prefixed names inside."""
    depth = 0
    while i < len(m):
        c = m[i]
        if c.isdigit():
            _, i = _skip_name(m, i)
            continue
        if c in "INLX":
            depth += 1
        elif c == "E":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c in "ST" and i + 1 < len(m):
            k = m.find("_", i + 1)
            # S_, S0_, T_, T1_: substitutions; St, Sa, Ss ...: standard ones
            if k != -1 and re.fullmatch(r"[0-9A-Z]*", m[i + 1:k]):
                i = k + 1
                continue
            i += 2
            continue
        i += 1
    return i


def demangled_function(mangled: str) -> str | None:
    """The unqualified function name of an Itanium-mangled symbol (``_ZN9OMPStreamIdE4copyEv``
    -> ``copy``; ``_Z9compute_fiPKfS0_Pf`` -> ``compute_f``; a constructor -> the class
    name), or None when the symbol is not one this reads."""
    if not mangled.startswith("_Z"):
        return None
    try:
        i = 2
        if mangled[i] != "N":
            return _skip_name(mangled, i)[0] if mangled[i].isdigit() else None
        i += 1
        while i < len(mangled) and mangled[i] in "rVKRO":
            i += 1
        last = None
        while i < len(mangled) and mangled[i] != "E":
            c = mangled[i]
            if c.isdigit():
                name, i = _skip_name(mangled, i)
                last = name or last
            elif c == "I":
                i = _skip_balanced(mangled, i)
            elif c == "S":
                k = mangled.find("_", i + 1)
                i = k + 1 if k != -1 and re.fullmatch(r"[0-9A-Z]*", mangled[i + 1:k]) \
                    else i + 2
            elif _STRUCTORS.match(mangled[i:]):
                i += len(_STRUCTORS.match(mangled[i:]).group(0))  # type: ignore[union-attr]
            else:
                return last
        return last
    except (ValueError, IndexError):
        return None


def region_short_name(name: str) -> str:
    """``<function>_l<line>`` of any form of a region name (the offloading symbol, its
    mangled tail, or the short name itself); other names (CUDA kernels) unchanged."""
    base = _OFFLOAD.sub("", name)
    if base.startswith("Z"):
        base = "_" + base
    m = _LINE.match(base)
    if not m:
        return name
    fn = demangled_function(m.group("fn")) or m.group("fn")
    return f"{fn}_l{m.group('line')}"


def same_region(a: str, b: str) -> bool:
    """Whether two region names (any of the accepted forms) name the same region."""
    return region_short_name(a) == region_short_name(b)
