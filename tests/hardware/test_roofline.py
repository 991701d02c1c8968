import math

import pytest

from ridgeline.errors import SchemaError, UnknownNameError
from ridgeline.hardware import (
    BANDWIDTH,
    COMPUTE,
    Counts,
    attainable,
    get_gpu,
    get_rule,
    intensities,
    load_rules,
    ridge_point,
    time_lower_bound,
)


def test_paper_a_ridges_for_rtx3080_match_the_paper():
    r = get_rule("paper-a").ridges(get_gpu("rtx3080"))
    assert r["sp"] == pytest.approx(32.97, abs=0.005)
    assert r["dp"] == pytest.approx(0.515, abs=0.0005)
    assert r["int"] == pytest.approx(16.49, abs=0.005)


def test_ridge_point_is_peak_over_bandwidth():
    g = get_gpu("a100")
    assert ridge_point(g, "sp") == pytest.approx(19.49e12 / 1555e9)
    assert ridge_point(g, "dp", clock="base") < ridge_point(g, "dp")


def test_attainable_and_time_bound():
    g = get_gpu("a100")
    assert attainable(g, "sp", 1.0) == pytest.approx(1555e9)
    assert attainable(g, "sp", 1e6) == pytest.approx(19.49e12)
    mem = Counts(flops_sp=1e9, dram_bytes=1e9)
    assert time_lower_bound(mem, g) == pytest.approx(1e9 / 1555e9)
    comp = Counts(flops_dp=1e12, dram_bytes=1e3)
    assert time_lower_bound(comp, g) == pytest.approx(1e12 / 9.75e12)


def test_intensities_never_divide_by_zero():
    ai = intensities(Counts(flops_sp=10, dram_bytes=0))
    assert ai["sp"] == math.inf and ai["dp"] == 0.0


@pytest.mark.parametrize(
    "counts,expected",
    [
        (Counts(flops_sp=1e6, dram_bytes=1e6), BANDWIDTH),  # all below
        (Counts(flops_sp=40e6, dram_bytes=1e6), COMPUTE),  # SP above 32.97
        (Counts(flops_dp=0.6e6, dram_bytes=1e6), COMPUTE),  # DP above 0.515
        (Counts(int_ops=17e6, dram_bytes=1e6), COMPUTE),  # INT above 16.49
        (Counts(int_ops=16e6, flops_dp=0.5e6, flops_sp=32e6, dram_bytes=1e6), BANDWIDTH),
        (Counts(int_ops=5, dram_bytes=0), COMPUTE),  # ops over no bytes: infinite intensity
    ],
)
def test_paper_a_rule(counts, expected):
    assert get_rule("paper-a").classify(counts, get_gpu("3080")).value == expected


def test_undefined_and_nan_counts_get_a_reason_not_a_label():
    rule = get_rule("paper-a")
    res = rule.classify(Counts(), get_gpu("3080"))
    assert res.value is None and "undefined" in res.reason
    res = rule.classify(Counts(flops_sp=float("nan"), dram_bytes=1), get_gpu("3080"))
    assert res.value is None and "missing" in res.reason


def test_fp_rule_uses_dominant_precision():
    g = get_gpu("a100")
    fp = get_rule("fp")
    # DP dominant: ridge 9.75e12/1555e9 = 6.27
    assert fp.classify(Counts(flops_dp=7e6, flops_sp=1e5, dram_bytes=1e6), g).value == COMPUTE
    assert fp.classify(Counts(flops_dp=5e6, dram_bytes=1e6), g).value == BANDWIDTH
    # integer-only kernels are bandwidth-bound under the FP rule
    assert fp.classify(Counts(int_ops=1e12, dram_bytes=1), g).value == BANDWIDTH


def test_rules_are_data_and_user_rules_load(tmp_path):
    assert {"paper-a", "fp"} <= set(load_rules())
    f = tmp_path / "r.toml"
    f.write_text('[sp-only]\nkind = "all-below"\nprecisions = ["sp"]\nclock = "boost"\n')
    rule = get_rule("sp-only", f)
    assert rule.classify(Counts(flops_dp=1e9, dram_bytes=1), get_gpu("3080")).value == BANDWIDTH
    f.write_text('[bad]\nkind = "nope"\nprecisions = ["sp"]\n')
    with pytest.raises(SchemaError, match="kind"):
        load_rules(f)
    with pytest.raises(UnknownNameError, match="paper-a"):
        get_rule("paper_a")
