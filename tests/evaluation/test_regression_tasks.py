"""The OpenCL regression tasks of ``ridgeline eval``: their typed settings from the flags, and a
pocl-regression run on a small datagen output made here on PoCL (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ridgeline.cli._app import build_parser, main
from ridgeline.errors import UnknownNameError, UsageError
from ridgeline.evaluation.tasks.regression import RegressionTask, pocl_report
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require
from tests.opencl.kernels import DAXPY, MATMUL, SAXPY, STENCIL, VADD

SCALE = """
__kernel void scale(__global const float* x, __global float* y, const float a, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
"""
SQUARE = """
__kernel void square(__global float* x, const int n) {
    int i = get_global_id(0);
    if (i < n) x[i] = x[i] * x[i];
}
"""


def _task(*flags: str) -> RegressionTask:
    return RegressionTask.from_cli(build_parser().parse_args(["eval", *flags]))


def test_settings_from_the_eval_flags() -> None:
    t = _task("--task", "pocl-regression", "--predictor", "all", "--model", "runs/dg",
              "--seed", "7", "--limit", "3", "--pocl-time", "min", "--quiet")
    assert t == RegressionTask(kinds=("gbm", "llm"), model="runs/dg", limit=3, seed=7,
                               time="min", progress=False)
    assert _task("--task", "clgen-regression").kinds == ("gbm",)
    assert _task("--predictor", "llm-regressor").kinds == ("llm",)
    with pytest.raises(UnknownNameError, match="gbm-regressor"):
        _task("--predictor", "forest")


def test_pocl_needs_a_datagen_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="needs --model DATAGEN_DIR"):
        pocl_report(RegressionTask())
    assert main(["eval", "--task", "pocl-regression"]) == 2
    assert "needs --model DATAGEN_DIR" in capsys.readouterr().err


@pytest.mark.slow
def test_pocl_regression_on_a_datagen_run(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    require("oclgrind with plugin headers", oclgrind_available())
    require("pyopencl", "pyopencl")
    require("libclang", "clang")
    from ridgeline.datagen import DatagenConfig, generate

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    kdir = tmp_path / "kernels"
    kdir.mkdir()
    # matmul's extents are not affine in the global size: it is left unsized, not sampled
    for name, src in (("vadd", VADD), ("saxpy", SAXPY), ("daxpy", DAXPY), ("matmul", MATMUL),
                      ("stencil", STENCIL), ("scale", SCALE), ("square", SQUARE)):
        (kdir / f"{name}.cl").write_text(src)
    out = tmp_path / "datagen"
    cfg = DatagenConfig(device="pocl", samples=3, seed=1, repeats=3, warmup=1,
                        max_global=1 << 12)
    generate(kdir, out, cfg, progress=False)
    assert main(["eval", "--task", "pocl-regression", "--model", str(out),
                 "--out", str(tmp_path / "eval"), "--quiet"]) == 0
    report = json.loads((tmp_path / "eval" / "pocl-regression.json").read_text())
    assert report["datagen"] == str(out) and report["provenance"]["seed"] == 4839
    held_out = report["results"]["gbm"]
    assert held_out["test_kernels"] >= 1 and held_out["train_kernels"] >= 4
    folds = report["results"]["gbm / 5-fold"]
    assert folds["folds"] == 5 and folds["kernels"] == 6 and len(folds["fold_mape"]) == 5
    # four kernels are too few for five folds: a clear error, not a fit on no rows
    (kdir / "scale.cl").unlink()
    (kdir / "square.cl").unlink()
    few = tmp_path / "few"
    generate(kdir, few, cfg, progress=False)
    with pytest.raises(UsageError, match="needs at least 5 kernels with timed samples; the "
                       "rows have 4"):
        pocl_report(RegressionTask(model=str(few)))
