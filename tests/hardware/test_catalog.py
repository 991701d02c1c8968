import json
import math
from pathlib import Path

import pytest

from ridgeline.errors import InputFileError, SchemaError, UnknownNameError
from ridgeline.hardware import GPU, get_gpu, load_catalog

REQUIRED_GPUS = [
    "GTX 970", "HD 7970", "V100", "T4", "RTX 3080", "RTX 3090", "RTX 4090", "A10",
    "A100 40GB", "A100 80GB", "L4", "L40S", "H100 SXM", "H100 PCIe", "H200", "B200",
    "MI100", "MI250X", "MI300X",
]


def test_catalog_has_the_required_gpus_with_positive_numbers():
    cat = load_catalog()
    assert len(cat) >= 20
    for name in REQUIRED_GPUS:
        g = cat.get(name)
        for f in ("sm_count", "base_clock_mhz", "boost_clock_mhz", "peak_fp32_tflops",
                  "peak_fp64_tflops", "peak_fp16_tflops", "peak_int32_tops",
                  "dram_bandwidth_gbps", "memory_gb", "l2_mb"):
            assert getattr(g, f) > 0, (name, f)
        assert g.base_clock_mhz <= g.boost_clock_mhz
        assert g.source
        assert g.compute_capability or g.gfx_target


def test_vendors_old_and_new():
    vendors = {g.vendor for g in load_catalog()}
    assert vendors == {"NVIDIA", "AMD"}


@pytest.mark.parametrize("alias", ["3080", "rtx3080", "NVIDIA GeForce RTX 3080", "RTX 3080",
                                   "geforce rtx 3080", "GeForce RTX 3080"])
def test_aliases_resolve_case_insensitively(alias):
    assert get_gpu(alias).name == "GeForce RTX 3080"


def test_data_device_names_resolve():
    assert get_gpu("A100").name == "NVIDIA A100 SXM4 40GB"
    assert get_gpu("NVIDIA A100-SXM4-40GB").name == "NVIDIA A100 SXM4 40GB"
    assert get_gpu("A10").name == "NVIDIA A10"
    assert get_gpu("tahiti").vendor == "AMD"


def test_unknown_gpu_lists_closest_names():
    with pytest.raises(UnknownNameError) as e:
        get_gpu("rtx3070")
    msg = str(e.value)
    assert "rtx3070" in msg and "GeForce RTX 3080" in msg and "did you mean" in msg


def test_boost_peak_matches_published_figure_within_2pct():
    for g in load_catalog():
        if g.fp32_lanes_per_sm:
            derived = g.sm_count * g.fp32_lanes_per_sm * 2 * g.boost_clock_mhz * 1e6
            assert math.isclose(derived, g.peak_fp32_tflops * 1e12, rel_tol=0.02), g.name


def test_user_file_adds_and_overrides(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(
        """
[[gpu]]
name = "My Card"
aliases = ["mycard"]
vendor = "NVIDIA"
architecture = "Test"
compute_capability = "8.6"
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

[[gpu]]
name = "GeForce RTX 3080"
aliases = ["3080"]
vendor = "NVIDIA"
architecture = "Ampere"
compute_capability = "8.6"
sm_count = 68
base_clock_mhz = 1440
boost_clock_mhz = 1710
peak_fp32_tflops = 29.77
peak_fp64_tflops = 0.465
peak_fp16_tflops = 29.77
peak_int32_tops = 7.44
dram_bandwidth_gbps = 760.3
memory_gb = 10
l2_mb = 5
source = "override"
"""
    )
    cat = load_catalog(f)
    assert cat.get("mycard").sm_count == 10
    assert cat.get("rtx3080").source == "override"
    assert load_catalog().get("rtx3080").source != "override"  # shipped catalog untouched


def test_user_json_file(tmp_path):
    g = load_catalog().get("t4").to_dict()
    g["name"], g["aliases"] = "T4 Clone", ["t4clone"]
    f = tmp_path / "g.json"
    f.write_text(json.dumps([g]))
    assert load_catalog(f).get("t4clone").dram_bandwidth_gbps == 320.0


def test_bad_user_files(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(InputFileError, match="does not exist"):
        load_catalog(missing)
    bad = tmp_path / "bad.toml"
    bad.write_text("[[gpu]]\nname = 'x'\n")
    with pytest.raises(SchemaError, match="lacks required fields"):
        load_catalog(bad)
    neg = tmp_path / "neg.toml"
    neg.write_text(
        (tmp_path / "bad.toml").read_text()
        + "vendor='a'\narchitecture='b'\nsm_count=-1\nbase_clock_mhz=1\nboost_clock_mhz=1\n"
        "peak_fp32_tflops=1\npeak_fp64_tflops=1\npeak_fp16_tflops=1\npeak_int32_tops=1\n"
        "dram_bandwidth_gbps=1\nmemory_gb=1\nl2_mb=1\nsource='s'\n"
    )
    with pytest.raises(SchemaError, match="sm_count must be a positive number"):
        load_catalog(neg)
    valid = neg.read_text().replace("sm_count=-1", "sm_count=1")

    def entry(line: str) -> Path:
        path = tmp_path / "entry.toml"
        path.write_text(valid + line)
        return path

    for line, message in (
            ("l2_exit_writeback = 'no'\n",
             "l2_exit_writeback must be true, false or a share from 0 to 1, got 'no'"),
            ("l2_exit_writeback = 1.5\n", "share from 0 to 1, got 1.5"),
            ("l2_store_only_kept_kib = -2\n",
             "l2_store_only_kept_kib must be a number of KiB, 0 or more, got -2"),
            ("l2_exit_kept_mib = 'lots'\n",
             "l2_exit_kept_mib must be a number of MiB, 0 or more, got 'lots'"),
            ("dram_bytes_scale = 3\n", "dram_bytes_scale must be a factor from 0.5 to 2, got 3"),
            ("dram_bytes_scale = true\n", "dram_bytes_scale must be a factor"),
            ("max_threads_per_sm = 16\n", "max_threads_per_sm must be a whole number")):
        with pytest.raises(SchemaError, match=message):
            load_catalog(entry(line))
    for given, share in (("false", 0.0), ("true", 1.0), ("0.5", 0.5)):
        assert load_catalog(entry(f"l2_exit_writeback = {given}\n")).get(
            "x").l2_exit_writeback == share
    assert load_catalog(entry("l2_store_only_kept_kib = 256\n")).get(
        "x").l2_store_only_kept_kib == 256.0
    plain = load_catalog(entry("")).get("x")
    assert plain.resident_threads_per_sm == 2048  # field left out
    assert plain.l2_exit_writeback == 1.0 and plain.l2_store_only_kept_kib == 0.0
    assert plain.l2_exit_kept_mib == 0.0
    assert load_catalog(entry("l2_exit_kept_mib = 2\n")).get("x").l2_exit_kept_mib == 2.0
    assert plain.dram_bytes_scale == 1.0
    assert load_catalog(entry("dram_bytes_scale = 1.1\n")).get("x").dram_bytes_scale == 1.1
    syntax = tmp_path / "syntax.toml"
    syntax.write_text("[[gpu]\n")
    with pytest.raises(InputFileError, match="syntax.toml"):
        load_catalog(syntax)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"name = '\xe9'\n")
    with pytest.raises(InputFileError, match="not UTF-8"):
        load_catalog(latin)


def test_gpu_is_numbers_not_name():
    g = get_gpu("a100")
    assert isinstance(g, GPU)
    assert g.bandwidth == pytest.approx(1555e9)
    assert g.l2_bytes == 40 * 1024 * 1024
    assert g.sm_arch == "sm_80"
    # what a launch's L2 keeps dirty past its end: 11.5 MiB on GA100, 0.5 MiB on GA102
    assert g.l2_exit_kept_mib == 11.5 and get_gpu("rtx3080").l2_exit_kept_mib == 0.5
    # resident threads per SM: 2048 on GA100, 1536 on GA102, 1024 on Turing
    assert [get_gpu(n).resident_threads_per_sm for n in ("a100", "rtx3080", "t4")] == [
        2048, 1536, 1024]
