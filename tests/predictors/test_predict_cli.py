"""`ridgeline predict` and `predict-batch` end to end on the shipped samples and test programs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.hardware import Counts, get_gpu
from ridgeline.learning.confidence import class_confidence
from ridgeline.predictors.batch_predict import PRED_COLUMNS


def test_predict_sample_several_gpus_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "--sample", "saxpy", "--gpu", "rtx3080", "--gpu", "mi300x",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["gpu"] for o in out] == ["GeForce RTX 3080", "AMD Instinct MI300X"]
    for o in out:
        assert o["class"]["paper-a"] in ("Compute", "Bandwidth")
        assert o["dram_bytes"] > 0 and o["time_s"] > 0
        lo, hi = o["time_range_s"]  # the shipped model carries its calibrated range
        assert lo < o["time_s"] < hi
        assert 0.5 <= o["confidence"] <= 1.0
        assert o["origin"]["grid"].startswith("source main.cu")  # taken from the launch site
        # without --count the output says its counts are not from CPU execution, and how to get them
        assert any("not CPU execution" in n and "--count auto" in n for n in o["notes"])


def test_predict_sample_classes_differ(capsys: pytest.CaptureFixture[str]) -> None:
    for sample, expect in (("saxpy", "Bandwidth"), ("polyeval", "Compute")):
        assert main(["predict", "--sample", sample, "--gpu", "a100", "--json",
                     "--predictor", "analytic"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out[0]["class"]["paper-a"] == expect


def test_predict_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "--sample", "polyeval", "--gpu", "h100", "--args",
                 "4096 8 2"]) == 0
    text = capsys.readouterr().out
    assert "NVIDIA H100 SXM5" in text and "paper-a" in text and "taken from the launch" in text
    assert "80% range us" in text


def test_predict_bad_input_is_a_clean_error(stencil_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "--sample", "saxpy", "--gpu", "rtx9999"]) == 2
    assert "unknown GPU 'rtx9999'" in capsys.readouterr().err
    assert main(["predict", str(stencil_dir), "--kernel", "nope", "--gpu", "a10"]) == 2
    assert "unknown kernel 'nope'" in capsys.readouterr().err
    assert main(["predict", str(stencil_dir), "--kernel", "stencil", "--gpu", "a10",
                 "--grid", "0,1"]) == 2
    assert "positive" in capsys.readouterr().err


def _rows(tmp_path: Path) -> Path:
    rows = pd.DataFrame([
        dict(source="stencil-cuda", kernel="stencil", model_type="cuda", block_size="(128, 1, 1)",
             grid_size="(8, 1, 1)", exe_args="1000 4", device="3080"),
        dict(source="stencil-cuda", kernel="stencil", model_type="cuda", block_size="128",
             grid_size="8,1,1", exe_args="1000 4", device="A100"),
        dict(source="stencil-cuda", kernel="missing", model_type="cuda", block_size="128",
             grid_size="8", exe_args="", device="A10"),
        dict(source="nowhere-cuda", kernel="k", model_type="cuda", block_size="1",
             grid_size="1", exe_args="", device="A10"),
        dict(source="stencil-cuda", kernel="stencil", model_type="cuda", block_size="(0, 1, 1)",
             grid_size="8", exe_args="", device="A10"),
        dict(source="stencil-cuda", kernel="stencil", model_type="cuda", block_size="128",
             grid_size="8", exe_args="", device="Voodoo 2"),
        dict(source="axpy-omp", kernel="main_l8", model_type="omp", block_size="(256, 1, 1)",
             grid_size="(20, 1, 1)", exe_args="5000", device="A10"),
    ])
    rows["extra"] = range(len(rows))
    p = tmp_path / "rows.csv"
    rows.to_csv(p, index=False)
    return p


@pytest.mark.parametrize("predictor", ["learned", "analytic", "physical"])
def test_predict_batch_contract(tmp_path: Path, stencil_dir: Path, omp_dir: Path,
                                predictor: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert stencil_dir.parent == omp_dir.parent == tmp_path
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    out = tmp_path / f"out-{predictor}.csv"
    assert main(["predict-batch", str(_rows(tmp_path)), "--sources", str(tmp_path), "--out",
                 str(out), "--predictor", predictor, "--jobs", "2"]) == 0
    df = pd.read_csv(out, keep_default_na=False)
    assert list(df["extra"]) == list(range(7))  # every row, in order, other columns kept
    assert all(c in df.columns for c in PRED_COLUMNS)
    err = list(df["error"])
    assert err[0] == err[1] == err[6] == ""
    assert "missing" in err[2] and "KernelNotFoundError" in err[2]
    assert "does not exist" in err[3]
    assert "positive" in err[4]
    assert "unknown GPU" in err[5]
    for i in (0, 1, 6):
        assert float(df["pred_bytes_total"][i]) > 0
        assert float(df["pred_xtime_ns"][i]) > 0
        assert df["pred_class_paper_a"][i] in ("Compute", "Bandwidth")
    for i in (2, 3, 4, 5):
        assert df["pred_SP_FLOP"][i] == "" and df["pred_class_fp"][i] == ""
    if predictor == "analytic":
        assert float(df["pred_DP_FLOP"][0]) == pytest.approx(40_000)
        assert [df["count_status"][i] for i in (0, 1, 6)] == ["off"] * 3
    else:
        # by default programs not counted yet run on the CPU: the OpenMP one is counted; the
        # stencil program dereferences pointers it never allocated, so it crashes there and
        # its rows are learned from the source (the batch goes on)
        assert [df["pred_origin"][i] for i in (0, 1, 6)] == ["learned", "learned", "counted"]
        # and each row says why it was not counted
        assert [df["count_status"][i] for i in (0, 1, 6)] == ["failed", "failed", "counted"]
        assert df["count_error"][0].startswith("crash: ") and df["count_error"][6] == ""
        assert all(df["count_status"][i] == "" for i in (2, 3, 4, 5))
        # each predicted class says how likely it is right, by the origin of its counts
        for i in (0, 1, 6):
            gpu = get_gpu(df["device"][i])
            counts = Counts(*(float(df[c][i]) for c in ("pred_SP_FLOP", "pred_DP_FLOP",
                                                         "pred_HP_FLOP", "pred_int_ops",
                                                         "pred_bytes_total")))
            want = class_confidence(counts, gpu, counted=df["pred_origin"][i] == "counted")
            assert float(df["pred_confidence"][i]) == pytest.approx(want, rel=1e-6)
        assert all(df["pred_confidence"][i] == "" for i in (2, 3, 4, 5))
        # and each time its range, wider for learned counts than for counted ones
        lo, hi, t = (df[c][[0, 1, 6]].astype(float).to_numpy() for c in
                     ("pred_xtime_lo_ns", "pred_xtime_hi_ns", "pred_xtime_ns"))
        assert (lo < t).all() and (t < hi).all()
        assert hi[2] / lo[2] < hi[0] / lo[0]
        assert all(df["pred_xtime_lo_ns"][i] == "" for i in (2, 3, 4, 5))
        if predictor == "physical":  # the counted row: which term bounds its time
            assert "bound" in df["pred_time_note"][6] and "waves" in df["pred_time_note"][6]
            assert all("needs CPU-execution counts" in df["pred_time_note"][i] for i in (0, 1))


def test_predict_batch_missing_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.csv"
    p.write_text("source,kernel\na,b\n")
    assert main(["predict-batch", str(p), "--sources", str(tmp_path), "--out",
                 str(tmp_path / "o.csv")]) == 2
    assert "missing columns" in capsys.readouterr().err


def test_train_refit_from_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`ridgeline train --from-table` refits the count model from a feature table built
    earlier (here 10 programs of the shipped one) without analysing sources; the refit
    model predicts; a missing table is a clear error."""
    from importlib import resources

    from ridgeline.learning.model import ExportedCountModel
    from ridgeline.learning.shipped import MODEL_FILE, TABLE_FILE

    shipped = pd.read_parquet(Path(str(resources.files("ridgeline").joinpath("models")))
                              / TABLE_FILE)
    both = sorted(set(shipped[shipped.dataset == "paper-a"].program)
                  & set(shipped[shipped.dataset == "hecbench"].program))[:10]
    small = shipped[shipped.program.isin(both)]
    src = tmp_path / "table.parquet"
    small.to_parquet(src, index=False)
    out = tmp_path / "model"
    assert main(["train", "--from-table", str(src), "--out", str(out), "--max-iter", "15"]) == 0
    text = capsys.readouterr().out
    assert f"refitting from {src} ({len(small)} rows)" in text and "program-grouped" in text
    model = ExportedCountModel.from_bytes((out / MODEL_FILE).read_bytes())
    assert (out / TABLE_FILE).is_file() and set(model.ensembles) >= {"time_ns", "dram_bytes"}
    assert main(["train", "--from-table", str(tmp_path / "none.parquet")]) == 2
    assert "does not exist" in capsys.readouterr().err
