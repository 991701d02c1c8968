"""Generation settings: the paper's temperature 0.1 / top_p 0.2 for ordinary models; no
temperature and a reasoning effort for reasoning models."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from ridgeline.errors import UsageError

__all__ = ["GenerationSettings", "is_reasoning_model", "EFFORTS", "Completion"]

EFFORTS = ("minimal", "low", "medium", "high")
_REASONING = re.compile(r"^(o\d|gpt-5|deepseek-r1|qwq|.*-thinking|.*reasoner)", re.IGNORECASE)


def is_reasoning_model(model: str) -> bool:
    """Reasoning models (o1, o3, o4, gpt-5, DeepSeek-R1, ...) take no temperature/top_p."""
    return bool(_REASONING.match(model.rsplit("/", 1)[-1]))


@dataclass(frozen=True)
class GenerationSettings:
    """What is sent besides the messages; part of the cache key."""

    temperature: float | None = 0.1
    top_p: float | None = 0.2
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    seed: int | None = None

    @classmethod
    def for_model(
        cls,
        model: str,
        max_tokens: int | None = None,
        reasoning_effort: str | None = None,
        seed: int | None = None,
    ) -> GenerationSettings:
        """The paper's settings for *model*: reasoning models get an effort
        (default "medium") and no sampling parameters."""
        if reasoning_effort is not None and reasoning_effort not in EFFORTS:
            raise UsageError(
                f"reasoning effort {reasoning_effort!r} is not allowed; use one of {EFFORTS}"
            )
        if is_reasoning_model(model):
            return cls(None, None, max_tokens, reasoning_effort or "medium", seed)
        return cls(0.1, 0.2, max_tokens, None, seed)

    def with_max_tokens(self, n: int | None) -> GenerationSettings:
        return replace(self, max_tokens=n)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class Completion:
    """One model answer with its usage and timing."""

    text: str
    model: str
    finish_reason: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    cached: bool = False
    reasoning: str | None = None
