"""The allocation bound on extrapolated sector counts (records.footprint_bound)."""

from __future__ import annotations

import math

import pytest

from ridgeline.counting.records import footprint_bound


def test_bound_is_allocations_plus_outside_frames() -> None:
    raw = {"alloc_sectors": [8192, 1024], "outside_sectors": [3, 0], "outside_frames": [1, 0]}
    rd, wr = footprint_bound(raw, sscale=1000.0)
    # 3 outside sectors x 1000 would be 3000; one 4 kB frame holds at most 128
    assert rd == 8192 + 128 and wr == 1024


def test_outside_sectors_scale_when_under_their_frames() -> None:
    raw = {"alloc_sectors": [0, 0], "outside_sectors": [2, 1], "outside_frames": [1, 1]}
    assert footprint_bound(raw, sscale=10.0) == (20.0, 10.0)


@pytest.mark.parametrize("missing", ["alloc_sectors", "outside_sectors", "outside_frames"])
def test_no_bound_without_the_runtime_fields(missing: str) -> None:
    raw = {"alloc_sectors": [1, 1], "outside_sectors": [1, 1], "outside_frames": [1, 1]}
    del raw[missing]
    assert footprint_bound(raw, 1.0) == (math.inf, math.inf)
