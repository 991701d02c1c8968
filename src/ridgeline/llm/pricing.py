"""Cost of a call where the model's price is known (``ridgeline/data/llm/prices.toml``)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources

__all__ = ["price_of", "cost_usd"]


@lru_cache(maxsize=1)
def _prices() -> dict[str, tuple[float, float]]:
    text = resources.files("ridgeline").joinpath("data/llm/prices.toml").read_text("utf-8")
    raw = tomllib.loads(text)
    return {k.lower(): (float(v["input"]), float(v["output"])) for k, v in raw.items()}


def price_of(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None when unknown."""
    name = model.lower().rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return _prices().get(name)


def cost_usd(model: str, tokens_in: int | None, tokens_out: int | None) -> float | None:
    price = price_of(model)
    if price is None or tokens_in is None or tokens_out is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1e6
