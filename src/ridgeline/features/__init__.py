"""Feature records per kernel: static source features (symbolic trip counts, operation and
memory-access counts) and, for CUDA, compiled features (SASS opcode histogram, registers).

    from ridgeline.features import kernel_features, static_features
    rec = kernel_features(["prog-cuda/"], "saxpy", arch="sm_86")   # dict, JSON-ready
"""

from __future__ import annotations

from ridgeline.features.record import kernel_features, kernel_record
from ridgeline.features.static import UNKNOWN_TRIP, static_features

__all__ = ["UNKNOWN_TRIP", "kernel_features", "kernel_record", "static_features"]
