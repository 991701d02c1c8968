"""Kernels found by text scanning, to catch those the parser lost (e.g. to a missing macro)."""

from __future__ import annotations

import re

from ridgeline.sources._text import line_of, match_bracket, split_top_level, strip_comments

__all__ = ["scan_cuda_kernels"]

_GLOBAL_RE = re.compile(r"\b__global__\b")
_LB_RE = re.compile(r"__launch_bounds__\s*$")
_NAME_RE = re.compile(r"([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>)?\s*$")


def scan_cuda_kernels(text: str) -> list[tuple[str, int, list[str], bool]]:
    """(name, line, parameter texts, has_body) for each ``__global__`` definition in *text*."""
    clean = strip_comments(text)
    out = []
    for m in _GLOBAL_RE.finditer(clean):
        i = m.end()
        # the first '(' that is not __launch_bounds__(...) or __attribute__((...))
        while True:
            p = clean.find("(", i)
            if p < 0 or p - m.end() > 600:
                p = -1
                break
            before = clean[m.end():p]
            if _LB_RE.search(before) or before.rstrip().endswith("__attribute__"):
                q = match_bracket(clean, p)
                if q < 0:
                    p = -1
                    break
                i = q
                continue
            break
        if p < 0:
            continue
        nm = _NAME_RE.search(clean[m.end():p])
        if not nm or clean[m.end():p].strip().startswith("#"):
            continue
        q = match_bracket(clean, p)
        if q < 0:
            continue
        params = [" ".join(x.split()) for x in split_top_level(clean[p + 1:q - 1]) if x.strip()]
        rest = clean[q:q + 400].lstrip()
        has_body = not rest.startswith(";")
        out.append((nm.group(1), line_of(clean, m.start()), params, has_body))
    return out
