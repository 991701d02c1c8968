"""Distinct sectors of a sampled launch, extrapolated from its counted blocks."""

from __future__ import annotations

import pytest

from ridgeline.counting.records import distinct_sectors


def test_sectors_every_block_touches_count_once() -> None:
    # 10 of 6048 blocks counted, all updating the same 64 sectors
    assert distinct_sectors(64, 64, 604.8, 10) == 64


def test_sectors_of_each_block_its_own_scale_to_the_whole_grid() -> None:
    # 10 of 6048 blocks counted, 32 sectors each: 6048 x 32
    assert distinct_sectors(320, 32, 604.8, 10) == pytest.approx(6048 * 32)


def test_a_shared_table_plus_own_slices() -> None:
    # each block reads a 100-sector table and 32 sectors of its own
    assert distinct_sectors(100 + 320, 132, 604.8, 10) == pytest.approx(100 + 6048 * 32)


@pytest.mark.parametrize("first, blocks, sscale", [(None, 10, 604.8), (32, 1, 1.0),
                                                   (32, 10, 1.0)])
def test_without_the_first_blocks_figure_or_a_sample_the_union_scales(
        first: float | None, blocks: int, sscale: float) -> None:
    # runtimes before the first block's figure, and launches counted whole
    assert distinct_sectors(320, first, sscale, blocks) == 320 * sscale
