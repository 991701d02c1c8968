"""Answer parsing as the 2025 paper did it: the last match of compute|bandwidth, any case."""

from __future__ import annotations

import re
from collections.abc import Callable

from ridgeline._registry import Registry
from ridgeline.hardware import BANDWIDTH, COMPUTE

__all__ = ["PARSERS", "parse_roofline_class", "CLASSES"]

CLASSES = (COMPUTE, BANDWIDTH)
_CLASS_RE = re.compile(r"compute|bandwidth", re.IGNORECASE)
_CANON = {"compute": COMPUTE, "bandwidth": BANDWIDTH}


def parse_roofline_class(text: str | None) -> str | None:
    """"Compute" or "Bandwidth" from the last mention in *text*; None when neither occurs
    (recorded as no answer and counted wrong)."""
    if not text:
        return None
    hits = _CLASS_RE.findall(text)
    return _CANON[hits[-1].lower()] if hits else None


#: parsers by the name a scenario file gives
PARSERS: Registry[Callable[[str | None], str | None]] = Registry("answer parser")
PARSERS.add("last-class", parse_roofline_class)
