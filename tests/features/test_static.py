from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.errors import SourceError
from ridgeline.features import kernel_features, static_features
from ridgeline.sources import get_kernel, load_program, parse_opencl
from tests.sources.kernels_data import OPENCL

pytestmark = pytest.mark.usefixtures("clang")


def test_cuda_saxpy_counts(cuda_file: Path) -> None:
    f = static_features(get_kernel(load_program(cuda_file), "saxpy"))
    fp32 = f["ops"]["fp32"]
    # a * v (in scale) is a mul; scale(..) + SQ(y) is an add over a mul -> fma;
    # the two acc += ... are adds; sqrtf is a special function
    assert fp32 == {"mul": 1, "fma": 1, "add": 2, "special": 1}
    loops = f["loops"]
    assert [lp["trip_count"] for lp in loops] == ["(iters)", "(4)"]
    assert loops[0]["depends_on"] == ["param"] and loops[1]["trip_count_const"] == 4
    assert loops[1]["depends_on"] == ["const"]
    assert f["atomics"] == 1 and f["barriers"] == 1
    assert f["special_functions"] == {"sqrtf": 1}
    assert f["shared_arrays"] == ["tile"]
    mem = f["memory"]
    assert mem["shared.store"] == 1 and mem["shared.load"] == 1
    assert mem["global.load.unit"] >= 2       # x[i], y[i]
    assert mem["global.store.strided"] == 1   # y[i * 4]
    assert mem["global.load_bytes"] >= 8
    # weighted counts multiply by the constant trip count (4) or UNKNOWN_TRIP (8)
    assert f["ops_weighted"]["fp32"]["special"] == 4
    assert f["flops"]["fp32"] == sum(fp32.get(k, 0) for k in ("add", "mul", "div", "special")) \
        + 2 * fp32.get("fma", 0)


def test_indirect_grid_stride_and_divergence(cuda_file: Path) -> None:
    prog = load_program(cuda_file)
    g = static_features(get_kernel(prog, "gather"))
    assert g["memory"]["global.load.indirect"] == 1
    assert g["ops"]["fp64"]["mul"] == 1
    lp = g["loops"][0]
    assert lp["trip_count"] == "ceil(((n) - (i)) / (blockDim.x*gridDim.x))"
    assert set(lp["depends_on"]) == {"launch", "local", "param"}
    s = static_features(get_kernel(prog, "stencil"))
    assert s["divergent_branches"] == 1 and s["branches"] == 1
    assert s["loops"][0]["trip_count"] == "((R) - (- R) + 1)"


def test_opencl_features() -> None:
    mm = {k.name: k for k in parse_opencl(OPENCL)}["mm"]
    f = static_features(mm)
    assert f["ops"]["fp32"]["fma"] == 1
    assert f["barriers"] == 1
    assert f["memory"]["shared.store"] == 1  # __local tile
    assert f["memory"]["constant.load"] == 1
    assert f["memory"]["global.load.unit"] >= 1     # B[k * n + col]
    assert f["memory"]["global.load.strided"] >= 1  # A[row * n + k]
    assert f["loops"][0]["trip_count"] == "(n)"


def test_openmp_region_features(omp_file: Path) -> None:
    r = static_features(get_kernel(load_program(omp_file), "main_l17"))
    assert [lp["parallel"] for lp in r["loops"]] == [True, True]
    assert [lp["trip_count"] for lp in r["loops"]] == ["(n)", "(m)"]
    assert r["ops"]["fp64"] == {"fma": 1}  # sum += a[..] * 0.5
    assert r["memory"]["global.load.unit"] == 1


def test_lost_body_raises_not_empty(tmp_path: Path) -> None:
    p = tmp_path / "k.cu"
    p.write_text("__global__ void BAD_MACRO k(float *a) { a[0] = 1; }\n")
    k = get_kernel(load_program(p), "k")
    with pytest.raises(SourceError, match="no usable body"):
        static_features(k)


def test_kernel_features_record(cuda_file: Path) -> None:
    rec = kernel_features(cuda_file.parent, "saxpy")
    assert rec["name"] == "saxpy" and rec["compiled"] is None
    assert rec["launches"][0]["grid"] == "grid" and rec["static"]["loops"]
    omp = kernel_features(cuda_file.parent, "saxpy", arch=None)
    assert omp["static"] == rec["static"]


def test_trip_counts_expand_locals(tmp_path: Path) -> None:
    p = tmp_path / "e.cu"
    p.write_text("__global__ void k(float *a, int n, int per) {\n"
                 "  int tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  int start = tid * per;\n  int end = min(start + per, n);\n"
                 "  for (int i = start; i < end; i++) a[i] *= 2.f;\n}\n")
    lp = static_features(get_kernel(load_program(p), "k"))["loops"][0]
    assert lp["trip_count"] == "((end) - (start))" and lp["depends_on"] == ["local"]
    assert lp["expanded_depends_on"] == ["launch", "param"]
    assert "min(((blockIdx.x * blockDim.x + threadIdx.x) * per) + per , n)" in \
        lp["trip_count_expanded"]


def test_called_functions_count_at_every_call_site(tmp_path: Path) -> None:
    p = tmp_path / "c.cu"
    p.write_text("__device__ float f(float x) { return x * x + 1.0f; }\n"
                 "__global__ void k(float *a) {\n  float s = f(a[0]);\n"
                 "  for (int i = 0; i < 4; i++) s += f(a[i]);\n  a[0] = s;\n}\n")
    f = static_features(get_kernel(load_program(p), "k"))
    assert f["ops"]["fp32"] == {"fma": 2, "add": 1}           # f inlined at both call sites
    assert f["ops_weighted"]["fp32"] == {"fma": 5.0, "add": 4.0}  # 1 + 4 trips
    assert f["calls"] == {"f": 2}
