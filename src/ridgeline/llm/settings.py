"""Generation settings: the paper's temperature 0.1 / top_p 0.2 for ordinary models; no
temperature and a reasoning effort for reasoning models. Call limits: how long a call may
take (not part of the cache key)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from ridgeline.errors import UsageError

__all__ = ["GenerationSettings", "is_reasoning_model", "EFFORTS", "Completion", "CallLimits",
           "REMOTE_TIMEOUT_S", "EMBEDDED_TIMEOUT_S"]

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


#: per-attempt timeouts when none is given: a remote service, and the embedded model on a
#: shared CPU (a long prompt can take many minutes there)
REMOTE_TIMEOUT_S = 120.0
EMBEDDED_TIMEOUT_S = 1800.0
_LIMITS = {  # field: (flag, environment variable, integer)
    "timeout_s": ("--timeout", "RIDGELINE_LLM_TIMEOUT", False),
    "max_attempts": ("--max-attempts", "RIDGELINE_LLM_MAX_ATTEMPTS", True),
    "total_timeout_s": ("--total-timeout", "RIDGELINE_LLM_TOTAL_TIMEOUT", False),
}


def _check_limit(name: str, value: Any, where: str) -> float | int | None:
    """*value* as a positive finite number (an integer for attempts), or a UsageError that
    says which flag or variable held what."""
    if value is None:
        return None
    flag, env, integer = _LIMITS[name]
    what = "a whole number of attempts (1 or more)" if integer else "a positive number of seconds"
    try:
        num = int(value) if integer else float(value)
        ok = num > 0 and math.isfinite(num) and (not integer or float(value) == num)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise UsageError(f"{where or f'{flag} / {env}'} must be {what}; got {value!r}")
    return num


@dataclass(frozen=True)
class CallLimits:
    """How long one model call may take; never part of the cache key. None: the default.

    - ``timeout_s`` (--timeout, $RIDGELINE_LLM_TIMEOUT): one attempt, from connecting to the
      last byte of the answer; default 120 s, 1800 s for the embedded model;
    - ``max_attempts`` (--max-attempts, $RIDGELINE_LLM_MAX_ATTEMPTS): default 5, 2 for the
      embedded model (a retry there only queues behind the request still being worked on);
    - ``total_timeout_s`` (--total-timeout, $RIDGELINE_LLM_TOTAL_TIMEOUT): one call with all
      its attempts and waits; default 3 x the timeout.
    """

    timeout_s: float | None = None
    max_attempts: int | None = None
    total_timeout_s: float | None = None

    def __post_init__(self) -> None:
        for name in _LIMITS:
            _check_limit(name, getattr(self, name), "")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CallLimits:
        env = os.environ if env is None else env
        vals = {name: _check_limit(name, env.get(var) or None, var)
                for name, (_, var, _) in _LIMITS.items()}
        return cls(**vals)  # type: ignore[arg-type]

    @classmethod
    def from_cli(cls, args: Any) -> CallLimits:
        """The limits of the parsed ``--timeout``, ``--max-attempts`` and ``--total-timeout``
        (validated: a bad value names its flag); an absent flag is unset."""
        return cls(getattr(args, "timeout", None), getattr(args, "max_attempts", None),
                   getattr(args, "total_timeout", None))

    def over(self, base: CallLimits) -> CallLimits:
        """These limits, each unset one taken from *base*."""
        return CallLimits(*(getattr(self, n) if getattr(self, n) is not None
                            else getattr(base, n) for n in _LIMITS))

    def resolved(self, embedded: bool, env: Mapping[str, str] | None = None) -> CallLimits:
        """Every limit set: these, else the environment's, else the endpoint's default."""
        lim = self.over(CallLimits.from_env(env))
        timeout = lim.timeout_s or (EMBEDDED_TIMEOUT_S if embedded else REMOTE_TIMEOUT_S)
        return CallLimits(timeout, lim.max_attempts or (2 if embedded else 5),
                          lim.total_timeout_s or 3 * timeout)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}
