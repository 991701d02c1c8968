"""The front-end fuzz of benchmarks/fuzz_frontends.py, smaller: generated and mutated sources
through kernels, features, predict and a predict-batch row give only results or
RidgelineErrors, each input within its time limit (the benchmark runs 5,000)."""

from __future__ import annotations

import pytest
from benchmarks.fuzz_frontends import cli_runs, fuzz, make_input

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clang")]


@pytest.fixture(scope="module")
def clang() -> None:
    from ridgeline.sources import clang_available
    from tests.conftest import require

    require("libclang with a clang resource folder", clang_available())


def test_inputs_are_addressed_by_seed_and_index() -> None:
    assert make_input(3, 17) == make_input(3, 17)
    assert make_input(3, 17) != make_input(3, 18)


def test_fuzzed_inputs_neither_crash_nor_hang() -> None:
    res = fuzz(300, seed=1, limit=20.0)
    assert res["crashes"] == [] and res["hangs"] == []
    outcomes = res["outcomes"]
    assert isinstance(outcomes, dict)
    for op in ("kernels", "features", "predict", "predict-batch"):  # every command was run
        assert outcomes.get(f"{op}:ok", 0) + outcomes.get(f"{op}:error", 0) == 300


def test_fuzzed_inputs_through_the_cli() -> None:
    assert cli_runs(3, seed=1, limit=60.0)["cli_failures"] == 0
