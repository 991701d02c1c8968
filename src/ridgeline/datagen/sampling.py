"""Launch sampling over three utilization regimes, and IQR-based balancing of the times.

Regimes relative to the device's compute units (CU): ``few`` (fewer work-groups than
CUs), ``under`` (CUs to 8x CUs: under-filled), ``full`` (8x CUs and more). Local sizes come
from the device's allowed set (powers of two up to its maximum work-group size, at most
256). Every sample is addressable by (kernel hash, config, seed): its ``sample_id``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["LaunchConfig", "REGIMES", "local_sizes", "sample_launches", "sample_id", "balance"]

REGIMES = ("few", "under", "full")
FULL_FACTOR = 8


@dataclass(frozen=True)
class LaunchConfig:
    global_size: int
    local_size: int
    regime: str
    sample_id: str

    @property
    def groups(self) -> int:
        return self.global_size // self.local_size

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sample_id(kernel_hash: str, global_size: int, local_size: int, seed: int) -> str:
    key = f"{kernel_hash}|g={global_size}|l={local_size}|seed={seed}"
    return hashlib.sha1(key.encode()).hexdigest()[:20]


def local_sizes(max_wg: int, cap: int = 256) -> list[int]:
    top = min(max_wg, cap)
    return [1 << i for i in range(2, int(math.log2(top)) + 1)] or [1]


def _groups_range(regime: str, cu: int, max_groups: int) -> tuple[int, int]:
    if regime == "few":
        return 1, max(1, cu - 1)
    if regime == "under":
        return cu, max(cu, FULL_FACTOR * cu - 1)
    return FULL_FACTOR * cu, max(FULL_FACTOR * cu, max_groups)


def sample_launches(kernel_hash: str, n: int, seed: int, compute_units: int,
                    max_work_group_size: int, max_global: int = 1 << 22,
                    local_choices: int = 2) -> list[LaunchConfig]:
    """*n* distinct launch configurations, spread evenly over the three regimes, using
    *local_choices* local sizes per kernel (drawn from the device's allowed set)."""
    import numpy as np

    rng = np.random.default_rng(int(sample_id(kernel_hash, 0, 0, seed)[:12], 16))
    locs = local_sizes(max_work_group_size)
    if len(locs) > local_choices:  # each local size costs a JIT compile on some devices
        locs = sorted(int(x) for x in rng.choice(locs, size=local_choices, replace=False))
    cu = max(1, compute_units)
    out: dict[str, LaunchConfig] = {}
    tries = 0
    while len(out) < n and tries < 50 * n:
        regime = REGIMES[tries % 3] if tries < 3 * n else REGIMES[int(rng.integers(3))]
        tries += 1
        loc = int(rng.choice(locs))
        lo, hi = _groups_range(regime, cu, max(1, max_global // loc))
        if lo > hi:
            continue
        # log-uniform number of groups within the regime
        groups = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))))
        groups = min(max(groups, lo), hi)
        g = groups * loc
        sid = sample_id(kernel_hash, g, loc, seed)
        out.setdefault(sid, LaunchConfig(g, loc, regime, sid))
    return list(out.values())


def balance(times: list[float], regimes: list[str], k: float = 1.5) -> list[bool]:
    """Which samples to keep: drop per-regime outliers of log time beyond *k* IQR, then
    cap every regime at the smallest regime's count so none dominates."""
    import numpy as np

    keep = np.zeros(len(times), dtype=bool)
    logs = np.log2(np.maximum(np.asarray(times, dtype=float), 1e-3))
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(regimes):
        groups.setdefault(r, []).append(i)
    inliers: dict[str, list[int]] = {}
    for r, idx in groups.items():
        v = logs[idx]
        q1, q3 = np.percentile(v, [25, 75])
        iqr = q3 - q1
        inliers[r] = [i for i in idx if q1 - k * iqr <= logs[i] <= q3 + k * iqr]
    cap = min((len(v) for v in inliers.values() if v), default=0)
    for idx in inliers.values():
        for i in idx[:cap]:
            keep[i] = True
    return keep.tolist()
