"""Reading source files safely and small text utilities (comments, lines, balanced brackets)."""

from __future__ import annotations

import re
from pathlib import Path

from ridgeline.errors import InputFileError
from ridgeline.limits import MAX_SOURCE_BYTES, check_regular_source, check_source_size

__all__ = [
    "MAX_BYTES",
    "SOURCE_EXTS",
    "read_source",
    "decode_source",
    "strip_comments",
    "line_of",
    "match_bracket",
    "split_top_level",
]

#: files larger than this are refused (``InputFileError``); see :mod:`ridgeline.limits`
MAX_BYTES = MAX_SOURCE_BYTES

SOURCE_EXTS = {".cu", ".cuh", ".cl", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".hh", ".inc"}


def decode_source(data: bytes, where: str) -> tuple[str, list[str]]:
    """Bytes -> text. Binary or oversized input raises; non-UTF-8 is read as Latin-1 with a
    warning returned beside the text."""
    check_source_size(where, len(data))
    nul = data.find(b"\0", 0, 65536)
    if nul >= 0:
        raise InputFileError(
            f"{where}: looks binary (NUL byte at offset {nul}); expected C, C++, CUDA or "
            "OpenCL source text"
        )
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        text = data.decode("latin-1")
        return text, [f"{where}: not UTF-8 (byte {data[e.start]:#04x} at offset {e.start}); "
                      "read as Latin-1"]


def read_source(path: str | Path) -> tuple[str, list[str]]:
    """Read one source file; returns (text, warnings). Raises InputFileError when unusable."""
    p = Path(path)
    try:
        st = check_regular_source(p)
        check_source_size(p, st.st_size)
        data = p.read_bytes()
    except InputFileError:
        raise
    except OSError as e:
        raise InputFileError(f"{p}: cannot be read ({e.strerror or e})") from e
    text, warns = decode_source(data, str(p))
    return text.replace("\r\n", "\n"), warns


_COMMENT_RE = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S
)


def strip_comments(text: str) -> str:
    """Blank out comments (keeping newlines and offsets); string literals are kept."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith("/"):
            return re.sub(r"[^\n]", " ", s)
        return s

    return _COMMENT_RE.sub(repl, text)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def match_bracket(text: str, start: int, limit: int = 200_000) -> int:
    """Index just past the bracket closing the one at *start* (``([{``), or -1."""
    opener = text[start]
    closer = _PAIRS[opener]
    depth = 0
    end = min(len(text), start + limit)
    i = start
    while i < end:
        c = text[i]
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        elif c in "\"'":
            j = text.find(c, i + 1)
            while j != -1 and text[j - 1] == "\\":
                j = text.find(c, j + 1)
            if j == -1 or "\n" in text[i:j]:
                j = i
            i = j
        i += 1
    return -1


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at *sep* outside (), [], {} and template <...> (best effort)."""
    out: list[str] = []
    depth = 0
    cur: list[str] = []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out
