from __future__ import annotations

import pytest

from ridgeline.errors import UsageError
from ridgeline.llm.parsing import PARSERS, parse_roofline_class
from ridgeline.llm.settings import GenerationSettings, is_reasoning_model


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Compute", "Compute"),
        ("bandwidth", "Bandwidth"),
        ("BANDWIDTH-bound", "Bandwidth"),
        ("It is not bandwidth bound; it is compute bound.", "Compute"),
        ("Compute or Bandwidth? I say: bandwidth", "Bandwidth"),
        ("memory bound", None),
        ("", None),
        (None, None),
    ],
)
def test_last_match_any_case(text: str | None, want: str | None) -> None:
    assert parse_roofline_class(text) == want
    assert PARSERS.get("last-class")(text) == want


def test_reasoning_models_get_effort_and_no_sampling() -> None:
    for m in ("o3-mini", "openai/o1", "o4-mini", "gpt-5", "deepseek/deepseek-r1"):
        assert is_reasoning_model(m), m
        s = GenerationSettings.for_model(m)
        assert s.temperature is None and s.top_p is None and s.reasoning_effort == "medium"
    for m in ("gpt-4o-mini", "smollm2-135m-instruct", "openai/gpt-4o", "llama-3.1-8b"):
        assert not is_reasoning_model(m), m
        s = GenerationSettings.for_model(m)
        assert (s.temperature, s.top_p, s.reasoning_effort) == (0.1, 0.2, None)
    assert GenerationSettings.for_model("o3-mini", reasoning_effort="high").reasoning_effort \
        == "high"
    with pytest.raises(UsageError, match="extreme"):
        GenerationSettings.for_model("o3-mini", reasoning_effort="extreme")
