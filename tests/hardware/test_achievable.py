"""Achievable roofs: measured peaks with their sources, beside the theoretical ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ridgeline.cli import main
from ridgeline.errors import SchemaError, UnknownNameError
from ridgeline.hardware import load_catalog
from ridgeline.hardware.achievable import ABOVE_THEORETICAL, KINDS

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


def _cited(source: str) -> bool:
    """A source names where its figure is published: a URL or a citation with a year."""
    return "https://" in source or re.search(r"\((19|20)\d\d\)", source) is not None


def test_every_figure_has_a_source_and_is_at_most_theoretical() -> None:
    measured: dict[str, int] = {}
    for g in load_catalog():
        for kind, (_, theo, ref, _, _) in KINDS.items():
            r = g.achievable(kind)
            assert r.value is not None and r.value > 0, (g.name, kind)
            if theo:
                assert r.value <= getattr(g, theo), (g.name, kind)
            if r.estimated:
                assert r.source.startswith(f"derived: {ref} x "), (g.name, kind)
                assert kind not in g.achievable_measured
            else:
                measured[kind] = measured.get(kind, 0) + 1
                assert _cited(r.source), (g.name, kind, r.source)
    # what the public results cover (see the catalog file): every kind has figures
    assert measured == {"dram_bandwidth": 18, "fp32": 13, "fp64": 11, "int32": 11,
                        "l2_bandwidth": 7}
    a100 = load_catalog().get("a100")
    assert not a100.achievable("dram_bandwidth").estimated
    assert a100.achievable_bandwidth < a100.bandwidth


def test_derived_figures_follow_the_architecture_then_the_vendor() -> None:
    cat = load_catalog()
    sxm, pcie, h200 = cat.get("h100"), cat.get("h100-pcie"), cat.get("h200")
    shares = sorted(g.achievable("fp32").value / g.peak_fp32_tflops for g in (sxm, pcie))
    r = h200.achievable("fp32")
    assert r.estimated and "2 cataloged Hopper GPUs" in r.source
    assert r.value == pytest.approx(h200.peak_fp32_tflops * sum(shares) / 2)
    # no Ada Lovelace GPU has a measured L2 figure: the NVIDIA GPUs' median share of
    # theoretical DRAM bandwidth
    l4 = cat.get("l4").achievable("l2")
    assert l4.estimated and "NVIDIA GPUs" in l4.source and "dram_bandwidth_gbps" in l4.source
    assert sxm.achievable("sp") == sxm.achievable("fp32")
    assert l4.rate == pytest.approx(l4.value * 1e9)
    with pytest.raises(UnknownNameError, match="achievable kind"):
        sxm.achievable("fp8")


def test_user_file_gives_its_own_and_round_trips(tmp_path: Path) -> None:
    f = tmp_path / "g.toml"
    f.write_text(_CARD + 'achievable_dram_bandwidth_gbps = 90\n'
                 'achievable_dram_bandwidth_source = "my STREAM triad run (2026)"\n'
                 'achievable_dram_bandwidth_note = "ECC on"\n'
                 'achievable_fp32_tflops = 3.5\n'
                 'achievable_fp32_source = "my FMA loop (2026)"\n'
                 'achievable_l2_bandwidth_gbps = 400\n'
                 'achievable_l2_bandwidth_source = "my L2 sweep (2026)"\n')
    g = load_catalog(f).get("My Card")
    assert g.achievable("dram_bandwidth").to_dict() == {
        "value": 90.0, "unit": "GB/s", "source": "my STREAM triad run (2026)",
        "note": "ECC on", "estimated": False}
    assert g.achievable("fp32").source == "my FMA loop (2026)"
    assert g.achievable("l2").value == 400.0
    assert g.achievable_bandwidth == 90e9
    # a figure it does not give is derived from the shipped NVIDIA GPUs
    assert g.achievable("fp64").estimated and "NVIDIA GPUs" in g.achievable("fp64").source
    assert not any(k.startswith("achievable_") for k in g.extra)
    # written back as JSON (what `gpus --json` prints, flattened) it loads the same
    raw = {k: v for k, v in g.to_dict().items() if k != "achievable"}
    for kind, (key, _, _, _, _) in KINDS.items():
        if kind in g.achievable_measured:
            v, src, note = g.achievable_measured[kind]
            raw |= {key: v, f"achievable_{kind}_source": src}
            raw |= {f"achievable_{kind}_note": note} if note else {}
    back = tmp_path / "back.json"
    back.write_text(json.dumps({"gpus": [raw]}))
    again = load_catalog(back).get("My Card")
    assert again == g and again.achievable_measured == g.achievable_measured
    bare = tmp_path / "bare.toml"
    bare.write_text(_CARD)
    assert load_catalog(bare).get("My Card").achievable("dram_bandwidth").estimated


@pytest.mark.parametrize("extra,match", [
    ("achievable_dram_bandwidth_gbps = 90\n", "needs achievable_dram_bandwidth_source"),
    ('achievable_dram_bandwidth_gbps = 106\nachievable_dram_bandwidth_source = "x (2026)"\n',
     "= 106 is more than 5% above the theoretical dram_bandwidth_gbps = 100; allowed: at "
     "most 105"),
    ('achievable_fp32_tflops = -1\nachievable_fp32_source = "x (2026)"\n', "positive number"),
    ('achievable_fp32_tflops = "fast"\nachievable_fp32_source = "x (2026)"\n',
     "positive number \\(TFLOP/s\\), got 'fast'"),
    ('achievable_fp32_source = "x (2026)"\n', "without achievable_fp32_tflops"),
    ('achievable_fp32_note = "x"\n', "gives achievable_fp32_note without"),
    ('achievable_fp32_tflops = 3\nachievable_fp32_source = "x (2026)"\n'
     "achievable_fp32_note = 3\n", "achievable_fp32_note must be text"),
    ("achievable_bandwidth = 90\n", "unknown keys \\['achievable_bandwidth'\\]; allowed"),
])
def test_bad_achievable_keys_are_clear_errors(tmp_path: Path, extra: str, match: str) -> None:
    f = tmp_path / "g.toml"
    f.write_text(_CARD + extra)
    with pytest.raises(SchemaError, match=match) as e:
        load_catalog(f)
    assert str(f) in str(e.value) and "My Card" in str(e.value)


def test_a_few_percent_above_theoretical_is_accepted(tmp_path: Path) -> None:
    f = tmp_path / "g.toml"
    v = 100 * (1 + ABOVE_THEORETICAL)
    f.write_text(_CARD + f'achievable_dram_bandwidth_gbps = {v}\n'
                 'achievable_dram_bandwidth_source = "boosted (2026)"\n')
    assert load_catalog(f).get("My Card").achievable("dram").value == v


def test_gpus_json_and_table_show_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "--json"]) == 0
    rows = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    v100 = rows["Tesla V100 SXM2"]["achievable"]
    assert set(v100) == set(KINDS)
    assert v100["dram_bandwidth"]["value"] == 866.0
    assert "gpu-benches" in v100["dram_bandwidth"]["source"]
    assert "Jia et al." in v100["dram_bandwidth"]["note"]
    assert v100["dram_bandwidth"]["theoretical"] == 900.0
    assert v100["l2_bandwidth"] == {"value": 2155.0, "unit": "GB/s", "source": v100[
        "l2_bandwidth"]["source"], "note": v100["l2_bandwidth"]["note"], "estimated": False,
        "theoretical": None}
    assert "Jia et al." in v100["l2_bandwidth"]["source"]
    assert rows["NVIDIA L40S"]["achievable"]["dram_bandwidth"]["estimated"] is True
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for col in ("FP32 TF", "FP64 TF", "INT32 TOPS", "DRAM GB/s", "L2 GB/s"):
        assert col in header
    mi100 = next(line for line in out.splitlines() if line.startswith("AMD Instinct MI100"))
    assert "23.1 / 22.82" in mi100 and "11.5 / 3.79" in mi100 and "1229 / 1181" in mi100
    l40s = next(line for line in out.splitlines() if line.startswith("NVIDIA L40S"))
    assert "864 / ~" in l40s
