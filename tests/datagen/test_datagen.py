"""Datagen on the real PoCL device and Oclgrind, with tiny kernels and few samples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ridgeline.datagen import (
    DatagenConfig,
    balance,
    generate,
    kernel_spec,
    read_kernels,
    read_samples,
    run_isolated,
    sample_launches,
    size_kernel,
)
from ridgeline.datagen.sampling import FULL_FACTOR, sample_id
from ridgeline.datagen.store import datagen_rows
from ridgeline.errors import UsageError
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require
from tests.opencl.kernels import BROKEN, HANG, SAXPY, VADD

STRIDED = """
__kernel void strided(__global const float* a, __global float* b, __constant int* c,
                      __local float* tmp, const int n, const float s) {
  int i = get_global_id(0);
  b[2 * i + 1] = a[i] * s + c[0];
}
"""

FIXED = """
__kernel void fixed(__global float* a) { if (get_global_id(0) < 4) a[get_global_id(0)] = 1; }
"""

QUADRATIC = """
__kernel void quad(__global float* a, const int n) {
  int i = get_global_id(0);
  if (i == 0) for (int k = 0; k < n * n; ++k) a[k] = 0.0f;
}
"""

ROWSUM = """
__kernel void rowsum(__global const float* a, __global float* b, const int n) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < n / 64; ++k) acc += a[k];
  b[i] = acc;
}
"""


def _tools() -> None:
    require("oclgrind with plugin headers", oclgrind_available())
    require("pyopencl", "pyopencl")
    require("libclang", "clang")


def test_argument_model_from_parameters() -> None:
    require("libclang", "clang")
    spec = kernel_spec(STRIDED)
    kinds = [(s.name, s.kind, s.ctype, s.address_space) for s in spec.slots]
    assert kinds == [("a", "buffer", "float", "global"), ("b", "buffer", "float", "global"),
                     ("c", "buffer", "int", "constant"), ("tmp", "local", "float", "local"),
                     ("n", "scalar", "int", "private"), ("s", "scalar", "float", "private")]
    assert len(spec.hash) == 40


def test_sizing_fits_affine_extents_and_reports_the_rest() -> None:
    _tools()
    m = size_kernel(kernel_spec(STRIDED))
    assert m.ok, m.reason
    assert m.fits[0].slope == pytest.approx(4) and m.fits[1].slope == pytest.approx(8)
    assert m.fits[1].intercept == pytest.approx(0) and m.fits[2].slope == pytest.approx(0)
    fixed = size_kernel(kernel_spec(FIXED))
    assert fixed.ok and fixed.fits[0].slope == 0 and fixed.fits[0].intercept == 16
    quad = size_kernel(kernel_spec(QUADRATIC))
    assert not quad.ok and "not affine" in quad.reason
    broken = size_kernel(kernel_spec(BROKEN))
    assert not broken.ok and "CompileError" in broken.reason


def test_launch_sampling_is_seeded_and_covers_regimes() -> None:
    a = sample_launches("k" * 40, 12, seed=3, compute_units=4, max_work_group_size=1024)
    b = sample_launches("k" * 40, 12, seed=3, compute_units=4, max_work_group_size=1024)
    c = sample_launches("k" * 40, 12, seed=4, compute_units=4, max_work_group_size=1024)
    assert a == b and a != c and len(a) == 12
    assert {x.regime for x in a} == {"few", "under", "full"}
    for x in a:
        assert x.global_size % x.local_size == 0
        assert x.sample_id == sample_id("k" * 40, x.global_size, x.local_size, 3)
        if x.regime == "few":
            assert x.groups < 4
        elif x.regime == "under":
            assert 4 <= x.groups < FULL_FACTOR * 4
        else:
            assert x.groups >= FULL_FACTOR * 4
    assert len({x.sample_id for x in a}) == 12


def test_balance_drops_outliers_and_caps_regimes() -> None:
    times = [10.0, 11, 12, 10, 11, 5000, 100, 110, 120, 1000, 1100]
    regimes = ["few"] * 6 + ["under"] * 3 + ["full"] * 2
    keep = balance(times, regimes)
    assert keep[5] is False  # the outlier
    assert sum(k for k, r in zip(keep, regimes, strict=True) if r == "few") == 2
    assert sum(keep) == 6


def _kernels(tmp: Path, **named: str) -> Path:
    d = tmp / "kernels"
    d.mkdir()
    for name, src in named.items():
        (d / f"{name}.cl").write_text(src)
    return d


@pytest.mark.slow
def test_generate_records_bad_kernels_and_resumes_without_duplicates(tmp_path: Path) -> None:
    _tools()
    kdir = _kernels(tmp_path, vadd=VADD, broken=BROKEN, hang=HANG)
    out = tmp_path / "out"
    cfg = DatagenConfig(device="pocl", samples=3, seed=1, probe_timeout=5, timeout=120,
                        repeats=3, warmup=1, max_global=1 << 14)
    s1 = generate(kdir, out, cfg, progress=False)
    k = read_kernels(out).set_index("file")
    assert k.loc["vadd.cl", "status"] == "sized" and k.loc["vadd.cl", "n_samples"] == 3
    assert k.loc["broken.cl", "status"] == "unsized"
    assert "CompileError" in k.loc["broken.cl", "reason"]
    assert k.loc["hang.cl", "status"] == "unsized"
    assert "did not finish" in k.loc["hang.cl", "reason"]
    s = read_samples(out)
    assert s1["samples"] == 3 and (s["status"] == "ok").all()
    assert (s["time_ns"] > 0).all() and s["deterministic"].all()
    assert set(s["regime"]) == {"few", "under", "full"}
    assert set(s["timing"]) == {"burst"}  # the default: launches queued back to back
    with pytest.raises(UsageError, match="timing must be"):
        generate(kdir, out, DatagenConfig(device="pocl", timing="queued"), progress=False)
    s2 = generate(kdir, out, cfg, progress=False)
    assert s2["ran"] == 0 and s2["total_samples_on_disk"] == 3
    # as regression rows: each sample's median repeat, or its fastest
    med, fast = datagen_rows(out), datagen_rows(out, "min")
    assert sorted(med["time_us"]) == sorted(s["time_ns"] / 1000.0)
    assert (fast["time_us"] <= med["time_us"]).all()
    repeats = [json.loads(t) if isinstance(t, str) else list(t) for t in s["times_ns"]]
    assert all(len(r) == 3 for r in repeats)
    assert sorted(fast["time_us"]) == sorted(min(r) / 1000.0 for r in repeats)
    with pytest.raises(UsageError, match="not one of median, min"):
        datagen_rows(out, "mean")


def test_worker_timeout_costs_one_kernel_not_the_run() -> None:
    # a limit no worker can meet (forking, opening the device and sizing take longer than a
    # millisecond; 0.2 s was met once PoCL's kernel cache was warm)
    job = {"source": VADD, "file": "v.cl", "device": "pocl", "samples": 2, "seed": 0}
    rec, samples = run_isolated(job, timeout=0.001)
    assert rec["status"] == "timeout" and "exceeded" in rec["reason"] and samples == []


@pytest.mark.slow
def test_killed_run_resumes_with_nothing_lost_or_duplicated(tmp_path: Path) -> None:
    _tools()
    kdir = _kernels(tmp_path, a=VADD, b=SAXPY, c=FIXED)
    out = tmp_path / "out"
    code = ("import sys; from ridgeline.datagen import DatagenConfig, generate; "
            "generate(sys.argv[1], sys.argv[2], DatagenConfig(samples=2, repeats=2, warmup=0, "
            "flush_every=1, max_global=4096), progress=False)")
    p = subprocess.Popen([sys.executable, "-c", code, str(kdir), str(out)])
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not list((out / "shards").glob("kernels-*.parquet")):
            time.sleep(0.5)
    finally:
        p.kill()
        p.wait()
    first = len(read_kernels(out))
    assert 1 <= first <= 3
    cfg = DatagenConfig(samples=2, repeats=2, warmup=0, max_global=4096)
    summary = generate(kdir, out, cfg, progress=False)
    assert summary["ran"] == 3 - first
    s = read_samples(out)
    assert len(read_kernels(out)) == 3
    assert s["sample_id"].is_unique and len(s) == 6


def test_a_samples_shard_without_its_kernel_shard_is_ignored_and_removed(tmp_path: Path) -> None:
    # a kill between the two writes of a flush: the samples are on disk, the kernel record not
    from ridgeline.datagen.store import ShardWriter

    w = ShardWriter(tmp_path, flush_every=100)
    w.add({"kernel_hash": "a", "status": "sized"}, [{"sample_id": "a1", "time_ns": 1.0}])
    w.flush()
    w._write([{"sample_id": "b1", "time_ns": 2.0}], "samples", "99999999999999999999-1")
    assert list(read_samples(tmp_path)["sample_id"]) == ["a1"]
    ShardWriter(tmp_path)
    assert len(list((tmp_path / "shards").glob("samples-*.parquet"))) == 1
    assert list(read_kernels(tmp_path)["kernel_hash"]) == ["a"]


@pytest.mark.slow
def test_ray_scale_out_on_a_local_cluster(tmp_path: Path) -> None:
    _tools()
    require("ray", "ray")
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ray = [str(Path(sys.executable).parent / "ray")]
    start = subprocess.run([*ray, "start", "--head", f"--port={port}", "--num-cpus=1",
                            "--resources", json.dumps({"opencl_device": 1}),
                            "--include-dashboard=false", "--disable-usage-stats"],
                           capture_output=True, text=True, timeout=180)
    assert start.returncode == 0, start.stderr[-2000:]
    try:
        kdir = _kernels(tmp_path, a=VADD)
        cfg = DatagenConfig(samples=2, repeats=2, warmup=0, max_global=4096,
                            ray_address=f"127.0.0.1:{port}")
        summary = generate(kdir, tmp_path / "out", cfg, progress=False)
        assert summary["samples"] == 2
        assert read_kernels(tmp_path / "out")["status"].tolist() == ["sized"]
    finally:
        subprocess.run([*ray, "stop", "--force"], capture_output=True, timeout=120)


def test_extrapolate_is_linear_unless_the_middle_point_bends() -> None:
    from ridgeline.datagen.features import extrapolate

    lin, e1 = extrapolate([256, 512, 1024], [2 * 256 + 7, 2 * 512 + 7, 2 * 1024 + 7], 1 << 20)
    assert lin == pytest.approx(2 * (1 << 20) + 7) and e1 == pytest.approx(1.0, abs=0.01)
    quad, e2 = extrapolate([256, 512, 1024], [256.0**2 + 3 * 256, 512.0**2 + 3 * 512,
                                              1024.0**2 + 3 * 1024], 4096)
    assert quad == pytest.approx(4096.0**2 + 3 * 4096) and e2 == pytest.approx(2.0, abs=0.05)
    assert extrapolate([256, 512, 1024], [100.0, 10.0, 1.0], 1 << 20)[0] >= 0.0


def test_oclgrind_profile_sees_a_size_bounded_loop() -> None:
    _tools()
    from ridgeline.datagen.features import launch_row, oclgrind_profile

    prof = oclgrind_profile(ROWSUM, cache=False)
    assert prof["sizes"] == [256, 512, 1024] and prof["global_load_bytes"][0] == 4 * 256 * 4
    row = launch_row(prof, 4096, 64, 0)
    assert row["og.global_load_bytes"] == pytest.approx(np.log2(1 + 4 * 4096 * 64))
    assert row["og.global_load_bytes_growth"] == pytest.approx(2.0, abs=0.01)
    assert row["og.global_store_bytes"] == pytest.approx(np.log2(1 + 4 * 4096))


def test_build_helper_compiles_reports_failures_and_survives_them() -> None:
    _tools()
    from ridgeline.datagen.procs import Prebuilder

    b = Prebuilder("pocl", timeout=120)
    try:
        assert b.build(VADD) == ""
        assert b.build(BROKEN).startswith("CompileError")
        assert b.build(SAXPY) == ""  # the same helper, after a failed build
    finally:
        b.close()


def test_worker_reports_a_device_build_failure_once(tmp_path: Path) -> None:
    _tools()
    # Oclgrind accepts it (sizing succeeds); PoCL's compiler rejects it
    src = ("__kernel void bad(__global float* a, const int n) {\n"
           "  int i = get_global_id(0); int p = a; a[i] = p; }\n")
    job = {"source": src, "file": "bad.cl", "device": "pocl", "samples": 3, "seed": 0,
           "probe_timeout": 30, "repeats": 1, "warmup": 0, "max_global": 4096}
    rec, samples = run_isolated(job, timeout=120)
    if rec["status"] == "unsized":  # this Oclgrind rejects it too: nothing reaches the device
        assert "CompileError" in rec["reason"]
        return
    assert rec["status"] == "sized" and len(samples) == 1
    assert samples[0]["status"] == "error" and "CompileError" in samples[0]["reason"]


def _lock_holder(device: str, seconds: float) -> subprocess.Popen[str]:
    code = ("import sys, time\n"
            "from ridgeline.datagen.worker import timing_lock\n"
            f"with timing_lock({device!r}):\n"
            "    print('held', flush=True)\n"
            f"    time.sleep({seconds})\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def test_timing_on_one_device_is_exclusive_across_processes() -> None:
    """A second process waits for the device while another times on it; a killed holder
    frees it at once."""
    from ridgeline.datagen.worker import timing_lock

    device = f"pocl test {os.getpid()}"
    holder = _lock_holder(device, 1.5)
    t0 = time.perf_counter()
    with timing_lock(device):
        waited = time.perf_counter() - t0
    holder.wait(timeout=30)
    assert waited > 0.8
    with timing_lock("another device"):  # other devices are not held up
        pass
    holder = _lock_holder(device, 600)
    holder.kill()
    holder.wait(timeout=30)
    t0 = time.perf_counter()
    with timing_lock(device):
        assert time.perf_counter() - t0 < 5


@pytest.mark.slow
def test_train_regressor_on_a_datagen_run_learns_kernel_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``train-regressor --datagen DIR``: a model of the device's kernel time (no transfers)
    from a local datagen run, saved with what it includes; an empty folder is refused."""
    from ridgeline.cli import main

    _tools()
    kdir = _kernels(tmp_path, vadd=VADD, saxpy=SAXPY)
    out = tmp_path / "dg"
    generate(kdir, out, DatagenConfig(device="pocl", samples=4, seed=2, repeats=2, warmup=1,
                                      max_global=1 << 14), progress=False)
    model = tmp_path / "model"
    assert main(["train-regressor", "--datagen", str(out), "--out", str(model), "--all-rows",
                 "--quiet"]) == 0
    meta = json.loads((model / "meta.json").read_text())
    assert meta["includes"] == "kernel only" and meta["device"] == "pocl"
    assert meta["rows"] == 8 and meta["kernels"] == 2 and meta["held_out"]["n"] == 4
    rows = tmp_path / "rows.csv"
    rows.write_text("src,kernel,wgsize,transfer,dataset\n"
                    f'"{SAXPY}",saxpy,64,32768,4096\n')
    assert main(["regress-batch", str(rows), "--model", str(model), "--out",
                 str(tmp_path / "p.csv"), "--quiet"]) == 0
    import pandas as pd

    got = pd.read_csv(tmp_path / "p.csv", keep_default_na=False)
    assert got.loc[0, "error"] == "" and float(got.loc[0, "pred_runtime_ms"]) > 0
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert main(["train-regressor", "--datagen", str(tmp_path / "empty"), "--out",
                 str(tmp_path / "m2"), "--quiet"]) != 0
    assert "no timed datagen samples" in capsys.readouterr().err
