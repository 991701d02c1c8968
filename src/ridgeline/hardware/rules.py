"""Label rules as data: which intensities are compared with which ridge points."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ridgeline.errors import InputFileError, SchemaError, UnknownNameError
from ridgeline.hardware.catalog import GPU, PRECISIONS
from ridgeline.hardware.roofline import Counts, intensities, ridge_point

__all__ = ["LabelRule", "Label", "get_rule", "rule_names", "load_rules", "COMPUTE", "BANDWIDTH"]

COMPUTE = "Compute"
BANDWIDTH = "Bandwidth"
_KINDS = ("all-below", "dominant-fp")


@dataclass(frozen=True)
class Label:
    """A class, or ``None`` with the reason it could not be decided."""

    value: str | None
    reason: str = ""
    intensity: dict[str, float] | None = None
    ridge: dict[str, float] | None = None


@dataclass(frozen=True)
class LabelRule:
    name: str
    kind: str
    precisions: tuple[str, ...]
    clock: str = "boost"
    int_lanes: str = "int32"
    description: str = ""

    @classmethod
    def from_mapping(cls, name: str, raw: dict[str, Any], where: str) -> LabelRule:
        kind = raw.get("kind")
        if kind not in _KINDS:
            raise SchemaError(f"{where}: rule {name!r} has kind {kind!r}; allowed: {_KINDS}")
        precs = tuple(raw.get("precisions", ()))
        bad = [p for p in precs if p not in PRECISIONS]
        if not precs or bad:
            raise SchemaError(
                f"{where}: rule {name!r} precisions {list(precs)} invalid; allowed: {PRECISIONS}"
            )
        return cls(
            name=name,
            kind=kind,
            precisions=precs,
            clock=raw.get("clock", "boost"),
            int_lanes=raw.get("int_lanes", "int32"),
            description=raw.get("description", ""),
        )

    def ridges(self, gpu: GPU) -> dict[str, float]:
        return {p: ridge_point(gpu, p, self.clock, self.int_lanes) for p in self.precisions}

    def classify_intensities(self, ai: dict[str, float], gpu: GPU) -> Label:
        """Class from intensities (ops per DRAM byte) already computed."""
        vals = [ai.get(p, 0.0) for p in self.precisions]
        if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
            return Label(None, "an intensity is missing (NaN)")
        ridges = self.ridges(gpu)
        if self.kind == "all-below":
            bw = all(ai.get(p, 0.0) < ridges[p] for p in self.precisions)
            return Label(BANDWIDTH if bw else COMPUTE, "", dict(ai), ridges)
        raise SchemaError(f"rule {self.name!r} needs counts, not intensities alone")

    def classify(self, counts: Counts, gpu: GPU) -> Label:
        """Class of a launch from its counts on *gpu*."""
        if not counts.is_finite():
            return Label(None, f"counts are missing or negative: {counts}")
        all_ops = counts.total_flops + counts.int_ops
        if all_ops <= 0 and counts.dram_bytes <= 0:
            return Label(None, "no operations and no DRAM bytes: intensity undefined")
        ai = intensities(counts)
        if self.kind == "all-below":
            return self.classify_intensities(ai, gpu)
        ridges = self.ridges(gpu)
        flops = {p: counts.ops(p) for p in self.precisions}
        if sum(flops.values()) <= 0:
            return Label(BANDWIDTH, "no floating-point operations", ai, ridges)
        dominant = max(flops, key=lambda p: flops[p])
        total = sum(flops.values())
        fp_ai = math.inf if counts.dram_bytes <= 0 else total / counts.dram_bytes
        ai = {**ai, "fp": fp_ai}
        return Label(COMPUTE if fp_ai >= ridges[dominant] else BANDWIDTH, "", ai, ridges)


def _parse(text: str, where: str) -> dict[str, LabelRule]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(f"rule file {where}: {e}") from None
    return {n.lower(): LabelRule.from_mapping(n, raw, where) for n, raw in data.items()}


@lru_cache(maxsize=1)
def _builtin() -> dict[str, LabelRule]:
    text = resources.files("ridgeline").joinpath("data/hardware/rules.toml").read_text("utf-8")
    return _parse(text, "ridgeline/data/hardware/rules.toml")


def load_rules(rule_file: str | Path | None = None) -> dict[str, LabelRule]:
    rules = dict(_builtin())
    if rule_file:
        p = Path(rule_file)
        if not p.is_file():
            raise InputFileError(f"rule file {str(p)!r} does not exist")
        rules.update(_parse(p.read_text("utf-8"), str(p)))
    return rules


def rule_names(rule_file: str | Path | None = None) -> list[str]:
    return sorted(load_rules(rule_file))


def get_rule(name: str | LabelRule, rule_file: str | Path | None = None) -> LabelRule:
    if isinstance(name, LabelRule):
        return name
    rules = load_rules(rule_file)
    try:
        return rules[name.lower()]
    except KeyError:
        raise UnknownNameError("label rule", name, rules) from None
