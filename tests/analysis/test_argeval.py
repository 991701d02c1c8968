"""The C expression evaluator: argv parsing, macros, launch-size arithmetic."""

from __future__ import annotations

import pytest

from ridgeline.analysis.argeval import Env, Unevaluable, evaluate, split_args, try_evaluate
from ridgeline.errors import LaunchError


@pytest.fixture
def env() -> Env:
    return Env({"n": 1000}, {"BS": "256", "N": "(1 << 20)", "LOOP": "LOOP"},
               split_args("8192 10000 1.5 --verbose"))


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("atoi(argv[1])", 8192),
        ("(argc > 2) ? atoi(argv[2]) : 1 << 20", 10000),
        ("(argc > 9) ? atoi(argv[9]) : 1 << 20", 1 << 20),
        ("(N + BS - 1) / BS", 4096),
        ("(n + 255) / 256", 4),
        ("sizeof(double) * n", 8000),
        ("(size_t)atoi(argv[1]) * 4", 32768),
        ("static_cast<int>(atof(argv[3]) * 2)", 3),
        ("std::min(n, 64)", 64),
        ("dim3((n + 127) / 128, 2).y", 2),
        ("0x10u + 1", 17),
        ("-7 / 2", -3),
        ("7 % 3 == 1 && n > 5", 1),
    ],
)
def test_values(env: Env, expr: str, value: float) -> None:
    assert evaluate(expr, env) == value


def test_unknown_names_are_reported_not_guessed(env: Env) -> None:
    with pytest.raises(Unevaluable, match="no known value"):
        evaluate("m * 2", env)
    assert try_evaluate("d_data[0]", env) is None
    assert isinstance(Unevaluable("x"), LaunchError)


def test_recursive_macro_and_bad_text_fail_cleanly(env: Env) -> None:
    assert try_evaluate("LOOP + 1", env) is None
    assert try_evaluate("1 / 0", env) is None
    assert try_evaluate("argv[7]", env) is None
    assert try_evaluate("@@", env) is None
    assert try_evaluate("", env) is None


def test_atoi_of_text_is_zero_like_c(env: Env) -> None:
    assert evaluate("atoi(argv[4])", env) == 0
