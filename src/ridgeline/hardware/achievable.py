"""Achievable roofs: the peaks a GPU was measured to reach (micro-benchmarks, measured
kernels), beside the theoretical ones, each with its source.

A catalog entry (or a ``--gpu-file`` entry) gives, for the kinds in :data:`KINDS`,
``achievable_<kind>_<unit> = value`` with ``achievable_<kind>_source = "..."`` (which
benchmark, where: a URL or a citation) and optionally ``achievable_<kind>_note = "..."``.
A value may exceed its theoretical figure by at most :data:`ABOVE_THEORETICAL` (clocks
above the rated boost); more is refused as a mistake.

Where an entry has no measured figure of a kind, it is derived (:func:`roof`): the GPU's
reference figure (the theoretical one; theoretical DRAM bandwidth for L2 bandwidth) times
the median measured / reference share of the shipped GPUs that have one, taken over its
architecture where any of them has one, else over its vendor, else over every shipped GPU
(:func:`share_groups`). A derived figure says so (``estimated``) and names its rule.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ridgeline.errors import SchemaError

__all__ = ["KINDS", "ALIASES", "ABOVE_THEORETICAL", "Roof", "Measured", "parse_achievable",
           "share_rule", "share_groups", "roof", "allowed_keys"]

#: kind: (value key, theoretical field or None, reference field for the derived figure,
#: unit, units per second of the unit)
KINDS: dict[str, tuple[str, str | None, str, str, float]] = {
    "dram_bandwidth": ("achievable_dram_bandwidth_gbps", "dram_bandwidth_gbps",
                       "dram_bandwidth_gbps", "GB/s", 1e9),
    "fp32": ("achievable_fp32_tflops", "peak_fp32_tflops", "peak_fp32_tflops", "TFLOP/s",
             1e12),
    "fp64": ("achievable_fp64_tflops", "peak_fp64_tflops", "peak_fp64_tflops", "TFLOP/s",
             1e12),
    "int32": ("achievable_int32_tops", "peak_int32_tops", "peak_int32_tops", "TOP/s", 1e12),
    "l2_bandwidth": ("achievable_l2_bandwidth_gbps", None, "dram_bandwidth_gbps", "GB/s",
                     1e9),
}
#: other names of the kinds (the precision names of ``GPU.peak``)
ALIASES = {"dram": "dram_bandwidth", "bw": "dram_bandwidth", "sp": "fp32", "dp": "fp64",
           "int": "int32", "l2": "l2_bandwidth"}
#: how far above its theoretical figure a measured one may be (GPU Boost clocks a card
#: beyond its rated boost clock; more than this is taken for a mistake)
ABOVE_THEORETICAL = 0.05

#: one measured figure: value, source, note ("" for none)
Measured = tuple[float, str, str]


def _source_key(kind: str) -> str:
    return f"achievable_{kind}_source"


def _note_key(kind: str) -> str:
    return f"achievable_{kind}_note"


def allowed_keys() -> list[str]:
    return [k for kind, spec in KINDS.items()
            for k in (spec[0], _source_key(kind), _note_key(kind))]


@dataclass(frozen=True)
class Roof:
    """One achievable figure: value in the kind's unit (None: no figure), where it comes
    from, a note, and whether it is derived rather than measured."""

    kind: str
    value: float | None
    source: str
    estimated: bool = False
    note: str = ""

    @property
    def unit(self) -> str:
        return KINDS[self.kind][3]

    @property
    def rate(self) -> float | None:
        """The figure per second in base units (bytes/s, FLOP/s, op/s); None without one."""
        return None if self.value is None else self.value * KINDS[self.kind][4]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "unit": self.unit, "source": self.source,
                "note": self.note, "estimated": self.estimated}


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def parse_achievable(raw: Mapping[str, Any], where: str) -> dict[str, Measured]:
    """The measured figures of one GPU entry, ``{kind: (value, source, note)}``, checked:
    each value a positive number, at most :data:`ABOVE_THEORETICAL` above its theoretical
    figure, with a source."""
    name = raw.get("name", "?")
    unknown = sorted(k for k in raw if str(k).startswith("achievable_")
                     and k not in allowed_keys())
    if unknown:
        raise SchemaError(f"{where}: GPU {name!r} has unknown keys {unknown}; allowed: "
                          f"{', '.join(allowed_keys())}")
    out: dict[str, Measured] = {}
    for kind, (key, theo, _, unit, _) in KINDS.items():
        v, src, note = raw.get(key), raw.get(_source_key(kind)), raw.get(_note_key(kind))
        if v is None and src is None and note is None:
            continue
        if v is None:
            given = _source_key(kind) if src is not None else _note_key(kind)
            raise SchemaError(f"{where}: GPU {name!r} gives {given} without {key}")
        if not _number(v) or not v > 0:
            raise SchemaError(f"{where}: GPU {name!r} field {key} must be a positive number "
                              f"({unit}), got {v!r}")
        if not isinstance(src, str) or not src.strip():
            raise SchemaError(f"{where}: GPU {name!r} field {key} needs "
                              f"{_source_key(kind)} = \"<the benchmark and where its result "
                              f"is published: a URL or a citation>\", got {src!r}")
        if note is not None and not isinstance(note, str):
            raise SchemaError(f"{where}: GPU {name!r} field {_note_key(kind)} must be text, "
                              f"got {note!r}")
        top = raw.get(theo) if theo else None
        limit = top * (1 + ABOVE_THEORETICAL) if isinstance(top, int | float) else None
        if limit is not None and v > limit:
            raise SchemaError(
                f"{where}: GPU {name!r} field {key} = {v} is more than "
                f"{ABOVE_THEORETICAL:.0%} above the theoretical {theo} = {top}; allowed: "
                f"at most {limit:.4g} (a measurement above the rated peak is recorded as "
                "the theoretical figure, the measurement in the note)")
        out[kind] = (float(v), src.strip(), (note or "").strip())
    return out


def share_rule(kind: str, measured: Iterable[tuple[float, float]]) -> float | None:
    """The median achieved share (measured / reference) over *measured* pairs; None when
    there are none."""
    shares = [m / t for m, t in measured if t > 0]
    return statistics.median(shares) if shares else None


def share_groups(gpus: Iterable[Any]) -> dict[tuple[str, str, str], tuple[float, int]]:
    """Per kind, the median measured / reference share and how many GPUs it comes from,
    keyed ``(kind, "architecture" | "vendor" | "all", name)`` over *gpus* (catalog GPUs)."""
    pairs: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for g in gpus:
        for kind, (value, _, _) in g.achievable_measured.items():
            ref = float(getattr(g, KINDS[kind][2]))
            for level, key in (("architecture", g.architecture), ("vendor", g.vendor),
                               ("all", "")):
                pairs.setdefault((kind, level, key), []).append((value, ref))
    out = {}
    for k, p in pairs.items():
        share = share_rule(k[0], p)
        if share is not None:
            out[k] = (share, len(p))
    return out


def roof(kind: str, measured: Mapping[str, Measured], reference: float | None,
         groups: Mapping[tuple[str, str, str], tuple[float, int]], architecture: str,
         vendor: str) -> Roof:
    """The achievable *kind* of a GPU: its measured figure, else *reference* x the median
    share of its architecture, else of its vendor, else of every shipped GPU with a figure
    (*groups*, from :func:`share_groups`), else none."""
    if kind in measured:
        v, src, note = measured[kind]
        return Roof(kind, v, src, note=note)
    ref_name = KINDS[kind][2]
    for level, key in (("architecture", architecture), ("vendor", vendor), ("all", "")):
        hit = groups.get((kind, level, key))
        if hit is None or not reference:
            continue
        share, n = hit
        among = {"architecture": f"{key} GPUs", "vendor": f"{key} GPUs",
                 "all": "GPUs"}[level]
        return Roof(kind, reference * share,
                    f"derived: {ref_name} x {share:.3f}, the median measured/{ref_name} of "
                    f"the {n} cataloged {among} with a measured figure", True)
    return Roof(kind, None, "no public figure")
