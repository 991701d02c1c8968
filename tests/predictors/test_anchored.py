"""Anchoring on one measured GPU: ``predict --measured GPU=TIME`` and the batch's
``measured_gpu``/``measured_ns`` columns."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.errors import UsageError
from ridgeline.hardware import load_catalog
from ridgeline.predictors.anchored import (
    Anchor,
    anchored_time,
    parse_measured,
    parse_time_ns,
    ratio_error,
)


@pytest.mark.parametrize("text,ns", [("1.2ms", 1.2e6), ("850us", 850e3), ("41000", 41000.0),
                                     ("2 s", 2e9), ("7ns", 7.0), ("1e3us", 1e6)])
def test_time_units(text: str, ns: float) -> None:
    assert parse_time_ns(text) == pytest.approx(ns)


@pytest.mark.parametrize("text", ["", "ms", "1.2min", "-3ms", "0", "abc", "1..2ms"])
def test_bad_time_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="--measured"):
        parse_time_ns(text)


def test_parse_measured_names_the_gpu() -> None:
    cat = load_catalog()
    a = parse_measured("a100=850us", cat)
    assert a.gpu.name == "NVIDIA A100 SXM4 40GB" and a.measured_ns == pytest.approx(850e3)
    with pytest.raises(UsageError, match="unknown GPU 'A1000'.*did you mean"):
        parse_measured("A1000=1ms", cat)
    with pytest.raises(UsageError, match="GPU=TIME"):
        parse_measured("1ms", cat)


def test_ratio_and_range_from_stored_data() -> None:
    data = ratio_error()
    q = data["log10_error_quantiles"]
    assert q["lo"] < 0 < q["hi"] and "development programs" in data["made"]
    a = Anchor(load_catalog().get("a100"), 1000.0)
    t, (lo, hi) = anchored_time(a, 300.0, 100.0)
    assert t == pytest.approx(3000.0) and lo < t < hi
    assert anchored_time(a, 300.0, 100.0, same_gpu=True) == (1000.0, (1000.0, 1000.0))


def test_predict_measured_json(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["predict", "--sample", "saxpy", "--gpu", "a10", "--gpu", "a100", "--json"]
    assert main(base) == 0
    plain = {p["gpu"]: p["time_s"] for p in json.loads(capsys.readouterr().out)}
    assert main([*base, "--measured", "A100=2ms"]) == 0
    got = {p["gpu"]: p for p in json.loads(capsys.readouterr().out)}
    a10, a100 = got["NVIDIA A10"], got["NVIDIA A100 SXM4 40GB"]
    assert a100["time_s"] == pytest.approx(2e-3)
    ratio = plain["NVIDIA A10"] / plain["NVIDIA A100 SXM4 40GB"]
    assert a10["time_s"] == pytest.approx(2e-3 * ratio)
    assert a10["origin"]["time"].startswith("anchored: measured 2 ms on NVIDIA A100")
    lo, hi = a10["time_range_s"]
    assert lo < a10["time_s"] < hi
    # the measured GPU need not be among the targets
    assert main(["predict", "--sample", "saxpy", "--gpu", "a10", "--json",
                 "--measured", "a100=2000000"]) == 0
    only = json.loads(capsys.readouterr().out)[0]
    assert only["time_s"] == pytest.approx(a10["time_s"])


def test_predict_measured_bad_values_are_clean_errors(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    for bad in ("A1000=1ms", "A100=fast", "A100"):
        assert main(["predict", "--sample", "saxpy", "--gpu", "a10", "--measured", bad]) == 2
        assert "--measured" in capsys.readouterr().err


def test_predict_batch_measured_columns(tmp_path: Path, stencil_dir: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    row = 'stencil-cuda,stencil,cuda,"(128, 1, 1)","(8, 1, 1)",1000 4'
    rows = tmp_path / "rows.csv"
    rows.write_text("source,kernel,model_type,block_size,grid_size,exe_args,device,"
                    "measured_gpu,measured_ns\n"
                    f"{row},A10,,\n{row},3080,,\n{row},3080,a10,1.5ms\n{row},A10,A10,7000\n"
                    f"{row},3080,A1000,5\n{row},3080,a10,\n")
    out = tmp_path / "out.csv"
    assert main(["predict-batch", str(rows), "--sources", str(stencil_dir.parent), "--out",
                 str(out), "--count", "never", "--jobs", "1"]) == 0
    df = pd.read_csv(out, keep_default_na=False)
    assert list(df.columns[-1:]) == ["pred_anchor"]
    t = df["pred_xtime_ns"]
    assert float(t[2]) == pytest.approx(1.5e6 * float(t[1]) / float(t[0]))
    assert "anchored on NVIDIA A10" in df["pred_anchor"][2]
    assert float(df["pred_xtime_lo_ns"][2]) < float(t[2]) < float(df["pred_xtime_hi_ns"][2])
    assert float(t[3]) == 7000.0 and df["pred_anchor"][3] == "measured on NVIDIA A10"
    assert df["pred_anchor"][0] == "" and df["error"][0] == ""
    assert "unknown GPU 'A1000'" in df["error"][4] and t[4] == ""
    assert "give both" in df["error"][5] and "line 7" in df["error"][5]
