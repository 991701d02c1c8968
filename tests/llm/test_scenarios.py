from __future__ import annotations

import dataclasses

import pytest

from ridgeline.errors import UnknownNameError, UsageError
from ridgeline.llm.scenarios import KernelPrompt, get_scenario, scenario_names
from ridgeline.llm.synthetic import (
    BW_RANGE,
    PEAK_RANGE,
    render_question,
    rule_accuracy,
    sample_points,
    synthetic_items,
)


def _prompt(lang: str = "cuda") -> KernelPrompt:
    return KernelPrompt("saxpy", lang, "NVIDIA GeForce RTX 3080",
                        {"sp": 25067.52, "dp": 391.68, "int": 12533.76}, 760.3,
                        "(256, 1, 1)", "(4096, 1, 1)", "", source="__global__ void saxpy(){}",
                        function="main" if lang == "omp" else None)


def test_every_scenario_loads_with_parser_and_metrics() -> None:
    names = scenario_names()
    assert {"zero-shot", "few-shot", "fine-tune", "profiling", "profiling-synthetic", "sass",
            "tool-augmented"} <= set(names)
    for n in names:
        sc = get_scenario(n)
        assert sc.version >= 1 and sc.parser == "last-class"
        assert set(sc.metrics) == {"accuracy", "macro_f1", "mcc"}
        assert sc.cache_tag.startswith(f"{n}@{sc.version}#")
    with pytest.raises(UnknownNameError, match="zero-shot"):
        get_scenario("zero-shoot")


def test_zero_shot_order_and_content() -> None:
    msgs = get_scenario("zero-shot").render(_prompt())
    assert [m["role"] for m in msgs] == ["system", "user", "user"]
    hw = msgs[1]["content"]
    order = ["saxpy", "RTX 3080", "25067.52", "391.68", "12533.76", "760.3", "(256, 1, 1)",
             "(4096, 1, 1)", "no command-line arguments"]
    pos = [hw.index(s) for s in order]
    assert pos == sorted(pos)
    assert msgs[2]["content"].startswith("```") and "saxpy" in msgs[2]["content"]


def test_few_shot_examples_match_the_language() -> None:
    cu = get_scenario("few-shot").render(_prompt("cuda"))[0]["content"]
    omp = get_scenario("few-shot").render(_prompt("omp"))[0]["content"]
    assert "__global__" in cu and "#pragma omp" not in cu
    assert "#pragma omp target" in omp and "__global__" not in omp
    for text in (cu, omp):
        assert text.index("Answer: Bandwidth") < text.index("Answer: Compute")
    assert "in function [main]" in get_scenario("few-shot").render(_prompt("omp"))[1][
        "content"]


def test_missing_inputs_are_clear_errors() -> None:
    p = dataclasses.replace(_prompt(), source=None)
    with pytest.raises(UsageError, match="needs 'source'"):
        get_scenario("zero-shot").render(p)
    with pytest.raises(UsageError, match="needs 'sass'"):
        get_scenario("sass").render(_prompt())
    with pytest.raises(UsageError, match="needs 'tool'"):
        get_scenario("tool-augmented").render(_prompt())
    p = dataclasses.replace(_prompt(), tool_name="analytic", tool_summary="DRAM bytes 4e6")
    assert "DRAM bytes 4e6" in get_scenario("tool-augmented").render(p)[1]["content"]


def test_synthetic_points_follow_the_paper() -> None:
    pts = sample_points(400, random_state=1)
    assert pts == sample_points(400, random_state=1)
    for p in pts:
        assert BW_RANGE[0] <= p.bandwidth_gbs <= BW_RANGE[1]
        assert PEAK_RANGE[0] <= p.peak_gflops <= PEAK_RANGE[1]
        r = p.ridge
        if p.label == "Bandwidth":
            assert 0 <= p.intensity <= 0.95 * r * 1.001
        else:
            assert 1.05 * r * 0.999 <= p.intensity <= 10 * r * 1.001
        assert p.achieved_gflops <= min(p.peak_gflops, p.bandwidth_gbs * p.intensity) + 0.1
    assert rule_accuracy(1000) == 1.0


def test_synthetic_examples_and_styles() -> None:
    items = synthetic_items(3, n_examples=4, style="steps")
    msgs = items[0].messages
    assert msgs is not None and len(msgs) == 1 + 2 * 4 + 1
    assert "ridge point is" in msgs[2]["content"]
    plain = render_question(sample_points(1)[0], sample_points(2, 9), "plain")
    assert plain[2]["content"] in ("Compute", "Bandwidth")
    with pytest.raises(UsageError):
        synthetic_items(3, n_examples=3)
