"""The OpenCL commands end to end with real Oclgrind and libclang: kernels that need their
host's build options, sampled work-groups, progress bars, and the time regress-batch takes
per row on suite-sized launches."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require
from tests.opencl.kernels import SAXPY, STENCIL, VADD

# a 1-D Rodinia-style kernel: the element type and the tile come from the host's -D options
HOSTED = """
__kernel void smooth(__global const FPTYPE* in, __global FPTYPE* out, const int n) {
  __local FPTYPE tile[BLOCK];
  int l = get_local_id(0), i = get_global_id(0);
  tile[l % BLOCK] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) out[i] = 0.5f * tile[l % BLOCK] + 0.5f * in[i];
}
"""

# Parboil sgemm's shape: every item loops over a size-valued scalar (k = the global size in
# the profile's argument convention, so its runs cost the square of the size)
SGEMM = """
__kernel void sgemm(__global const float* A, int lda, __global const float* B, int ldb,
                    __global float* C, int ldc, int k, float alpha, float beta) {
  int m = get_global_id(0), n = get_global_id(1);
  float c = 0.0f;
  for (int i = 0; i < k; ++i) c += A[m + i * lda] * B[n + i * ldb];
  C[m + n * ldc] = C[m + n * ldc] * beta + alpha * c;
}
"""

# SHOC-style triad with a macro-sized unrolled body
TRIAD = """
__kernel void triad(__global const float* a, __global const float* b, __global float* c,
                    float s) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int r = 0; r < REPS; ++r) acc += a[i] + s * b[i];
  c[i] = acc;
}
"""


@pytest.fixture(scope="module")
def ocl_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This module's cache (counting plugin, Oclgrind profiles)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory, ocl_cache: Path) -> Iterator[Path]:
    """A small GBM regressor trained on three kernels."""
    require("oclgrind with plugin headers", oclgrind_available())
    require("libclang", "clang")
    from ridgeline.predictors.gbm_regressor import GBMRegressor

    cache = ocl_cache
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RIDGELINE_CACHE", str(cache))
        rows = pd.DataFrame([
            {"src": src, "global_size": g, "local_size": 64, "transfer": 8 * g,
             "time_us": 5.0 + cost * g / 1000.0}
            for src, cost in ((VADD, 1.0), (SAXPY, 1.5), (STENCIL, 2.5))
            for g in (1024, 16384, 262144, 1 << 20)])
        d = tmp_path_factory.mktemp("model")
        GBMRegressor(max_iter=50, min_samples_leaf=2).fit(rows).save(d)
        (d / "meta.json").write_text(json.dumps({"model": "gbm"}))
        yield d


@pytest.fixture
def cache_env(model_dir: Path, ocl_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_CACHE", str(ocl_cache))


def _batch(tmp_path: Path, capsys: pytest.CaptureFixture[str], model_dir: Path,
           rows: list[dict[str, str]], *flags: str) -> tuple[int, pd.DataFrame, str]:
    csv = tmp_path / "rows.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    rc = main(["regress-batch", str(csv), "--model", str(model_dir), "--out",
               str(tmp_path / "out.csv"), *flags])
    err = capsys.readouterr().err
    return rc, pd.read_csv(tmp_path / "out.csv", keep_default_na=False, dtype=str), err


def _row(src: str, g: int, wg: int = 64, **extra: str) -> dict[str, str]:
    return {"src": src, "wgsize": str(wg), "transfer": str(8 * g), "dataset": str(g), **extra}


@pytest.mark.usefixtures("cache_env")
def test_undefined_macro_is_a_row_error_then_predicted_with_D(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    rows = [_row(HOSTED, 1 << 20), _row(VADD, 4096), _row(HOSTED, 1 << 16)]
    rc, out, _ = _batch(tmp_path, capsys, model_dir, rows)
    assert rc == 0
    err = out.loc[0, "error"]
    assert "FPTYPE (unknown type name, line 2)" in err, err
    assert "BLOCK (undeclared identifier, line 3)" in err and "-D NAME=VALUE" in err
    assert out.loc[0, "pred_runtime_ms"] == "" and out.loc[1, "error"] == ""  # batch goes on

    rc, out, _ = _batch(tmp_path, capsys, model_dir, rows, "-D", "FPTYPE=float",
                        "--build-options", "-DBLOCK=64 -cl-mad-enable")
    assert rc == 0 and (out["error"] == "").all(), out["error"].tolist()
    assert float(out.loc[0, "pred_runtime_ms"]) > 0
    assert "sampled" in out.loc[0, "counts_note"] and "first and last" in out.loc[0,
                                                                                "counts_note"]

    # per row: one row brings its own options, the other still lacks BLOCK
    rows = [_row(HOSTED, 1 << 20, build_options="-DFPTYPE=float -DBLOCK=32"),
            _row(HOSTED, 1 << 20, build_options="-DFPTYPE=float")]
    rc, out, _ = _batch(tmp_path, capsys, model_dir, rows)
    assert out.loc[0, "error"] == "" and float(out.loc[0, "pred_runtime_ms"]) > 0
    assert "BLOCK (undeclared identifier" in out.loc[1, "error"]
    assert "FPTYPE" not in out.loc[1, "error"]


@pytest.mark.usefixtures("cache_env")
def test_include_folder_of_a_row_is_relative_to_the_rows_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "params.h").write_text("#define SCALE 3.0f\n")
    src = ('#include "params.h"\n__kernel void scale(__global float* a, const int n) {\n'
           '  int i = get_global_id(0);\n  if (i < n) a[i] = a[i] * SCALE;\n}\n')
    rows = [_row(src, 1 << 20, build_options="-I inc"), _row(src, 1 << 20)]
    rc, out, _ = _batch(tmp_path, capsys, model_dir, rows)
    assert rc == 0 and out.loc[0, "error"] == "", out.loc[0, "error"]
    assert "sampled" in out.loc[0, "counts_note"]  # Oclgrind found the header too
    assert "params.h (missing include, line 1)" in out.loc[1, "error"]
    assert "-I DIR" in out.loc[1, "error"]


@pytest.mark.usefixtures("cache_env")
def test_progress_bar_on_a_terminal_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         model_dir: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    rows = [_row(VADD, 4096), _row(SAXPY, 1 << 20)]
    _, _, err = _batch(tmp_path, capsys, model_dir, rows)
    assert "row/s" not in err and "rows/s" not in err  # stderr is no terminal here
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    _, _, err = _batch(tmp_path, capsys, model_dir, rows)
    assert "row/s" in err or "s/row" in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    _, _, err = _batch(tmp_path, capsys, model_dir, rows, "--quiet")
    assert "row/s" not in err and "s/row" not in err


@pytest.mark.usefixtures("cache_env")
def test_counts_cli_build_options_and_sampling(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    k = tmp_path / "triad.cl"
    k.write_text(TRIAD)
    rc = main(["counts", str(k), "--global", str(1 << 20), "--local", "256", "--json"])
    assert rc != 0 and "REPS (undeclared identifier, line 6)" in capsys.readouterr().err

    base = ["counts", str(k), "--local", "256", "-D", "REPS=4", "--json"]
    assert main([*base, "--global", str(1 << 20)]) == 0
    big = json.loads(capsys.readouterr().out)
    assert big["sampled"] and big["groups_total"] == 4096 and big["groups_run"] == 2
    assert "2 of 4096 work-groups" in big["note"]
    # a[i] + s * b[i] is loop-invariant: one FMA (2) hoisted, then REPS adds; scaled x2048
    assert big["flops_sp"] == (1 << 20) * (2 + 4)
    assert main([*base, "--global", str(1 << 14), "--exact"]) == 0
    small = json.loads(capsys.readouterr().out)
    assert not small["sampled"] and small["note"].startswith("exact")
    assert big["global_load_bytes"] == 64 * small["global_load_bytes"]  # the scale is right


@pytest.mark.slow
@pytest.mark.usefixtures("cache_env")
def test_regress_batch_time_per_row_on_suite_sized_launches(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], model_dir: Path) -> None:
    """Cold profiles of three kernels, rows at 2^20 to 2^24 work-items: the time per row is
    printed (the machine's load decides it), not asserted tightly."""
    rows = [_row(src, g, wg) for src in (SGEMM, TRIAD, HOSTED)
            for g, wg in ((1 << 20, 256), (1 << 22, 64), (1 << 24, 256))]
    t0 = time.perf_counter()
    rc, out, _ = _batch(tmp_path, capsys, model_dir, rows, "-D", "REPS=16", "-D",
                        "FPTYPE=float", "-D", "BLOCK=64")
    dt = time.perf_counter() - t0
    assert rc == 0 and (out["error"] == "").all(), out["error"].tolist()
    assert out["counts_note"].str.contains("sampled").all()
    with capsys.disabled():
        print(f"\nregress-batch: {len(rows)} rows of 3 kernels (2^20..2^24 work-items, cold "
              f"Oclgrind profiles) in {dt:.1f} s = {dt / len(rows):.2f} s per row")
    assert dt / len(rows) < 30  # generous: only catches runs over the whole launch
