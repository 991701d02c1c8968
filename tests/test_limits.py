"""The limits of ridgeline.limits hold alike in every command and front end."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.analysis import argeval, srcscan
from ridgeline.analysis import macros as preprocessor
from ridgeline.cli import main
from ridgeline.errors import UsageError
from ridgeline.limits import max_source_bytes, parse_timeout
from ridgeline.predictors.batch import analyze_rows
from ridgeline.sources import clang_available

SAXPY = Path(__file__).resolve().parent.parent / "src/ridgeline/data/samples/saxpy/main.cu"


def _too_big(tmp_path: Path) -> Path:
    d = tmp_path / "big-cuda"
    d.mkdir()
    (d / "main.cu").write_text(SAXPY.read_text() + "// " + "x" * 4000 + "\n")
    return d


def test_an_over_size_source_is_the_same_error_in_every_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RIDGELINE_MAX_SOURCE_BYTES", "4000")
    d = _too_big(tmp_path)
    size = (d / "main.cu").stat().st_size
    want = f"main.cu: source file is {size:,} bytes, over the limit of 4,000 bytes"
    commands = [["predict", str(d), "--kernel", "saxpy", "--gpu", "a100"]]
    if clang_available():
        commands += [["kernels", str(d)], ["features", str(d), "--kernel", "saxpy"]]
    for argv in commands:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert want in err and "RIDGELINE_MAX_SOURCE_BYTES" in err, (argv, err)
    rows = pd.DataFrame([{"source": d.name, "kernel": "saxpy", "model_type": "cuda",
                          "block_size": "", "grid_size": "", "exe_args": ""}])
    out = analyze_rows(rows, tmp_path, jobs=1, progress=False)
    assert out["error"][0].startswith("SourceTooLargeError:") and want in out["error"][0]


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_PARSE_TIMEOUT", "2.5")
    assert parse_timeout() == 2.5
    monkeypatch.setenv("RIDGELINE_MAX_SOURCE_BYTES", "lots")
    with pytest.raises(UsageError, match="RIDGELINE_MAX_SOURCE_BYTES='lots' is not a number"):
        max_source_bytes()


def test_doubling_macro_in_a_host_expression_stops_quickly() -> None:
    macros = {"A0": "1"} | {f"A{i}": f"(A{i - 1} + A{i - 1})" for i in range(1, 30)}
    env = argeval.Env(macros=macros)
    t = time.monotonic()
    with pytest.raises(argeval.Unevaluable, match="deeper than 20 levels"):
        argeval.evaluate("A29", env)
    with pytest.raises(argeval.Unevaluable, match="more than 5000 macro expansions in one "):
        argeval.evaluate("A15", env)
    assert time.monotonic() - t < 2
    assert argeval.evaluate("A10", env) == 1024  # within the budget: evaluated


def test_macro_expansion_stops_at_the_size_limit_with_a_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(preprocessor, "MAX_EXPANDED_BYTES", 40_000)
    macros = preprocessor.fn_macros({"a.cu": "#define F(x) x + x + x + x + x + x + x + x\n"})
    text = "int y = F(1);\n" * 2000
    with caplog.at_level(logging.WARNING):
        out = preprocessor.expand_fn_macros(text, macros)
    assert len(text) < len(out) <= 40_000
    assert "F(1)" in out and "1 + 1" in out  # partly expanded, the rest left as written
    assert any("macro expansion stopped" in r.message for r in caplog.records)
    assert out.count("\n") == text.count("\n")


def test_a_long_word_in_a_parameter_list_is_read_once() -> None:
    # a 500,000-letter line inside a kernel's parameters took minutes (the name was retried
    # from every letter); a run of `=` on a line did the same to the default-value cut
    t = time.monotonic()
    params = srcscan._params("const int *a,\n" + "a" * 500_000 + "\n float *b, int n = 1 "
                             + "=" * 200_000 + "\nx, float c")
    assert time.monotonic() - t < 2
    assert [p.name for p in params] == ["a", "c"]  # names read on a parameter's first line


def test_parameter_names_as_the_backtracking_pattern_read_them() -> None:
    import random
    import re

    # the reference: an array extent holds no bracket of its own (``a[x[i]]`` is no
    # parameter's extent), so a ``[`` ends a try and the scan stays linear
    old = re.compile(r"(.*?)([A-Za-z_]\w*)\s*(\[[^\[\]]*\])*$")
    r = random.Random(0)
    for _ in range(20_000):
        s = "".join(r.choice("ab_9\u00e9 \n\t[]=*&x") for _ in range(r.randint(0, 14)))
        assert srcscan._before_default(s).strip() == re.sub(r"=.*$", "", s).strip()
        q = s.strip()
        m1, m2 = old.match(q), srcscan._PARAM.match(q)
        assert (m1 and (m1.group(1), m1.group(2), bool(m1.group(3)))) == (
            m2 and (m2.group(1), m2.group(2), bool(m2.group(3)))), q


def test_declarator_patterns_read_a_long_word_once_with_the_same_matches() -> None:
    import random
    import re

    from ridgeline.analysis import declscan
    from ridgeline.sources import program

    t = time.monotonic()
    assert program._text_param("a" * 500_000 + "\n x y").name == ""
    src = "__global__ void k() { __shared__ float " + "a" * 500_000 + " b c, d[4];\n}"
    assert declscan._shared_names(src) == {"c", "d"}
    assert time.monotonic() - t < 2
    text_param = re.compile(r"(.*?)([A-Za-z_]\w*)\s*(\[\s*\w*\s*\])?$")
    declarator = re.compile(r"(\*?)\s*([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)*)$")
    r = random.Random(0)
    for _ in range(20_000):
        s = "".join(r.choice("ab_9\u00e9 \n\t[]=*&x") for _ in range(r.randint(0, 14)))
        m1, m2 = text_param.match(s), program._TEXT_PARAM.match(s)
        assert (m1 and (m1.group(1), m1.group(2), bool(m1.group(3)))) == (
            m2 and (m2.group(1), m2.group(2), bool(m2.group(3)))), s
        q = s.strip()
        m1, m2 = declarator.search(q), declscan._DECLARATOR.search(q)
        assert (m1 and (bool(m1.group(1)), m1.group(2), bool(m1.group(3)))) == (
            m2 and (bool(m2.group(1)), m2.group(2), bool(m2.group(3)))), q


def test_one_counting_time_limit_is_the_default_of_every_command_and_function() -> None:
    import argparse
    import inspect

    from ridgeline.cli._app import build_parser
    from ridgeline.counting import count_run
    from ridgeline.counting.base import RunOptions
    from ridgeline.limits import COUNT_TIMEOUT_S
    from ridgeline.predictors.batch_predict import predict_batch, predict_rows
    from ridgeline.predictors.batch_stream import BatchRun

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    defaults = {
        "count-run --timeout": sub.choices["count-run"].get_default("timeout"),
        "predict --count-timeout": sub.choices["predict"].get_default("count_timeout"),
        "predict-batch --count-timeout":
            sub.choices["predict-batch"].get_default("count_timeout"),
        "count_run": inspect.signature(count_run).parameters["timeout"].default,
        "RunOptions": RunOptions().timeout,
        "predict_batch": inspect.signature(predict_batch).parameters["count_timeout"].default,
        "predict_rows": inspect.signature(predict_rows).parameters["count_timeout"].default,
        "BatchRun": inspect.signature(BatchRun).parameters["count_timeout"].default,
    }
    assert defaults == dict.fromkeys(defaults, COUNT_TIMEOUT_S)
    help_text = sub.choices["predict-batch"].format_help()
    assert f"(default {COUNT_TIMEOUT_S:g})" in " ".join(help_text.split())
