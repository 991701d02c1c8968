"""Anchor on one measured GPU: the user's measured time there, scaled to each other GPU by
the ratio of the model's predicted times (target over measured GPU).

The range is the spread of that ratio's error (measured target time over the anchored
prediction) on development programs, stored as data (``data/anchor/ratio_error.json``, with
how it was made) by ``tools/anchor_range.py``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ridgeline.errors import SchemaError, UnknownNameError, UsageError
from ridgeline.hardware import GPU, Catalog

__all__ = ["Anchor", "anchor_predictions", "parse_measured", "parse_time_ns", "anchored_time",
           "ratio_error", "RANGE_FILE"]

RANGE_FILE = "data/anchor/ratio_error.json"
_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
#: a number (one way to read its digits: `[0-9]*\.?[0-9]+` split a long one every way) and a unit
_TIME = re.compile(r"^\s*((?:[0-9]++(?:\.[0-9]++)?|\.[0-9]++)(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]*)\s*$")


@dataclass(frozen=True)
class Anchor:
    """A kernel's measured time on one cataloged GPU."""

    gpu: GPU
    measured_ns: float


def parse_time_ns(text: str, where: str = "--measured") -> float:
    """A positive time with an optional unit (ns, us, ms, s; ns when none) in ns."""
    m = _TIME.match(str(text))
    unit = m.group(2).lower() if m else ""
    if not m or unit not in (*_UNITS, ""):
        raise UsageError(f"{where}: time {text!r} is not a number with an optional unit; "
                         f"allowed units {', '.join(_UNITS)} (ns when none), e.g. 1.2ms")
    ns = float(m.group(1)) * _UNITS[unit or "ns"]
    if not math.isfinite(ns) or ns <= 0:
        raise UsageError(f"{where}: time {text!r} must be above 0")
    return ns


def parse_measured(text: str, catalog: Catalog, where: str = "--measured") -> Anchor:
    """``GPU=TIME`` (``A100=1.2ms``, ``a10=850us``, ``3080=41000``) as an :class:`Anchor`;
    an unknown GPU lists the cataloged ones and suggests the closest."""
    name, sep, t = str(text).partition("=")
    if not sep or not name.strip() or not t.strip():
        raise UsageError(f"{where}: expected GPU=TIME (e.g. A100=1.2ms), got {text!r}")
    try:
        gpu = catalog.get(name.strip())
    except UnknownNameError as e:
        raise UsageError(f"{where}: {e}") from None
    return Anchor(gpu, parse_time_ns(t, where))


@lru_cache(maxsize=1)
def ratio_error() -> dict[str, Any]:
    """The stored quantiles of log10(measured / anchored) and how they were made."""
    text = resources.files("ridgeline").joinpath(RANGE_FILE).read_text("utf-8")
    data = json.loads(text)
    q = data.get("log10_error_quantiles", {})
    if not {"lo", "hi"} <= set(q):
        raise SchemaError(f"ridgeline/{RANGE_FILE}: log10_error_quantiles needs lo and hi")
    return dict(data)


def anchored_time(anchor: Anchor, pred_target_ns: float, pred_measured_ns: float,
                  same_gpu: bool = False) -> tuple[float, tuple[float, float]]:
    """Anchored time (ns) on a target and its range: measured x predicted target / predicted
    measured GPU. On the measured GPU itself the measured time, with no spread."""
    if same_gpu:
        return anchor.measured_ns, (anchor.measured_ns, anchor.measured_ns)
    if not (pred_target_ns > 0 and pred_measured_ns > 0):
        raise UsageError("cannot anchor: the model gave no positive time on "
                         f"{'the target' if not pred_target_ns > 0 else anchor.gpu.name}")
    t = anchor.measured_ns * pred_target_ns / pred_measured_ns
    q = ratio_error()["log10_error_quantiles"]
    return t, (t * 10 ** float(q["lo"]), t * 10 ** float(q["hi"]))


def range_share() -> float:
    """The share of development pairs the stored range covers (e.g. 0.8)."""
    return float(ratio_error()["coverage"])


def anchor_predictions(preds: list[Any], anchor: Anchor, on_measured: Any) -> None:
    """Replace each prediction's time (and range) by the anchored one, in place, and say so
    in its origin and notes. *on_measured*: the same predictor's prediction on the measured
    GPU (its time is the ratio's denominator)."""
    denom = on_measured.time_s
    if denom is None or not denom > 0:
        raise UsageError(f"--measured: the model gave no time on {anchor.gpu.name} to anchor on")
    q = ratio_error()["log10_error_quantiles"]
    how = (f"anchored: measured {_fmt_ns(anchor.measured_ns)} on {anchor.gpu.name} x "
           f"predicted time here / predicted on {anchor.gpu.name} "
           f"({_fmt_ns(denom * 1e9)}); range from that ratio's error on development programs "
           f"(x{10 ** float(q['lo']):.2f}-x{10 ** float(q['hi']):.2f})")
    for p in preds:
        if p.time_s is None:
            continue
        same = p.gpu == anchor.gpu.name
        t, (lo, hi) = anchored_time(anchor, p.time_s * 1e9, denom * 1e9, same_gpu=same)
        p.origin["time_model"] = p.origin.get("time", "learned")
        p.origin["time"] = "measured (--measured)" if same else how
        p.notes.append(f"time anchored on {anchor.gpu.name} = {_fmt_ns(anchor.measured_ns)}")
        p.time_s, p.time_range_s = t * 1e-9, (lo * 1e-9, hi * 1e-9)


def _fmt_ns(ns: float) -> str:
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= f:
            return f"{ns / f:.4g} {unit}"
    return f"{ns:.4g} ns"
