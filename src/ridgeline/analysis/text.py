"""Text scanning shared by the front end: comments stripped, brackets matched."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["match_paren", "strip_comments"]


def strip_comments(text: str) -> str:
    """Remove // and /* */ comments, keeping strings and line numbers."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in "/\"'":
                j += 1
            out.append(text[i:max(j, i + 1)])
            i = max(j, i + 1)
    return "".join(out)


def match_paren(text: str, start: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the bracket matching the one at *start* (or -1).

    Callers ask for every bracket of a text in turn (each subscript of a statement, each
    call); scanning from each would take time quadratic in the nesting (`a[a[a[...]]]`, or
    many openings never closed). The pairs of a text are found once, in one pass over its
    brackets, and kept for the texts asked about last."""
    if start < len(text) and text[start] == open_ and open_ != close:
        return _bracket_pairs(text, open_, close).get(start, -1)
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


@lru_cache(maxsize=8)
def _bracket_pairs(text: str, open_: str, close: str) -> dict[int, int]:
    """Each *open_* of *text* that is closed -> the index just past its *close*."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for m in re.finditer(f"[{re.escape(open_ + close)}]", text):
        if m.group() == open_:
            stack.append(m.start())
        elif stack:
            pairs[stack.pop()] = m.end()
    return pairs
