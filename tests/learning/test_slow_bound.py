"""Sanity bounds of time predictions on the shipped feature table: never below the roofline of
the prediction's own counts; the slowest plausible time and the reasons a launch may pass it."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd
import pytest

from ridgeline.datasets import sealed_mask
from ridgeline.hardware import get_gpu
from ridgeline.learning.shipped import TABLE_FILE, shipped_model
from ridgeline.learning.slow_bound import (
    LAUNCH_OVERHEAD_NS,
    REASONS,
    SLOW_SHARE,
    slow_reasons,
    slowest_plausible_ns,
    time_notes,
    within_slow_bound,
)
from ridgeline.learning.training import with_gpu_features

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


def test_no_shipped_prediction_is_above_the_slow_bound_without_a_reason(
        rows: pd.DataFrame, pred: pd.DataFrame) -> None:
    slow = slowest_plausible_ns(pred[COUNTS], [get_gpu(g) for g in rows["gpu"]])
    t = pred["time_ns"].to_numpy(float)
    over = t > slow * (1 + 1e-9)
    why = slow_reasons(rows, slow)
    assert over.sum() > 100  # atomics, serial loops and tiny grids run long
    assert all(why[i] for i in np.flatnonzero(over))
    capped = pred["time_capped"].to_numpy(float) == 1.0
    assert 0 < capped.sum() < 100
    np.testing.assert_allclose(t[capped], slow[capped], rtol=1e-9)
    notes = time_notes(rows, pred)
    assert all(n.startswith("time capped at") for n in np.asarray(notes)[capped])
    assert all(n == "" for n, o, c in zip(notes, over, capped, strict=True) if not o and not c)


def test_a_time_above_the_slow_bound_is_capped_unless_a_reason_applies(
        rows: pd.DataFrame, pred: pd.DataFrame) -> None:
    stream = _one(rows, "triad-cuda", "triad", "a100")
    atom = _one(rows, "atomicPerf-cuda", "SingleRangeAtomicOnGlobalMem", "a100")
    X = pd.concat([stream, atom])
    p = pred.loc[X.index].copy()
    slow = slowest_plausible_ns(p[COUNTS], [get_gpu("a100")] * 2)
    for factor in (0.5, 40.0):
        got = within_slow_bound(X, p.assign(time_ns=factor * slow))
        notes = time_notes(X, got)
        if factor < 1:  # under the bound: nothing changes, nothing to say
            np.testing.assert_allclose(got["time_ns"], factor * slow)
            assert notes == ["", ""] and (got["time_capped"] == 0.0).all()
            continue
        # the streaming triad is brought down to the bound and says so; the launch whose
        # atomics hit one address keeps its time and names why
        assert got["time_ns"].iloc[0] == pytest.approx(slow[0])
        assert got["time_capped"].tolist() == [1.0, 0.0]
        assert got["time_ns"].iloc[1] == pytest.approx(40.0 * slow[1])
        assert notes[0].startswith("time capped at") and "5% of the achievable" in notes[0]
        assert notes[1].endswith(": atomics on one address")
