"""The text front end reads pathological sources in time linear in their size.

`f(` followed by `x[` many thousand times and one `]` made the parameter and declarator
patterns read from every `x[` on to the one `]` (quadratic), and bracket matching scanned from
every opening of a nested subscript to its end (quadratic in Python). Each case is timed at n
and 4n: linear work grows ~4x, the old quadratic work 16x (at 4n it took 10 s to minutes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ridgeline.analysis import srcscan
from ridgeline.analysis.declscan import declared_types
from ridgeline.analysis.text import match_paren
from ridgeline.errors import LaunchError
from ridgeline.predictors.base import parse_dim3

#: growth from n to 4n allowed (linear ~4, quadratic 16)
MAX_GROWTH = 8.0


def _seconds(fn: Callable[[int], object], n: int) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return best


def _assert_linear(fn: Callable[[int], object], n: int) -> None:
    small, large = _seconds(fn, n), _seconds(fn, 4 * n)
    assert large < MAX_GROWTH * small + 0.05, (
        f"{n} -> {4 * n}: {small:.3f} s -> {large:.3f} s (x{large / max(small, 1e-9):.1f})")


def test_kernel_parameters_with_unclosed_extents(tmp_path: Path) -> None:
    def load(n: int) -> None:
        folder = tmp_path / f"p{n}"
        folder.mkdir(exist_ok=True)
        (folder / "main.cu").write_text("__global__ void f(" + "x[" * n + "]*) {}\n")
        prog = srcscan.load_program(folder)
        assert [f.name for fs in prog.functions.values() for f in fs] == ["f"]

    _assert_linear(load, 50_000)


def test_shared_declarators_and_arrays_with_unclosed_extents() -> None:
    _assert_linear(lambda n: declared_types("__shared__ float " + "x[" * n + "]*;", []),
                   50_000)
    _assert_linear(lambda n: declared_types("float " + "a b[" * n + "];", [], arrays=True),
                   50_000)


def test_matching_every_bracket_of_a_nested_text() -> None:
    def nested(n: int) -> None:
        text = "a[" * n + "0" + "]" * n
        assert [match_paren(text, 2 * i + 1, "[", "]") for i in (0, n - 1)] == [
            len(text), 2 * n + 2]
        for i in range(n):
            match_paren(text, 2 * i + 1, "[", "]")

    def unclosed(n: int) -> None:
        text = "a[" * n
        assert all(match_paren(text, 2 * i + 1, "[", "]") == -1 for i in range(n))

    _assert_linear(nested, 5_000)
    _assert_linear(unclosed, 5_000)


def test_matching_keeps_its_answers() -> None:
    text = "f(a, (b)) + g(c[1], [x]) ("
    assert match_paren(text, 1) == 9
    assert match_paren(text, 5) == 8
    assert match_paren(text, 13) == 24
    assert match_paren(text, 15, "[", "]") == 18
    assert match_paren(text, len(text) - 1) == -1
    assert match_paren("x)", 0) == -1  # not at an opening: scanned as before


def test_counting_a_kernel_with_nested_subscripts() -> None:
    from ridgeline.analysis.argeval import Env
    from ridgeline.analysis.kernelstats import analyze
    from ridgeline.analysis.srcscan import Param

    params = [Param("a", "float", True)]

    def count(n: int) -> None:
        stats = analyze("a[0] = " + "a[" * n + "0" + "]" * n + ";", params, Env())
        assert stats.stores == 1 and stats.loads == n

    _assert_linear(count, 2_000)


def test_launch_sizes_read_in_one_pass() -> None:
    """A size with a long run of blanks and a stray bracket (a batch row's quoted field)
    took 28 s at 200 newlines, the time growing with their fourth power."""
    forms = {"(256, 1, 1)": (256, 1, 1), "256": (256, 1, 1), "256,1,1": (256, 1, 1),
             "256x2": (256, 2, 1), "[64 2]": (64, 2, 1), " (32) ": (32, 1, 1),
             "(256": (256, 1, 1), "256)": (256, 1, 1)}
    assert {k: parse_dim3(k) for k in forms} == forms
    for bad in ("((256))", "()", "(1)(2)", "\n" * 100_000 + "])"):
        t0 = time.perf_counter()
        with pytest.raises(LaunchError, match="must have 1 to 3 positive integers"):
            parse_dim3(bad, "block")
        assert time.perf_counter() - t0 < 1.0
