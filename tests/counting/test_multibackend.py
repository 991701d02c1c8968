"""A folder holding several backends (tests/counting/stream_tree.py) counts and predicts with
the defaults: each backend's sources and make fragment, launch sizes from the counted run,
one OpenMP region name across commands, and GPUs of a user's file counted like cataloged
ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ridgeline.cli import main
from ridgeline.hardware import load_catalog
from tests.counting.stream_tree import write_stream

pytestmark = pytest.mark.slow
N = 4096  # elements; 32 blocks of TBSIZE = 128


@pytest.fixture
def stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    return write_stream(tmp_path / "stream")


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_count_run_builds_the_cuda_backend_by_default_and_omp_on_request(
        toolchain: None, libomp: None, stream: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    recs = _json(capsys, ["count-run", str(stream), "--args", str(N), "--json"])
    by = {r["kernel"]: r for r in recs}
    assert set(by) == {"copy_kernel", "triad_kernel"}
    assert by["copy_kernel"]["grid"][0] == N // 128 and by["copy_kernel"]["block"][0] == 128
    assert by["triad_kernel"]["flops_dp"] == 2 * N  # b + scalar * c: one FMA per element
    recs = _json(capsys, ["count-run", str(stream), "--args", str(N), "--backend", "omp",
                          "--json"])
    names = {r["kernel"] for r in recs}
    assert {n.rsplit("_l", 1)[0] for n in names} == {"init_arrays", "copy", "triad"}
    assert all(r["symbol"].startswith("_ZN9OMPStreamIdE") for r in recs)
    triad = next(r for r in recs if r["kernel"].startswith("triad_l"))
    assert triad["flops_dp"] == 2 * N


def test_openmp_region_names_agree_across_commands(
        toolchain: None, libomp: None, stream: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    listed = _json(capsys, ["kernels", str(stream), "--json"])["kernels"]
    omp = {k["name"] for k in listed if k["language"] == "omp"}
    copy = next(n for n in omp if n.startswith("copy_l"))
    counted = _json(capsys, ["count-run", str(stream), "--args", str(N), "--backend", "omp",
                             "--json"])
    assert {r["kernel"] for r in counted} == omp
    symbol = next(r["symbol"] for r in counted if r["kernel"] == copy)
    # count-run --kernel takes either form
    for name in (copy, symbol):
        recs = _json(capsys, ["count-run", str(stream), "--args", str(N), "--backend", "omp",
                              "--kernel", name, "--json"])
        assert {r["kernel"] for r in recs} == {copy}
    assert _json(capsys, ["features", str(stream), "--kernel", symbol, "--json"])["name"] == copy
    preds = [_json(capsys, ["predict", str(stream), "--kernel", name, "--gpu", "rtx3080",
                            "--args", str(N), "--count", "auto", "--json"])[0]
             for name in (copy, symbol)]
    assert preds[0]["kernel"] == preds[1]["kernel"] == copy
    keys = ("flops_dp", "int_ops", "dram_bytes")
    assert [preds[0][k] for k in keys] == [preds[1][k] for k in keys]
    assert "counted" in preds[0]["origin"]["flops"]


def test_predict_takes_launch_sizes_from_the_counted_run(
        toolchain: None, stream: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # grid = array_size / TBSIZE, array_size a class member: not evaluable from the source
    base = ["predict", str(stream), "--kernel", "copy_kernel", "--gpu", "rtx3080",
            "--args", str(N)]
    assert main([*base, "--count", "never"]) != 0
    assert "give --grid and --block" in capsys.readouterr().err
    (p,) = _json(capsys, [*base, "--count", "auto", "--json"])
    assert p["origin"]["grid"] == p["origin"]["block"] == "counted launch (CPU execution)"
    assert "counted" in p["origin"]["flops"]
    # the template argument too: the CPU run launched copy_kernel<double>
    assert not any("template parameter" in n for n in p["notes"]), p["notes"]
    # reads a; the writes of c (32 KiB) stay in the L2 past the launch (l2_exit_kept_mib)
    assert p["dram_bytes"] >= 8 * N


def _gpu_file(tmp_path: Path) -> Path:
    base = load_catalog().get("rtx3080").to_dict()
    mine = {**base, "name": "My Lab GPU", "aliases": ["mylab"], "l2_mb": 1.0,
            "l2_exit_kept_mib": 0.0}
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps({"gpus": [mine]}))
    return path


def test_gpus_of_a_users_file_are_counted_like_cataloged_ones(
        toolchain: None, stream: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    gpus = _gpu_file(tmp_path)
    preds = _json(capsys, ["predict", str(stream), "--kernel", "triad_kernel", "--args",
                           str(N), "--gpu-file", str(gpus), "--gpu", "rtx3080", "--gpu",
                           "mylab", "--count", "auto", "--json"])
    by = {p["gpu"]: p for p in preds}
    for name in ("GeForce RTX 3080", "My Lab GPU"):
        assert "counted" in by[name]["origin"]["flops"], by[name]["notes"]
        assert by[name]["flops_dp"] == pytest.approx(2 * N)
    assert any("1 MiB L2" in n and "defaults" in n for n in by["My Lab GPU"]["notes"])
    assert not any("MiB L2" in n for n in by["GeForce RTX 3080"]["notes"])
    # the small L2 keeps none of the written data: more DRAM bytes than the RTX 3080's
    assert by["My Lab GPU"]["dram_bytes"] > by["GeForce RTX 3080"]["dram_bytes"]
    # count-run models the file's GPU too
    (r, *_) = _json(capsys, ["count-run", str(stream), "--args", str(N), "--kernel",
                             "triad_kernel", "--gpu-file", str(gpus), "--gpu", "mylab",
                             "--json"])
    assert set(r["dram_bytes_by_gpu"]) == {"My Lab GPU"} and r["dram_bytes"] > 0


def test_a_gpu_without_an_l2_size_is_named_as_the_one_not_counted() -> None:
    from dataclasses import replace

    from ridgeline.counting import uncountable

    gpu = load_catalog().get("rtx3080")
    assert uncountable(gpu) is None
    assert "no usable L2 size" in (uncountable(replace(gpu, l2_mb=0.0)) or "")


def test_predict_batch_counts_the_users_gpu_and_the_multi_backend_folder(
        toolchain: None, stream: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    gpus = _gpu_file(tmp_path)
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "source,kernel,model_type,block_size,grid_size,exe_args,device\n"
        f'stream,triad_kernel,cuda,"(128, 1, 1)","(32, 1, 1)",{N},3080\n'
        f'stream,triad_kernel,cuda,"(128, 1, 1)","(32, 1, 1)",{N},mylab\n')
    out = tmp_path / "out.csv"
    assert main(["predict-batch", str(rows), "--sources", str(tmp_path), "--out", str(out),
                 "--jobs", "1", "--gpu-file", str(gpus), "-D", "UNUSED_OPTION"]) == 0, \
        capsys.readouterr().err
    df = pd.read_csv(out, keep_default_na=False, dtype=str)
    assert list(df["pred_origin"]) == ["counted", "counted"], list(df["count_error"])
    assert float(df["pred_DP_FLOP"][0]) == pytest.approx(2 * N, rel=1e-6)
