from __future__ import annotations

import json
from pathlib import Path

import pytest

from ridgeline.cli import main

pytestmark = pytest.mark.usefixtures("clang")


def test_kernels_json(cuda_file: Path, omp_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["kernels", str(cuda_file), str(omp_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = {k["name"]: k for k in out["kernels"]}
    assert set(names) == {"saxpy", "stencil", "gather", "add_l6", "main_l17"}
    assert names["saxpy"]["params"][0]["pointer"] is True
    assert names["add_l6"]["language"] == "omp"


def test_kernels_table_and_features(cl_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["kernels", str(cl_file)]) == 0
    out = capsys.readouterr().out
    assert "mm" in out and "opencl" in out
    assert main(["features", str(cl_file), "--kernel", "mm"]) == 0
    assert "loop L0" in capsys.readouterr().out
    assert main(["features", str(cl_file), "--kernel", "mm", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["static"]["barriers"] == 1


def test_unknown_kernel_exits_nonzero(cl_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["features", str(cl_file), "--kernel", "mmm"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernel 'mmm'" in err and "vec4" in err and "Traceback" not in err


def test_define_flag(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    p = tmp_path / "k.cu"
    p.write_text("__global__ void QUAL k(float *a) { a[0] = 1; }\n")
    assert main(["features", str(p), "--kernel", "k"]) == 2
    assert "no usable body" in capsys.readouterr().err
    assert main(["features", str(p), "--kernel", "k", "-D", "QUAL=", "--json"]) == 0
