"""Achievable roofs: the peaks a GPU was measured to reach (micro-benchmarks, measured
kernels), beside the theoretical ones, each with its source.

A catalog entry (or a ``--gpu-file`` entry) gives ``achievable_<kind>_<unit> = value`` with
``achievable_<kind>_source = "title (year)"`` for the kinds in :data:`KINDS`. Where an
entry has no figure, DRAM bandwidth, FP32 and FP64 are estimated as the theoretical figure x
the median achieved share of the shipped GPUs that have one (marked estimated, with that
rule); where no shipped GPU has one either, or for L2 and integer, there is no figure.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ridgeline.errors import SchemaError

__all__ = ["KINDS", "ESTIMATED_KINDS", "Roof", "parse_achievable", "share_rule", "roof"]

#: kind: (value key, theoretical field or None, unit)
KINDS: dict[str, tuple[str, str | None, str]] = {
    "dram_bandwidth": ("achievable_dram_bandwidth_gbps", "dram_bandwidth_gbps", "GB/s"),
    "fp32": ("achievable_fp32_tflops", "peak_fp32_tflops", "TFLOP/s"),
    "fp64": ("achievable_fp64_tflops", "peak_fp64_tflops", "TFLOP/s"),
    "int32": ("achievable_int32_tops", "peak_int32_tops", "TOP/s"),
    "l2_bandwidth": ("achievable_l2_bandwidth_gbps", None, "GB/s"),
}
#: kinds estimated from the theoretical figure where a GPU has no measured one
ESTIMATED_KINDS = ("dram_bandwidth", "fp32", "fp64")


def _source_key(kind: str) -> str:
    return f"achievable_{kind}_source"


def allowed_keys() -> list[str]:
    return [k for kind, (v, _, _) in KINDS.items() for k in (v, _source_key(kind))]


@dataclass(frozen=True)
class Roof:
    """One achievable figure: value in the kind's unit (None: no figure), where it comes
    from, and whether it is an estimate."""

    kind: str
    value: float | None
    source: str
    estimated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "unit": KINDS[self.kind][2], "source": self.source,
                "estimated": self.estimated}


def parse_achievable(raw: Mapping[str, Any], where: str) -> dict[str, tuple[float, str]]:
    """The measured figures of one GPU entry, ``{kind: (value, source)}``, checked: each
    value a positive number no larger than its theoretical figure and with a source."""
    name = raw.get("name", "?")
    unknown = sorted(k for k in raw if str(k).startswith("achievable_")
                     and k not in allowed_keys())
    if unknown:
        raise SchemaError(f"{where}: GPU {name!r} has unknown keys {unknown}; allowed: "
                          f"{', '.join(allowed_keys())}")
    out: dict[str, tuple[float, str]] = {}
    for kind, (key, theo, unit) in KINDS.items():
        v, src = raw.get(key), raw.get(_source_key(kind))
        if v is None and src is None:
            continue
        if v is None:
            raise SchemaError(f"{where}: GPU {name!r} gives {_source_key(kind)} without "
                              f"{key}")
        if not isinstance(v, int | float) or isinstance(v, bool) or not v > 0:
            raise SchemaError(f"{where}: GPU {name!r} field {key} must be a positive number "
                              f"({unit}), got {v!r}")
        if not isinstance(src, str) or not src.strip():
            raise SchemaError(f"{where}: GPU {name!r} field {key} needs "
                              f"{_source_key(kind)} = \"<where the figure comes from: "
                              f"title (year)>\", got {src!r}")
        top = raw.get(theo) if theo else None
        if isinstance(top, int | float) and v > top:
            raise SchemaError(f"{where}: GPU {name!r} field {key} = {v} is above the "
                              f"theoretical {theo} = {top}; an achievable figure is at most "
                              "the theoretical one")
        out[kind] = (float(v), src.strip())
    return out


def share_rule(kind: str, measured: Iterable[tuple[float, float]]) -> float | None:
    """The median achieved share (measured / theoretical) over *measured* pairs; None when
    there are none."""
    shares = [m / t for m, t in measured if t > 0]
    return statistics.median(shares) if shares else None


def roof(kind: str, measured: Mapping[str, tuple[float, str]], theoretical: float | None,
         share: float | None, n_from: int) -> Roof:
    """The achievable *kind* of a GPU: its measured figure, else the estimate theoretical x
    *share* (the median over *n_from* shipped GPUs with a figure), else none."""
    if kind in measured:
        v, src = measured[kind]
        return Roof(kind, v, src)
    if kind in ESTIMATED_KINDS and share is not None and theoretical:
        return Roof(kind, theoretical * share,
                    f"estimated: theoretical x {share:.3f}, the median measured/theoretical "
                    f"share of the {n_from} cataloged GPUs with a measured figure", True)
    return Roof(kind, None, "no public figure")
