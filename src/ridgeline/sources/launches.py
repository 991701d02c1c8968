"""CUDA launch sites ``kernel<T><<<grid, block, shmem, stream>>>(args)``, found in the text
(robust to parse failures); expressions are kept as source text."""

from __future__ import annotations

import re
from collections.abc import Callable

from ridgeline.sources._text import line_of, match_bracket, split_top_level, strip_comments
from ridgeline.sources.model import LaunchSite

__all__ = ["find_launches"]

_IDENT_END = re.compile(r"([A-Za-z_][\w:]*)\s*$")


def _template_start(text: str, end: int) -> int:
    """Index of the '<' opening the template arguments that close at text[end-1] == '>'."""
    depth = 0
    i = end - 1
    while i >= 0 and end - i < 2000:
        c = text[i]
        if c == ">":
            depth += 1
        elif c == "<":
            depth -= 1
            if depth == 0:
                return i
        elif c in ";{}":
            return -1
        i -= 1
    return -1


def _one_launch(text: str, start: int) -> tuple[str, str | None, list[str], list[str], int] | None:
    close = text.find(">>>", start + 3)
    if close < 0 or close - start > 4000:
        return None
    config = split_top_level(" ".join(text[start + 3:close].split()))
    head = text[:start].rstrip()
    targs = None
    if head.endswith(">"):
        ts = _template_start(head, len(head))
        if ts < 0:
            return None
        targs = " ".join(head[ts + 1:-1].split())
        head = head[:ts].rstrip()
    m = _IDENT_END.search(head[-300:])
    if not m:
        return None
    name = m.group(1)
    j = close + 3
    while j < len(text) and text[j].isspace():
        j += 1
    args: list[str] = []
    if j < len(text) and text[j] == "(":
        k = match_bracket(text, j)
        if k > 0:
            args = split_top_level(" ".join(text[j + 1:k - 1].split()))
    return name, targs, config, args, close


def find_launches(
    text: str, file: str, function_at: Callable[[int], str | None] | None = None
) -> list[LaunchSite]:
    """All launch sites in *text* (a whole file)."""
    clean = strip_comments(text)
    out = []
    pos = clean.find("<<<")
    while pos >= 0:
        hit = _one_launch(clean, pos)
        if hit:
            name, targs, config, args, close = hit
            config += [""] * (4 - len(config))
            out.append(LaunchSite(
                kernel=name.split("::")[-1], file=file, line=line_of(clean, pos),
                function=function_at(pos) if function_at else None,
                grid=config[0], block=config[1], shared_mem=config[2] or None,
                stream=config[3] or None, template_args=targs, args=tuple(args),
            ))
            pos = clean.find("<<<", close + 3)
        else:
            pos = clean.find("<<<", pos + 3)
    return out
