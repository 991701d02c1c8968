"""Achievable roofs: measured peaks with their sources, beside the theoretical ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ridgeline.cli import main
from ridgeline.errors import SchemaError
from ridgeline.hardware import load_catalog
from ridgeline.hardware.achievable import KINDS

_CARD = """
[[gpu]]
name = "My Card"
vendor = "NVIDIA"
architecture = "Test"
sm_count = 10
base_clock_mhz = 1000
boost_clock_mhz = 1500
peak_fp32_tflops = 3.84
peak_fp64_tflops = 0.06
peak_fp16_tflops = 3.84
peak_int32_tops = 0.96
dram_bandwidth_gbps = 100
memory_gb = 8
l2_mb = 2
source = "test"
"""


def test_every_figure_has_a_source_and_is_at_most_theoretical() -> None:
    measured = 0
    for g in load_catalog():
        for kind, (_, theo, _) in KINDS.items():
            r = g.achievable(kind)
            assert r.source.strip(), (g.name, kind)
            if r.value is None:
                assert r.source == "no public figure"
                continue
            assert r.value > 0
            if theo:
                assert r.value <= getattr(g, theo), (g.name, kind)
            if r.estimated:
                assert r.source.startswith("estimated: theoretical x")
            else:
                measured += 1
                assert "(" in r.source and any(c.isdigit() for c in r.source)  # title (year)
    assert measured >= 5
    a100 = load_catalog().get("a100")
    assert not a100.achievable("dram_bandwidth").estimated
    assert a100.achievable_bandwidth < a100.bandwidth


def test_user_file_gives_its_own(tmp_path: Path) -> None:
    f = tmp_path / "g.toml"
    f.write_text(_CARD + 'achievable_dram_bandwidth_gbps = 90\n'
                 'achievable_dram_bandwidth_source = "my STREAM run (2026)"\n'
                 'achievable_fp32_tflops = 3.5\n'
                 'achievable_fp32_source = "my FMA loop (2026)"\n')
    g = load_catalog(f).get("My Card")
    assert g.achievable("dram_bandwidth").value == 90.0
    assert g.achievable("fp32").source == "my FMA loop (2026)"
    # no shipped GPU has an FP64 figure to estimate from: none, said so
    assert g.achievable("fp64").value is None
    assert not any(k.startswith("achievable_") for k in g.extra)
    bare = tmp_path / "bare.toml"
    bare.write_text(_CARD)
    assert load_catalog(bare).get("My Card").achievable("dram_bandwidth").estimated


@pytest.mark.parametrize("extra,match", [
    ("achievable_dram_bandwidth_gbps = 90\n", "needs achievable_dram_bandwidth_source"),
    ('achievable_dram_bandwidth_gbps = 120\nachievable_dram_bandwidth_source = "x (2026)"\n',
     "above the theoretical dram_bandwidth_gbps = 100"),
    ('achievable_fp32_tflops = -1\nachievable_fp32_source = "x (2026)"\n', "positive number"),
    ('achievable_fp32_tflops = "fast"\nachievable_fp32_source = "x (2026)"\n',
     "positive number"),
    ('achievable_fp32_source = "x (2026)"\n', "without achievable_fp32_tflops"),
    ("achievable_bandwidth = 90\n", "unknown keys \\['achievable_bandwidth'\\]; allowed"),
])
def test_bad_achievable_keys_are_clear_errors(tmp_path: Path, extra: str, match: str) -> None:
    f = tmp_path / "g.toml"
    f.write_text(_CARD + extra)
    with pytest.raises(SchemaError, match=match) as e:
        load_catalog(f)
    assert str(f) in str(e.value) and "My Card" in str(e.value)


def test_gpus_json_and_table_show_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "--json"]) == 0
    rows = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    v100 = rows["Tesla V100 SXM2"]["achievable"]
    assert set(v100) == set(KINDS)
    assert v100["dram_bandwidth"]["value"] == 750.0 and "2018" in v100["dram_bandwidth"]["source"]
    assert rows["NVIDIA H100 SXM5"]["achievable"]["dram_bandwidth"]["estimated"] is True
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    assert "achv GB/s" in out and "achv FP32/FP64 TF" in out and "~" in out


def test_roofline_plot_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from ridgeline.evaluation.plots import roofline_chart

    d = {"flops": np.array([1e9, 1e10]), "bytes": np.array([1e8, 1e8]),
         "time_ns": np.array([2e5, 1e6])}
    for gpu in ("a100", "h100"):  # a measured and an estimated roof
        out = roofline_chart(tmp_path / f"{gpu}.png", gpu, d, d)
        assert out.stat().st_size > 1000
