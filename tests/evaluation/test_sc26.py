"""The SC26FLOPBench intensity protocol on real HeCBench rows: classes, within ±x, FP16
constant loads, and the task's figures on a slice of the shipped table."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ridgeline import datasets
from ridgeline.evaluation.fp16_constants import fp16_not_arithmetic
from ridgeline.evaluation.intensity import (
    PUBLISHED_LLM,
    class_recall,
    intensity,
    intensity_classes,
    intensity_figures,
    within,
)
from ridgeline.hardware import get_gpu, ridge_point

A100 = "NVIDIA A100 SXM4 40GB"


@pytest.fixture(scope="module")
def rows(data_dir: Path) -> pd.DataFrame:
    """Development rows of four programs on the three GPUs: integer-only (ans), FP32
    with the A100's HFMA2 constants (adamw, aidw-omp), real FP16 (relu)."""
    h = datasets.load("hecbench", data_dir)
    keep = h["source"].isin(["ans-cuda", "adamw-cuda", "aidw-omp", "relu-cuda"])
    r = h[keep].reset_index(drop=True)
    assert not datasets.sealed_mask(r).any()
    return r.assign(grid_size=r["grid_size"].astype(str), block_size=r["block_size"].astype(str))


def test_intensity_classes_of_real_rows(rows: pd.DataFrame) -> None:
    a100 = rows[rows["gpu"] == A100]
    ridge = ridge_point(get_gpu("a100"), "sp")
    assert ridge == pytest.approx(19.49e12 / 1555e9)
    ai = intensity(a100["flops_sp"].to_numpy(), a100["dram_bytes"].to_numpy())
    cls = dict(zip(a100["source"] + ":" + a100["kernel"].str[:20],
                   intensity_classes(ai, ridge), strict=True))
    # ans decodes with integers only: no FP32 work at all
    assert cls["ans-cuda:phase1_decode_subseq"] == "zero"
    # adamw: 118 M FLOPs over 18.5 MB, 6.4 FLOP/B below the A100's 12.5
    assert cls["adamw-cuda:fused_4bit_kernel"] == "bandwidth"
    # aidw-omp: 7.4 G FLOPs over 262 kB
    assert next(v for k, v in cls.items() if k.startswith("aidw-omp")) == "compute"
    # the same launch on the RTX 3080 (ridge 40.2): adamw 4.3 FLOP/B, still bandwidth-bound
    r3080 = rows[(rows["source"] == "adamw-cuda") & (rows["gpu"] == "GeForce RTX 3080")]
    assert intensity_classes(intensity(r3080["flops_sp"].to_numpy(),
                                       r3080["dram_bytes"].to_numpy()),
                             ridge_point(get_gpu("rtx3080"), "sp"))[0] == "bandwidth"


def test_zero_and_infinite_intensities() -> None:
    ai = intensity(np.array([0.0, 0.4, 5.0, 5.0, np.nan]), np.array([10.0, 10.0, 0.0, 10.0, 1.0]))
    assert ai[:2].tolist() == [0.0, 0.0]  # under one FLOP is no work
    assert np.isinf(ai[2]) and ai[3] == 0.5
    assert intensity_classes(ai, 1.0).tolist() == ["zero", "zero", "compute", "bandwidth", ""]


def test_within_on_real_intensities(rows: pd.DataFrame) -> None:
    m = intensity(rows["flops_sp"].to_numpy(), rows["dram_bytes"].to_numpy())
    pos = m > 0
    assert pos.any() and (~pos).any()
    # a prediction 5% high is within both tolerances, 20% high only within 50%, 2x neither
    for factor, hits in ((1.05, (True, True)), (0.8, (False, True)), (2.0, (False, False))):
        for tol, hit in zip((0.10, 0.50), hits, strict=True):
            got = within(m * factor, m, tol)
            assert got[pos].all() == hit and (~got[pos]).all() != hit
            assert got[~pos].all()  # zero predicted as zero: a hit at every tolerance
    # a zero against a positive intensity (either way) misses at every tolerance
    assert not within(np.zeros(pos.sum()), m[pos], 0.5).any()
    assert not within(m[pos], np.zeros(pos.sum()), 0.5).any()
    assert within(np.array([np.inf, np.inf]), np.array([np.inf, 3.0]), 0.5).tolist() == [
        True, False]


def test_class_recall_counts_each_measured_class() -> None:
    r = class_recall(["zero", "zero", "bandwidth", "compute", "bandwidth"],
                     ["zero", "bandwidth", "bandwidth", "bandwidth", "compute"])
    assert r["zero"] == {"n": 2, "recall": 0.5}
    assert r["bandwidth"] == {"n": 2, "recall": 0.5}
    assert r["compute"] == {"n": 1, "recall": 0.0}
    assert r["accuracy"] == pytest.approx(0.4)
    assert r["confusion"] == [[1, 1, 0], [0, 1, 1], [0, 1, 0]]


def test_figures_of_a_perfect_and_a_scaled_prediction(rows: pd.DataFrame) -> None:
    meas = rows[["flops_sp", "flops_dp", "flops_hp", "dram_bytes"]].reset_index(drop=True)
    perfect = intensity_figures(meas, meas, rows["gpu"].to_numpy())
    assert set(perfect) == {"GeForce RTX 3080", "NVIDIA A10", A100}
    for per in perfect.values():
        for d in per.values():
            assert d["within_10"] == d["within_50"] == 1.0
            assert all(d["classes"][c]["recall"] in (1.0,) or d["classes"][c]["n"] == 0
                       for c in ("zero", "bandwidth", "compute"))
    assert perfect[A100]["FP32"]["published_llm"] == {"within_10": 0.442, "within_50": 0.808}
    assert perfect[A100]["FP64"]["published_llm"]["within_50"] == PUBLISHED_LLM[
        (A100, "FP64")][1]
    # three times the DRAM bytes: zero rows still hit, the others miss (a third of the
    # intensity is 67% off); half the intensity is 50% off, a hit at ±50% exactly
    third = intensity_figures(meas, meas.assign(dram_bytes=3 * meas["dram_bytes"]),
                              rows["gpu"].to_numpy())
    d = third[A100]["FP32"]
    zero = d["classes"]["zero"]["n"]
    assert d["within_50"] == pytest.approx(zero / d["rows"]) and d["within_50_nonzero"] == 0.0
    assert 0 < zero < d["rows"]
    half = intensity_figures(meas, meas.assign(dram_bytes=2 * meas["dram_bytes"]),
                             rows["gpu"].to_numpy())[A100]["FP32"]
    assert half["within_50"] == 1.0 and half["within_10"] == pytest.approx(zero / d["rows"])


def test_fp16_constant_loads_are_told_from_half_arithmetic(rows: pd.DataFrame,
                                                           data_dir: Path) -> None:
    verdict, rule = fp16_not_arithmetic(rows, data_dir)
    a100 = (rows["gpu"] == A100).to_numpy()
    by = {s: (verdict[a100 & (rows["source"] == s).to_numpy()],
              rule[a100 & (rows["source"] == s).to_numpy()]) for s in set(rows["source"])}
    # adamw's A100 FP16 FLOPs are HFMA2 constant loads (its SASS has no other FP16 opcode)
    assert by["adamw-cuda"][0].tolist() == [1.0] and by["adamw-cuda"][1].tolist() == ["sass"]
    # relu computes in half precision (HADD2/HMNMX2 beside HFMA2): real FP16 work
    assert (by["relu-cuda"][0] == 0.0).all() and len(by["relu-cuda"][0]) == 2
    # aidw-omp's A100 kernel is not in the profiler table; the A10 measured no FP16 for it
    assert by["aidw-omp"][0].tolist() == [1.0] and by["aidw-omp"][1].tolist() == ["other-gpu"]


@pytest.mark.slow
def test_task_figures_on_a_slice(data_dir: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from ridgeline.evaluation.oop_predictions import (
        development_predictions,
        with_loader_measurements,
    )
    from ridgeline.evaluation.out_of_program import set_model_params
    from ridgeline.evaluation.sc26_eval import FP16_ARITH, split_figures, write_report
    from ridgeline.learning.shipped import TABLE_FILE

    monkeypatch.setenv("RIDGELINE_DATA", str(data_dir))
    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        t = with_loader_measurements(pd.read_parquet(fh), data_dir)
    progs = sorted(set(t.loc[t["dataset"] == "hecbench", "program"]))[:40]
    small = t[t["program"].isin(progs)].reset_index(drop=True)
    set_model_params(max_iter=20, bags=1)
    try:
        hb, pred = development_predictions(small, folds=3)
    finally:
        set_model_params()
    assert not datasets.sealed_mask(hb).any() and len(pred) == len(hb)
    verdict, _ = fp16_not_arithmetic(hb, data_dir)
    figs = split_figures(hb, pred, verdict)
    assert figs["counted_rows"] + sum(
        d["FP32"]["rows"] for d in figs["learned"].values()) == figs["rows"]
    for subset in ("all", "counted"):
        for d in figs[subset].values():
            assert set(d) == {"FP16", "FP32", "FP64", FP16_ARITH}
            assert 0.0 <= d["FP32"]["within_10"] <= d["FP32"]["within_50"] <= 1.0
    path = write_report(tmp_path, {"development CV": figs}, {"split": "test"})
    text = path.read_text()
    assert "44.2%" in text and "| NVIDIA A100 SXM4 40GB | FP64 |" in text
