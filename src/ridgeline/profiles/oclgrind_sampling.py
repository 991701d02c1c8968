"""Sampled work-groups for large Oclgrind launches.

Oclgrind's quick mode (``--quick``) runs only the first and the last work-group of a launch
while the kernel still sees the full NDRange (``get_global_size``, ``get_num_groups``, the
buffers of the full launch). The counts of those groups are scaled to the whole launch, as
the CUDA counting path scales its sampled blocks: exact when every group does the same work,
and also when the work grows linearly with the group index (the two ends average to the
mean); a kernel that gives one group special work (a final reduction in group 0) is
misjudged. Distinct 32-byte sectors are scaled too, but never above the sectors the buffers
hold (groups that share data touch fewer sectors than the sum of their own).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["SAMPLE_ABOVE", "n_groups", "should_sample", "scale_record", "describe_sample",
           "GROUP_SPREAD"]

#: ``ridgeline counts`` runs every group of a launch of at most this many work-groups
SAMPLE_ABOVE = 64
#: the sampled groups' work differs by more than this fraction: the note says so
GROUP_SPREAD = 0.05

_NOT_ADDITIVE = {"kernel", "global", "local", "args", "groups", "group_instructions_min",
                 "group_instructions_max", "global_sectors_load", "global_sectors_store"}


def n_groups(gsize: tuple[int, int, int], lsize: tuple[int, int, int]) -> int:
    return math.prod(g // max(1, loc) for g, loc in zip(gsize, lsize, strict=True))


def should_sample(gsize: tuple[int, int, int], lsize: tuple[int, int, int],
                  sample_above: int | None) -> bool:
    """Whether a launch of *gsize* / *lsize* runs sampled (``None``: never)."""
    return sample_above is not None and n_groups(gsize, lsize) > max(2, sample_above)


def scale_record(rec: dict[str, Any], total_groups: int, footprint_bytes: int
                 ) -> dict[str, Any]:
    """The plugin record of a sampled launch scaled to *total_groups* work-groups; distinct
    sectors capped by *footprint_bytes* (the global buffers' bytes)."""
    ran = int(rec.get("groups") or 2)
    f = total_groups / max(1, ran)
    out = dict(rec)
    for k, v in rec.items():
        if k not in _NOT_ADDITIVE and isinstance(v, int | float) and not isinstance(v, bool):
            out[k] = int(round(v * f))
    cap = math.ceil(footprint_bytes / 32) if footprint_bytes > 0 else None
    for k in ("global_sectors_load", "global_sectors_store"):
        v = int(round(rec.get(k, 0) * f))
        out[k] = min(v, cap) if cap is not None else v
    out["args"] = {i: {**a, "load_bytes": int(round(a.get("load_bytes", 0) * f)),
                       "store_bytes": int(round(a.get("store_bytes", 0) * f))}
                   for i, a in rec.get("args", {}).items()}
    out["groups"] = ran
    out["groups_total"] = total_groups
    return out


def describe_sample(run: int, total: int, lo: int, hi: int) -> str:
    """The note of counts scaled from *run* of *total* groups whose work ranged *lo*..*hi*
    instructions."""
    note = (f"sampled: Oclgrind ran {run} of {total} work-groups (the first and the last) "
            f"and the counts are scaled by {total / run:g}")
    if hi > 0 and (hi - lo) > GROUP_SPREAD * hi:
        note += f"; the sampled groups' work differs ({lo} vs {hi} instructions)"
    return note
