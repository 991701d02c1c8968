"""Sanity bounds of time predictions on the shipped feature table: never below the roofline of
the prediction's own counts; the slowest plausible time and the reasons a launch may pass it."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd
import pytest

from ridgeline.datasets import sealed_mask
from ridgeline.hardware import get_gpu
from ridgeline.predictors.learned import TABLE_FILE, shipped_model
from ridgeline.predictors.slow_bound import (
    LAUNCH_OVERHEAD_NS,
    REASONS,
    SLOW_SHARE,
    slow_reasons,
    slowest_plausible_ns,
)
from ridgeline.predictors.training import with_gpu_features

COUNTS = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "dram_bytes"]


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Every development row of the shipped feature table (both datasets) with its GPU's
    columns and the counted ones, as predict-batch --count cached sees them."""
    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        t = pd.read_parquet(fh)
    t = t[(t["error"].fillna("") == "") & ~sealed_mask(t)].reset_index(drop=True)
    return with_gpu_features(t)


@pytest.fixture(scope="module")
def pred(rows: pd.DataFrame) -> pd.DataFrame:
    return shipped_model().predict(rows)


def test_shipped_predictions_are_never_below_the_roofline_of_their_counts(
        rows: pd.DataFrame, pred: pd.DataFrame) -> None:
    assert len(rows) > 2500
    gpus = [get_gpu(g) for g in rows["gpu"]]
    roof = np.zeros(len(rows))
    for col, prec in (("dram_bytes", None), ("flops_sp", "sp"), ("flops_dp", "dp"),
                      ("int_ops", "int")):
        rate = np.array([g.bandwidth if prec is None else g.peak(prec) for g in gpus])
        roof = np.fmax(roof, pred[col].to_numpy(float) / rate * 1e9)
    t = pred["time_ns"].to_numpy(float)
    assert np.isfinite(t).all()
    assert (t >= roof * (1 - 1e-9)).all(), rows.loc[t < roof * (1 - 1e-9), "source"].tolist()
    # the bound is not empty: many rows sit within 2x of it
    assert (t < 2 * roof).sum() > 50


def _one(rows: pd.DataFrame, source: str, kernel: str, gpu: str) -> pd.DataFrame:
    r = rows[(rows["source"] == source) & (rows["kernel"] == kernel)
             & (rows["gpu"] == get_gpu(gpu).name)]
    assert len(r) >= 1
    return r.head(1)


def test_slow_bound_sums_each_count_at_a_share_of_its_achievable_rate(
        rows: pd.DataFrame, pred: pd.DataFrame) -> None:
    r = _one(rows, "triad-cuda", "triad", "a100")
    p = pred.loc[r.index, COUNTS]
    g = get_gpu("a100")
    want = (LAUNCH_OVERHEAD_NS
            + p["dram_bytes"].iloc[0] / (SLOW_SHARE * g.achievable_bandwidth) * 1e9
            + p["flops_sp"].iloc[0] / (SLOW_SHARE * g.peak("sp")) * 1e9
            + p["flops_dp"].iloc[0] / (SLOW_SHARE * g.peak("dp")) * 1e9
            + p["flops_hp"].iloc[0] / (SLOW_SHARE * g.peak("hp")) * 1e9
            + p["int_ops"].iloc[0] / (SLOW_SHARE * g.peak("int")) * 1e9)
    assert slowest_plausible_ns(p, [g])[0] == pytest.approx(want)
    assert want > LAUNCH_OVERHEAD_NS
    # a streaming triad runs far faster than the slow bound of its counts, without a reason
    assert pred.loc[r.index, "time_ns"].iloc[0] < want
    assert slow_reasons(r, np.array([want])) == [[]]
    with pytest.raises(ValueError, match="GPUs"):
        slowest_plausible_ns(p, [g, g])


def test_slow_reasons_name_atomics_serial_loops_and_tiny_grids(rows: pd.DataFrame,
                                                               pred: pd.DataFrame) -> None:
    cases = {("atomicPerf-cuda", "SingleRangeAtomicOnGlobalMem"): {REASONS[0]},
             ("secp256k1-cuda", "secp256k1"): {REASONS[1], REASONS[2]}}
    for (source, kernel), want in cases.items():
        r = _one(rows, source, kernel, "a100")
        slow = slowest_plausible_ns(pred.loc[r.index, COUNTS], [get_gpu("a100")])
        # both are predicted (and measured) far above the slow bound, for these reasons
        assert pred.loc[r.index, "time_ns"].iloc[0] > 10 * slow[0]
        assert r["time_ns"].iloc[0] > 10 * slow[0]
        assert set(slow_reasons(r, slow)[0]) == want
