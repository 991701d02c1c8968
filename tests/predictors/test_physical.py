"""The physical timing model on the shipped tables and constants: a streaming kernel lands
near its bandwidth bound, more DRAM bytes never make a launch faster, a fit on two GPUs
predicts the third, the predictor says which term bounds a counted launch."""

from __future__ import annotations

import math
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ridgeline.datasets import sealed_mask
from ridgeline.errors import SchemaError
from ridgeline.evaluation import hecbench_eval as hb_eval
from ridgeline.evaluation.out_of_program import prepared_rows
from ridgeline.hardware import get_gpu
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors import physical as ph
from ridgeline.predictors import physical_fit as pf
from ridgeline.predictors.learned import LearnedPredictor, shipped_model
from ridgeline.predictors.physical_predictor import (
    PhysicalPredictor,
    constants_for,
    physical_times,
)


@pytest.fixture(scope="module")
def dev_rows() -> pd.DataFrame:
    """The development programs' timed HeCBench rows of the shipped feature table."""
    table = hb_eval.load_table()
    full = prepared_rows(table[~sealed_mask(table)].reset_index(drop=True))
    hb = full[full["dataset"] == "hecbench"].reset_index(drop=True)
    t = hb["m_time_ns"].to_numpy(float)
    return hb[np.isfinite(t) & (t > 0)].reset_index(drop=True)


def _ampere() -> dict[str, float]:
    return dict(ph.load_constants()["generations"]["Ampere"])


def _stream(n: int, bytes_per_element: float) -> ph.PhysInputs:
    """A triad over *n* elements, one thread each, 256 threads per block."""
    one = np.ones(1)
    return ph.PhysInputs(
        threads=one * n, block=one * 256, sp=one * 0, dp=one * 2 * n, hp=one * 0,
        int_ops=one * 6 * n, mem_ops=one * 3 * n, access_bytes=one * bytes_per_element * n,
        dram=one * bytes_per_element * n, hot_int=one * 0, hot_fp=one * 0,
        longest=one * np.nan, issue_factor=one, is_omp=one * 0, regs=one * np.nan,
        smem=one * np.nan)


@pytest.mark.parametrize("gpu", ["rtx3080", "a10", "a100"])
def test_a_streaming_kernel_lands_near_its_bandwidth_bound(gpu: str) -> None:
    g = get_gpu(gpu)
    n = 1 << 25
    x = _stream(n, 24.0)  # two doubles read, one written
    t = float(ph.time_ns(x, [g], _ampere())[0])
    bound = 24.0 * n / g.achievable_bandwidth * 1e9
    assert bound <= t <= 2.0 * bound, (t, bound)
    note = ph.dominant_note(ph.terms_ns(x, [g], _ampere()), 0, g)
    assert note.startswith("memory-bound at"), note


def test_more_dram_bytes_never_make_a_launch_faster(dev_rows: pd.DataFrame) -> None:
    gpus = [get_gpu(g) for g in dev_rows["gpu"]]
    x = ph.inputs_from_frame(dev_rows)
    c = _ampere()
    base = ph.time_ns(x, gpus, c)
    more = ph.time_ns(replace(x, dram=x.dram * 2.0), gpus, c)
    assert np.all(more >= base * (1 - 1e-12))
    assert np.mean(more > base * 1.2) > 0.2  # and it matters where memory bounds the launch
    assert np.all(base >= c["t0"])


def test_a_fit_on_two_gpus_predicts_the_third(dev_rows: pd.DataFrame) -> None:
    held = dev_rows["gpu"] == get_gpu("a100").name
    train = dev_rows[~held].reset_index(drop=True)
    test = dev_rows[held].reset_index(drop=True)
    c = pf.fit_constants(ph.inputs_from_frame(train), [get_gpu(g) for g in train["gpu"]],
                         train["m_time_ns"].to_numpy(float))
    assert set(c) == set(ph.PARAMS)
    assert all(ph.BOUNDS[k][0] <= v <= ph.BOUNDS[k][1] for k, v in c.items())
    p = ph.time_ns(ph.inputs_from_frame(test), [get_gpu(g) for g in test["gpu"]], c)
    ratio = p / test["m_time_ns"].to_numpy(float)
    within = np.mean((ratio <= 2.0) & (ratio >= 0.5))
    assert within > 0.55, within  # the A100 from the GA102 GPUs alone


def test_too_few_rows_to_fit_is_an_error(dev_rows: pd.DataFrame) -> None:
    few = dev_rows.head(5)
    with pytest.raises(SchemaError, match="at least"):
        pf.fit_constants(ph.inputs_from_frame(few), [get_gpu(g) for g in few["gpu"]],
                         few["m_time_ns"].to_numpy(float))


def test_shipped_constants_and_range() -> None:
    shipped = ph.load_constants()
    assert "Ampere" in shipped["generations"]
    for side in ("counted", "analysed"):
        lo, hi = shipped["range"][side]
        assert lo <= 0.0 <= hi and hi - lo > 0.1
    c, note = constants_for(get_gpu("h100"), shipped)
    assert c == shipped["generations"]["Ampere"] and "Hopper" in note


def _saxpy() -> KernelRef:
    return KernelRef("saxpy", (Path(str(resources.files("ridgeline").joinpath(
        "data/samples/saxpy"))),))


def test_counted_rows_take_the_physical_time(dev_rows: pd.DataFrame) -> None:
    rows = dev_rows.head(300).reset_index(drop=True)
    gpus = [get_gpu(g) for g in rows["gpu"]]
    Y = shipped_model().predict(rows)
    got = physical_times(rows, Y, gpus)
    has = rows["c_has"].to_numpy(float) == 1.0
    assert has.any() and (~has).any()
    want = ph.time_ns(ph.inputs_from_frame(rows), gpus, _ampere())
    t = got["time_ns"].to_numpy(float)
    assert np.all(t[has] >= want[has] * (1 - 1e-9))  # the model's time, or the roofline's
    assert np.mean(np.isclose(t[has], want[has])) > 0.9
    assert np.all((got["time_lo_ns"] <= got["time_ns"]) & (got["time_ns"] <= got["time_hi_ns"]))
    assert all(n.split(" ")[0] in ("memory-bound", "issue-bound", "latency-bound", "bound")
               for n in got["note"][has]), set(got["note"][has])
    # the others keep the learned time and say why
    np.testing.assert_allclose(t[~has], Y["time_ns"].to_numpy(float)[~has])
    assert all("needs CPU-execution counts" in n for n in got["note"][~has])


def test_the_predictor_without_counts_keeps_the_learned_time() -> None:
    launch, gpu = Launch.parse(None, None, "16777216 10"), get_gpu("a100")
    p = PhysicalPredictor().predict(_saxpy(), launch, gpu)
    learned = LearnedPredictor().predict(_saxpy(), launch, gpu)
    assert p.predictor == "physical" and p.time_s == pytest.approx(learned.time_s)
    assert p.counts == learned.counts and p.time_range_s == learned.time_range_s
    assert any("needs CPU-execution counts" in n for n in p.notes)
    assert math.isfinite(p.time_s or math.nan)
