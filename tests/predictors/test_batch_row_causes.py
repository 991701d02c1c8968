"""A real batch whose programs fail in every way a user's do: each row `--count auto` could
not count names its cause and first error line in the output's columns (not only in -v
logs), a run cut by its time limit says its counts are partial, and the end-of-run summary
groups the causes with their counts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from tests.conftest import require
from tests.counting.conftest import PROGRAMS

pytestmark = pytest.mark.slow

GOOD = r"""
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *x, *y;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&y, n * sizeof(float));
  for (int i = 0; i < n; i++) { x[i] = 1.0f; y[i] = 2.0f; }
  axpy<<<(n + 127) / 128, 128>>>(n, 3.0f, x, y);
  cudaDeviceSynchronize();
  printf("%g\n", y[0]);
  return 0;
}
"""

#: one kernel, then host work past the time limit, then a kernel the run never reaches
TWO_PHASE = r"""
#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>
__global__ void fill(float *p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }
__global__ void scale(float *p) { p[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }
int main() {
  float *p;
  cudaMalloc(&p, 1024 * sizeof(float));
  fill<<<8, 128>>>(p);
  cudaDeviceSynchronize();
  sleep(120);
  scale<<<8, 128>>>(p);
  cudaDeviceSynchronize();
  return 0;
}
"""

ROW = '{src},{kernel},{model},"(128, 1, 1)","(8, 1, 1)",{args},3080\n'


@pytest.fixture()
def sources(tmp_path: Path) -> Path:
    from ridgeline.counting.toolchain import find_toolchain
    from ridgeline.errors import RidgelineError

    try:
        find_toolchain()
    except RidgelineError as e:
        require(f"a toolchain to count with ({e})", False)
    root = tmp_path / "src"
    for name, text in (("good-cuda", GOOD), ("twophase-cuda", TWO_PHASE)):
        (root / name).mkdir(parents=True)
        (root / name / "main.cu").write_text(text)
    for name in ("broken-cuda", "crash-cuda", "needsfile-cuda", "lapack-omp"):
        shutil.copytree(PROGRAMS / name, root / name)
    return root


def test_every_uncounted_row_says_why_and_the_summary_groups_the_causes(
        sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "source,kernel,model_type,block_size,grid_size,exe_args,device\n"
        + ROW.format(src="good-cuda", kernel="axpy", model="cuda", args="1024")
        + ROW.format(src="broken-cuda", kernel="k", model="cuda", args="")
        + ROW.format(src="crash-cuda", kernel="k", model="cuda", args="")
        + ROW.format(src="needsfile-cuda", kernel="k", model="cuda", args="")
        + ROW.format(src="lapack-omp", kernel="main_l12", model="omp", args="")
        + ROW.format(src="twophase-cuda", kernel="fill", model="cuda", args="")
        + ROW.format(src="twophase-cuda", kernel="scale", model="cuda", args=""))
    out = tmp_path / "out.csv"
    capsys.readouterr()
    assert main(["predict-batch", str(rows), "--sources", str(sources), "--out", str(out),
                 "--jobs", "2", "--count", "auto", "--count-timeout", "6"]) == 0
    df = pd.read_csv(out, keep_default_na=False, dtype=str)
    status, error = list(df["count_status"]), list(df["count_error"])
    assert status == ["counted", "failed", "failed", "failed", "failed", "partial",
                      "failed"], error
    assert error[0] == "" and float(df["pred_SP_FLOP"][0]) == pytest.approx(2 * 1024)
    # the cause, then the first error line (where the program's own text says it)
    assert error[1].startswith("compile: ") and "main.cu" in error[1] and "error" in error[1]
    assert error[2].startswith("crash: ") and "SIGSEGV" in error[2]
    assert error[3].startswith("missing-input: ") and "input.bin" in error[3]
    assert error[4].startswith("link: ") and "undefined reference to `dgesv_'" in error[4]
    partial = "timeout: partial, 1 launch counted; still running after 6 s"
    assert error[5] == partial
    assert error[6] == f"{partial}; kernel 'scale' not reached"
    # the counted launch of the stopped run is used; every row is predicted
    assert list(df["pred_origin"]) == ["counted"] + ["learned"] * 4 + ["counted", "learned"]
    assert all(df["error"] == "") and all(df["pred_xtime_ns"] != "")
    err = capsys.readouterr().err
    assert ("not counted, failed (5 rows): compile 1, crash 1, link 1, missing-input 1, "
            "timeout 1") in err
    assert "counted by runs that then stopped (1 rows): timeout 1" in err
