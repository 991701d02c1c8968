"""The front-end fuzz of benchmarks/fuzz_frontends.py, smaller: generated and mutated sources
through kernels, features, predict and a predict-batch row give only results or
RidgelineErrors, each input within its time limit (the benchmark runs 5,000). The 120 inputs
of seed 1 hold every kind of generated construct and of mutation, and every seed language."""

from __future__ import annotations

import pytest
from benchmarks.fuzz_frontends import GENERATED, MUTATIONS, cli_runs, fuzz, make_input

N = 120

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("clang")]


@pytest.fixture(scope="module")
def clang() -> None:
    from ridgeline.sources import clang_available
    from tests.conftest import require

    require("libclang with a clang resource folder", clang_available())


def test_inputs_are_addressed_by_seed_and_index() -> None:
    assert make_input(3, 17) == make_input(3, 17)
    assert make_input(3, 17) != make_input(3, 18)


def test_the_inputs_hold_every_kind() -> None:
    made = [make_input(1, i) for i in range(N)]
    parts = [p.split(": ") for _, _, how in made for p in how.split("; ")]
    assert {k for what, k in parts if what == "generated"} == set(GENERATED)
    assert {op for what, ops in parts if what == "mutated" for op in ops.split(", ")} == set(
        MUTATIONS)
    assert {name.rsplit(".", 1)[1] for name, _, _ in made} == {"cu", "cpp", "cl"}


def test_fuzzed_inputs_neither_crash_nor_hang() -> None:
    res = fuzz(N, seed=1, limit=20.0)
    assert res["crashes"] == [] and res["hangs"] == []
    outcomes = res["outcomes"]
    assert isinstance(outcomes, dict)
    for op in ("kernels", "features", "predict", "predict-batch"):  # every command was run
        assert outcomes.get(f"{op}:ok", 0) + outcomes.get(f"{op}:error", 0) == N


def test_fuzzed_inputs_through_the_cli() -> None:
    assert cli_runs(3, seed=1, limit=60.0)["cli_failures"] == 0
