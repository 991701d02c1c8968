"""What the source analysis must understand to count right: member names, grid-stride loops,
function-like macros, preprocessor branches, template types, called device functions, SPMD
OpenMP regions. Each program here is written for the test, with hand counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.analysis.kernel import analyze_launch
from ridgeline.analysis.macros import expand_fn_macros, fn_macros, resolve_conditionals
from ridgeline.analysis.srcscan import load_program
from ridgeline.errors import KernelNotFoundError
from ridgeline.launch import KernelRef, Launch


def _prog(tmp_path: Path, name: str, text: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "main.cu" if "cuda" in name else d / "main.cpp").write_text(text)
    return d


def test_member_x_is_not_the_pointer_x(tmp_path: Path) -> None:
    d = _prog(tmp_path, "saxpy-cuda", r"""
__global__ void saxpy(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() { saxpy<<<4, 256>>>(1024, 2.0f, 0, 0); }
""")
    a = analyze_launch(KernelRef("saxpy", (d,)), Launch())
    # one multiply and one add per thread; the index line is integer work, not FLOPs
    assert a.stats.fp["sp"] == 2
    assert a.counts().flops_sp == 2 * 1024


def test_grid_stride_loop_with_a_large_step(tmp_path: Path) -> None:
    d = _prog(tmp_path, "stride-cuda", r"""
#define KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
template <typename T>
__global__ void scale(const int N, const T *x, T *y)
{
  KERNEL_LOOP(i, N) {
    y[i] = x[i] * 3.0f;
  }
}
int main() { scale<<<1000, 1000>>>(4000000, (float*)0, (float*)0); }
""")
    a = analyze_launch(KernelRef("scale", (d,)), Launch())
    # 4e6 elements over 1e6 threads: 4 iterations each (no overflow on a 1e6 step)
    assert a.stats.unknown_loops == 0
    assert a.stats.fp["sp"] == 4
    assert a.stats.load_bytes == 4 * 4 and a.stats.store_bytes == 4 * 4
    assert any("template parameter T" in n for n in a.notes)


def test_function_like_macros_keep_line_numbers() -> None:
    text = "#define SQ(a) ((a) * (a))\nint f(int v) {\n  return SQ(v +\n 1);\n}\nint z;\n"
    out = expand_fn_macros(text, fn_macros({"m": text}))
    assert "return ((v + 1) * (v + 1))\n;" in out  # arguments joined on one line ...
    assert out.count("\n") == text.count("\n")  # ... and the line count holds
    assert out.splitlines()[5] == "int z;"
    assert out.splitlines()[0] == "#define SQ(a) ((a) * (a))"  # definitions untouched


def test_inactive_preprocessor_branches_are_dropped() -> None:
    text = "\n".join([
        "#ifndef GUARD_H", "#define GUARD_H",
        "#ifdef DOUBLE_PRECISION", "#define FP double", "#else", "#define FP float", "#endif",
        "#if defined(USE_FAST) && LEVEL > 2", "fast", "#elif __CUDA_ARCH__ >= 700", "arch",
        "#else", "slow", "#endif", "#endif"])
    out = resolve_conditionals(text, {"GUARD_H", "FP", "USE_FAST", "LEVEL", "__CUDA_ARCH__"},
                               {"LEVEL": "1", "__CUDA_ARCH__": "800"})
    kept = [x.strip() for x in out.splitlines() if x.strip()]
    assert kept == ["#define GUARD_H", "#define FP float", "arch"]
    assert out.count("\n") == text.count("\n")


def test_precision_from_macros_templates_and_called_functions(tmp_path: Path) -> None:
    d = _prog(tmp_path, "call-cuda", r"""
#ifdef DOUBLE_PRECISION
#define FP double
#else
#define FP float
#endif
template <typename T>
__device__ T dist2(const T *p, int i, int k)
{
  T acc = 0;
  for (int d = 0; d < k; d++) acc += p[i * k + d] * p[i * k + d];
  return acc;
}
template <typename T>
__global__ void norms(const T *p, T *out, int n, int k)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = dist2<T>(p, i, k);
}
int main() {
  FP *p, *o;
  norms<FP><<<2, 64>>>(p, o, 128, 3);
}
""")
    a = analyze_launch(KernelRef("norms", (d,)), Launch())
    assert a.bound["k"] == 3
    # the called function's loop: 3 iterations x (multiply + add) in float (FP is float)
    assert a.stats.fp["sp"] == 6 and a.stats.fp["dp"] == 0
    assert a.stats.load_bytes == 3 * 2 * 4 and a.stats.unknown_loops == 0


def test_spmd_openmp_region_runs_once_per_team_and_thread(tmp_path: Path) -> None:
    d = _prog(tmp_path, "spmd-omp", r"""
#include <omp.h>
#include <cstdlib>
int main(int argc, char **argv)
{
  int n = atoi(argv[1]);
  float *a = (float*) malloc(n * sizeof(float));
  #pragma omp target teams num_teams(n / 64) thread_limit(64) \
      map(tofrom: a[0:n])
  {
    #pragma omp parallel
    {
      int i = omp_get_team_num() * 64 + omp_get_thread_num();
      a[i] = a[i] * 2.0f;
    }
  }
  return 0;
}
""")
    prog = load_program(d)
    assert prog.omp[0].line == 8 and "thread_limit(64)" in prog.omp[0].pragma
    # a profile of slightly edited sources names the region a few lines off: within 8 lines
    # it is the same region, farther it is unknown
    assert prog.omp_region("main_l14") is prog.omp[0]
    with pytest.raises(KernelNotFoundError, match="main_l30"):
        prog.omp_region("main_l30")
    a = analyze_launch(KernelRef("main_l8", (d,)), Launch(args="4096"))
    assert a.threads == 4096  # 64 teams x 64 threads run the body
    assert a.counts().flops_sp == 4096
    assert a.counts().dram_bytes == 4096 * 8


def test_buffer_footprint_from_cuda_malloc_once_per_direction(tmp_path: Path) -> None:
    d = _prog(tmp_path, "fp-cuda", r"""
#include <cstdlib>
__global__ void axpy(int n, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) for (int r = 0; r < 8; r++) y[i] = 2.0f * x[i] + y[i];
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]);
  float *x, *y;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc(&y, sizeof(float) * n);
  axpy<<<(n + 255) / 256, 256>>>(n, x, y);
}
""")
    a = analyze_launch(KernelRef("axpy", (d,)), Launch(args="1024"))
    assert a.access_bytes == 8 * 12 * 1024  # eight passes of x read, y read, y written
    assert a.footprint == 3 * 4 * 1024  # x once (read), y twice (read and written)
    assert a.counts().dram_bytes == a.footprint


def test_openmp_footprint_from_multidimensional_map_sections(tmp_path: Path) -> None:
    d = _prog(tmp_path, "map-omp", r"""
#include <cstdlib>
const int M = 64;
int main(int argc, char **argv)
{
  int n = atoi(argv[1]);
  double (*a)[M] = new double[n][M];
  double *s = (double*) malloc(n * sizeof(double));
  #pragma omp target data map(to: a[0:n][0:M]) map(from: s[0:n])
  {
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      double t = 0.0;
      for (int j = 0; j < M; j++) t += a[i][j];
      s[i] = t;
    }
  }
}
""")
    a = analyze_launch(KernelRef("main_l11", (d,)), Launch(args="100"))
    assert a.stats.fp["dp"] == 100 * 64
    assert a.footprint == 100 * 64 * 8 + 100 * 8
    assert a.counts().dram_bytes == a.footprint


def test_a_kernel_renamed_since_the_profile_is_guessed_and_says_so(tmp_path: Path) -> None:
    d = _prog(tmp_path, "ren-cuda", """
__global__ void kernel1(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 2.0f;
}
__global__ void kernel2(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] + 1.0f;
}
int main() { return 0; }
""")
    a = analyze_launch(KernelRef("attention_kernel1", (d,)), Launch(grid=(4, 1, 1),
                                                                     block=(256, 1, 1)))
    assert any("GUESSED 'kernel1'" in n for n in a.notes)
    assert a.counts().flops_sp == 1024
    with pytest.raises(KernelNotFoundError, match="attention_kernel9"):
        analyze_launch(KernelRef("attention_kernel9", (d,)), Launch(grid=(4, 1, 1),
                                                                    block=(256, 1, 1)))
