"""The hecbench evaluation on a slice of the shipped derived table: grouped folds, report, plots."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.evaluation.hecbench_eval import cv_paper_a, run_protocols
from ridgeline.evaluation.out_of_program import set_model_params
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.report import write_report
from ridgeline.learning.shipped import TABLE_FILE


@pytest.fixture(scope="module")
def small_table() -> pd.DataFrame:
    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        t = pd.read_parquet(fh)
    pa_progs = sorted(set(t.loc[t["dataset"] == "paper-a", "program"]))[:30]
    hb_progs = sorted(set(t.loc[t["dataset"] == "hecbench", "program"]))[:60]
    keep = t["program"].isin(set(pa_progs) | set(hb_progs))
    return t[keep].reset_index(drop=True)


@pytest.mark.slow
def test_grouped_eval_and_report(small_table: pd.DataFrame, tmp_path: Path,
                                 data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_DATA", str(data_dir))
    set_model_params(max_iter=25)
    pa = cv_paper_a(small_table, folds=3)
    assert pa["learned"]["n"] == pa["rows"] > 0
    assert 0.0 <= pa["learned"]["accuracy"] <= 1.0
    # every test row was predicted by a model that never saw its program
    prot = run_protocols(small_table, folds=3, which=("cv", "unseen"))
    assert set(prot["unseen"]) <= {"GeForce RTX 3080", "NVIDIA A10", "NVIDIA A100 SXM4 40GB"}
    path = write_report(tmp_path, pa, prot, small_table, provenance(split="test"))
    text = path.read_text()
    assert "| majority class |" in text and "64.1%" in text
    assert "unseen GPU AND unseen program" in text
    # the stated confidence against the share right, for counted and learned rows
    cal = prot["cv"]["_calibration"]
    rows = sum(cal[o]["rows"] for o in ("counted", "learned"))
    assert 0 < rows <= len(prot["cv"]["_pred"])
    for o in ("counted", "learned"):
        assert sum(b["rows"] for b in cal[o]["bins"]) == cal[o]["rows"]
        for b in cal[o]["bins"]:
            assert b["from"] <= b["confidence"] <= b["to"] and 0.0 <= b["right"] <= 1.0
    assert "## Confidence of the class" in text and "| counted | 0.99-1.00 |" in text
    # each protocol says how often the measured time fell in the predicted range
    for g, r in prot["cv"].items():
        if not g.startswith("_"):
            tr = r["time_range"]
            assert tr["n"] > 0 and tr["median_width"] > 1.0
            assert tr["inside"] + tr["below"] + tr["above"] == pytest.approx(1.0)
    assert "time in its range (width)" in text
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert "time-cv.png" in pngs and any(p.startswith("roofline-") for p in pngs)
    assert "confusion-paper-a-learned.png" in pngs
    for p in tmp_path.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({p.name})" in text
    set_model_params()


def test_time_range_hits_counts_inside_below_and_above() -> None:
    import numpy as np

    from ridgeline.evaluation.hecbench_eval import time_range_hits

    got = time_range_hits(np.array([1.0, 5.0, 20.0, 7.0]), np.array([2.0, 2.0, 2.0, np.nan]),
                          np.array([10.0, 10.0, 10.0, 9.0]))
    assert got == {"n": 3, "inside": pytest.approx(1 / 3), "below": pytest.approx(1 / 3),
                   "above": pytest.approx(1 / 3), "median_width": 5.0}
    assert time_range_hits(np.array([1.0]), np.array([np.nan]), np.array([np.nan])) == {}


@pytest.mark.slow
def test_sealed_figures_come_from_sealed_rows_only(small_table: pd.DataFrame,
                                                   tmp_path: Path) -> None:
    from ridgeline.datasets import is_sealed
    from ridgeline.evaluation.sealed_eval import development_rows, sealed_figures

    dev = development_rows(small_table)
    assert not any(map(is_sealed, dev["program"].unique()))
    sealed_rows = small_table[small_table["program"].map(is_sealed)]
    assert len(dev) + len(sealed_rows) == len(small_table)
    set_model_params(max_iter=25)
    try:
        got = sealed_figures(small_table, unseen_gpu=False)
    finally:
        set_model_params()
    hb_sealed = sealed_rows[(sealed_rows["dataset"] == "hecbench")
                            & (sealed_rows["error"].fillna("") == "")]
    assert got["programs"] == sealed_rows["program"].nunique() > 0
    assert got["sealed"]["all"]["rows"] == len(hb_sealed)
    assert sum(r["rows"] for g, r in got["sealed"].items() if g != "all") == len(hb_sealed)
    assert "sealed_unseen_gpu" not in got
    path = write_report(tmp_path, cv_paper_a(dev, folds=3), {}, dev,
                        provenance(split="test"), got)
    text = path.read_text()
    assert "## Sealed slice" in text
    assert "sealed programs (model trained on every development row)" in text
