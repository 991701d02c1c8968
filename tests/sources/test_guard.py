"""Bounded parsing in the libclang front end: refused includes, doubling macros, the parse
budget."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ridgeline.errors import SourceError
from ridgeline.sources import load_program, parse_opencl

pytestmark = pytest.mark.usefixtures("clang")

KERNEL = "__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }\n"


def _prog(tmp_path: Path, head: str, name: str = "main.cu") -> Path:
    d = tmp_path / "prog"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(head + KERNEL)
    return d


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="no /dev/urandom")
def test_include_of_a_device_is_read_as_empty(tmp_path: Path) -> None:
    t = time.monotonic()
    prog = load_program(_prog(tmp_path, "#include </dev/urandom>\n"))
    assert time.monotonic() - t < 20
    assert prog.names() == ["k"]
    assert any("/dev/urandom" in p and "character device" in p and "main.cu:1" in p
               for p in prog.problems)


def test_include_of_a_fifo_and_through_a_link_is_refused(tmp_path: Path) -> None:
    d = _prog(tmp_path, '#include "pipe.h"\n#include "link.h"\n')
    os.mkfifo(d / "pipe.h")
    os.mkfifo(tmp_path / "elsewhere")
    (d / "link.h").symlink_to(tmp_path / "elsewhere")
    prog = load_program(d)
    assert prog.names() == ["k"]
    msgs = " ".join(prog.problems)
    assert "pipe.h" in msgs and "link.h" in msgs and "a FIFO" in msgs


def test_include_outside_the_program_folders_needs_dash_i(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "defs.h").write_text("#define SCALE 2.0f\n")
    d = _prog(tmp_path, '#include "../other/defs.h"\n')
    prog = load_program(d)
    assert any("outside the program's folders" in p and "-I" in p for p in prog.problems)
    prog = load_program(d, include_dirs=[other])
    assert not any("refused" in p for p in prog.problems)


def test_headers_of_the_program_are_followed(tmp_path: Path) -> None:
    d = _prog(tmp_path, '#include "inc/a.h"\n')
    (d / "inc").mkdir()
    (d / "inc" / "a.h").write_text('#include "b.h"\n')
    os.mkfifo(d / "inc" / "b.h")
    prog = load_program(d)
    assert any("a.h:1" in p and "b.h" in p and "FIFO" in p for p in prog.problems)


def test_doubling_macro_is_refused_at_once(tmp_path: Path) -> None:
    lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 30)]
    d = _prog(tmp_path, "\n".join(lines) + "\nint x;\nint y = A29;\n")
    t = time.monotonic()
    with pytest.raises(SourceError, match=r"main.cu: macro 'A\d+' expands to more than "
                                          r"1,000,000 tokens"):
        load_program(d)
    assert time.monotonic() - t < 10
    # defined but never used: harmless, parsed
    d2 = _prog(tmp_path / "x", "\n".join(lines) + "\n")
    assert load_program(d2).names() == ["k"]


def test_a_macro_counts_its_punctuation_and_numbers(tmp_path: Path) -> None:
    # `(A18 + A18)` is five tokens: A19 is 2.1 M tokens though only 0.5 M of them are names,
    # and clang took 7 s per command on it
    lines = ["#define A0 1"] + [f"#define A{i} (A{i - 1} + A{i - 1})" for i in range(1, 20)]
    with pytest.raises(SourceError, match="macro 'A19' expands to more than 1,000,000 tokens"):
        load_program(_prog(tmp_path, "\n".join(lines) + "\nint n = A19;\n"))
    lines = ['#define S0 "a, b, c, d"'] + [f"#define S{i} S{i - 1} S{i - 1} S{i - 1} S{i - 1}"
                                           for i in range(1, 10)]  # 262,144 literals
    body = "\n".join(lines) + "\nconst char *s = S9;\n"
    assert load_program(_prog(tmp_path / "x", body)).names() == ["k"]  # a literal is one


def test_parse_over_its_budget_is_a_clear_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_PARSE_TIMEOUT", "0.0001")
    with pytest.raises(SourceError, match=r"longer than the 0.0001 s budget.*"
                                          r"RIDGELINE_PARSE_TIMEOUT"):
        load_program(_prog(tmp_path, ""))
    with pytest.raises(SourceError, match="budget"):
        parse_opencl("__kernel void f(__global float *a) { a[0] = 1; }")
    monkeypatch.setenv("RIDGELINE_PARSE_TIMEOUT", "0")  # no worker at all
    assert load_program(_prog(tmp_path, "")).names() == ["k"]


def test_a_failing_parse_in_a_large_caller_is_not_a_memory_overrun() -> None:
    """The worker inherits the caller's resident pages through fork: a caller already over
    half the budget (a long test session, a big batch) whose parse fails for another reason
    (a stale precompiled header) is left to repeat it, not told it ran out of memory."""
    from ridgeline.limits import PARSE_MEMORY_BYTES
    from ridgeline.sources._guard import run_bounded

    ballast = bytearray(PARSE_MEMORY_BYTES // 2 + (64 << 20))
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page: resident, not reserved

    def fails() -> None:
        raise ValueError("not a precompiled header")

    run_bounded("k.cu", fails, 30.0)  # returns: the caller's own parse reports the error
    del ballast
