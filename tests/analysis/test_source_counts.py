"""Counting rules of the source model found wanting by a new user (issue 52): products read
as declarations, thread guards, 2-D and extern shared arrays, statement macros. Each program
is written for the test, CUDA and OpenMP, with hand counts."""

from __future__ import annotations

from pathlib import Path

from ridgeline.analysis.kernel import KernelAnalysis, analyze_launch
from ridgeline.launch import KernelRef, Launch


def _run(tmp_path: Path, name: str, text: str, kernel: str, args: str = "",
         grid: str | None = None, block: str | None = None) -> KernelAnalysis:
    d = tmp_path / name
    d.mkdir()
    (d / ("main.cu" if name.endswith("cuda") else "main.cpp")).write_text(text)
    return analyze_launch(KernelRef(kernel, (d,)), Launch.parse(grid, block, args))


_OMP_AXPBY = r"""
#include <cstdlib>
int main(int argc, char *argv[])
{
  const int n = atoi(argv[1]);
  const float a = 2.0f, b = 0.5f;
  float *x = (float *) malloc(n * sizeof(float));
  float *y = (float *) malloc(n * sizeof(float));
  #pragma omp target teams distribute parallel for thread_limit(256)
  for (int i = 0; i < n; i++) {
    y[i] = a * x[i] + b * y[i];
  }
  return 0;
}
"""


def test_a_product_is_not_a_pointer_declaration_omp(tmp_path: Path) -> None:
    a = _run(tmp_path, "axpby-omp", _OMP_AXPBY, "main_l9", "1000")
    # `a * x[i]` and `b * y[i]` are products (after `=` and `+`), not `a *x` declarations:
    # two multiplies and one add per element, in single precision (x, y are float)
    assert a.stats.fp["sp"] == 3 * 1000
    assert a.stats.load_bytes == 2 * 4 * 1000 and a.stats.store_bytes == 4 * 1000


def test_a_product_is_not_a_pointer_declaration_cuda(tmp_path: Path) -> None:
    a = _run(tmp_path, "axpby-cuda", r"""
__global__ void axpby(int n, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.5f;
  float r = scale(s * y[i]);
  y[i] = s * x[i] + r;
}
int main() { axpby<<<4, 256>>>(1024, 0, 0); }
""", "axpby")
    assert a.stats.fp["sp"] == 3  # `scale(s * y[i])` is a call, `s * x` a product
    assert a.stats.loads == 2 and a.stats.stores == 1


_TILE_CUDA = r"""
#define TILE 16
__device__ void put(float *t, int k, float v) { t[k] = v; }
__global__ void transpose(const float *in, float *out, int n)
{
  __shared__ float tile[TILE][TILE + 1], spare[TILE][TILE];
  __shared__ unsigned int hits[TILE];
  __shared__ float *where;
  extern __shared__ unsigned char smem[];
  float *buf = (float *) smem;
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  hits[threadIdx.x] = 0;
  buf[threadIdx.x] = 1.0f;
  put((float *) spare, threadIdx.x, 2.0f);
  __syncthreads();
  out[x * n + y] = tile[threadIdx.x][threadIdx.y] + where[0];
}
int main() { dim3 g(4, 4); dim3 b(TILE, TILE); transpose<<<g, b, 1024>>>(0, 0, 64); }
"""


def test_2d_and_extern_shared_arrays_are_shared_memory(tmp_path: Path) -> None:
    a = _run(tmp_path, "tile-cuda", _TILE_CUDA, "transpose")
    s = a.stats
    # shared: tile store + load, hits (an `unsigned int` array), buf (a pointer into the
    # extern array), spare (passed to a device function's pointer parameter); the
    # declarations are no accesses
    assert s.shared == 5
    # global: in, out, and where[0] (`__shared__ float *where` points to global memory)
    assert s.loads == 2 and s.stores == 1
    assert s.read == {"in", "where"} and s.written == {"out"}
    assert a.counts().dram_bytes == 3 * 4 * 4 * 4 * 16 * 16


_MACROS = r"""
#define BODY(i) y[i] = a*x[i] + y[i]
#define WRAPPED(i) do { BODY(i); } while (0)
#define STEP y[i] = a*x[i] + y[i]
"""


def test_statement_macros_are_expanded_cuda(tmp_path: Path) -> None:
    a = _run(tmp_path, "mac-cuda", _MACROS + r"""
__global__ void axpy(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  BODY(i);
  WRAPPED(i);
  STEP;
}
int main() { axpy<<<4, 256>>>(1024, 2.0f, 0, 0); }
""", "axpy")
    s = a.stats
    # three updates of one multiply and one add; `do ... while (0)` runs once, no loop
    assert s.fp["sp"] == 3 * 2 and s.loads == 3 * 2 and s.stores == 3
    assert s.loops == 0 and s.unknown_loops == 0
    assert a.counts().flops_sp == 3 * 2 * 1024


def test_statement_macros_are_expanded_omp(tmp_path: Path) -> None:
    a = _run(tmp_path, "mac-omp", "#include <cstdlib>\n" + _MACROS + r"""
int main(int argc, char *argv[])
{
  const int n = atoi(argv[1]);
  const float a = 2.0f;
  float *x = (float *) malloc(n * sizeof(float));
  float *y = (float *) malloc(n * sizeof(float));
  #pragma omp target teams distribute parallel for thread_limit(256)
  for (int i = 0; i < n; i++) {
    BODY(i);
    WRAPPED(i);
    STEP;
  }
  return 0;
}
""", "main_l13", "1000")
    s = a.stats
    assert s.fp["sp"] == 3 * 2 * 1000
    assert s.load_bytes == 3 * 2 * 4 * 1000 and s.store_bytes == 3 * 4 * 1000
    assert s.unknown_loops == 0


_GUARDS = r"""
__global__ void wrap(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}
__global__ void both(int n, int flag, float a, const float *x, float *y)
{
  const int idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (idx < n && flag) y[idx] = a * x[idx] + y[idx];
}
__global__ void exits(int w, int h, const float *in, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void plane(int w, int h, const float *in, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 2.0f * in[y * w + x];
}
__global__ void nested(int w, int h, const float *in, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w) {
    if (y < h) {
      out[y * w + x] = 2.0f * in[y * w + x];
    }
  }
}
__global__ void tail(const float *in, float *out)
{
  __shared__ float s[256];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  if (tid < 32) out[blockIdx.x] = s[tid];
}
__global__ void branch(int n, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
  else y[i] = 0.0f;
}
int main()
{
  wrap<<<4, 256>>>(1000, 2.0f, 0, 0);
  both<<<4, 256>>>(1000, 1, 2.0f, 0, 0);
  dim3 g(4, 8), b(32, 8);
  exits<<<g, b>>>(100, 50, 0, 0);
  plane<<<g, b>>>(100, 50, 0, 0);
  nested<<<g, b>>>(100, 50, 0, 0);
  tail<<<4, 256>>>(0, 0);
  branch<<<4, 256>>>(1000, 0, 0);
}
"""


def test_guards_keep_the_threads_in_range_cuda(tmp_path: Path) -> None:
    d = tmp_path / "guards-cuda"
    d.mkdir()
    (d / "main.cu").write_text(_GUARDS)

    def run(kernel: str) -> KernelAnalysis:
        return analyze_launch(KernelRef(kernel, (d,)), Launch())

    # saxpy over n = 1000 on 4 x 256 threads: 1000 threads work, 2 FLOPs each
    for kernel in ("wrap", "both"):
        a = run(kernel)
        assert a.threads == 1000 and a.launched_threads == 1024
        assert a.counts().flops_sp == 2 * 1000
        assert a.access_bytes == 3 * 4 * 1000
    # 2-D: 128 x 64 threads launched over a 100 x 50 image, as exits, a conjunction or
    # nested ifs
    for kernel in ("exits", "plane", "nested"):
        a = run(kernel)
        assert a.threads == 100 * 50, kernel
        assert a.counts().flops_sp == 100 * 50
    # a guard after the loads guards a tail, not the kernel; an if with an else no guard
    assert run("tail").threads == 1024
    assert run("branch").threads == 1024


def test_omp_counts_follow_the_loop_bounds_not_the_teams(tmp_path: Path) -> None:
    a = _run(tmp_path, "guard-omp", r"""
#include <cstdlib>
int main(int argc, char *argv[])
{
  const int n = atoi(argv[1]);
  const float a = 2.0f;
  float *x = (float *) malloc(n * sizeof(float));
  float *y = (float *) malloc(n * sizeof(float));
  #pragma omp target teams distribute parallel for num_teams(4) thread_limit(256)
  for (int i = 0; i < n; i++) {
    y[i] = a * x[i] + y[i];
  }
  #pragma omp target teams distribute parallel for collapse(2) num_teams(32) thread_limit(256)
  for (int r = 0; r < 50; r++)
    for (int c = 0; c < 100; c++)
      y[r * 100 + c] = 2.0f * x[r * 100 + c];
  return 0;
}
""", "main_l9", "1000")
    # the OpenMP version of the guard is the loop bound: 4 teams x 256 threads over
    # n = 1000 elements is 2 * 1000 FLOPs
    assert a.grid == (4, 1, 1) and a.block == (256, 1, 1)
    assert a.threads == 1 and a.counts().flops_sp == 2 * 1000
    assert a.stats.load_bytes == 2 * 4 * 1000 and a.stats.store_bytes == 4 * 1000
    b = analyze_launch(KernelRef("main_l14", (tmp_path / "guard-omp",)), Launch(args="1000"))
    assert b.counts().flops_sp == 100 * 50  # 2-D: the two loop bounds


def test_spmd_omp_region_guard_keeps_the_copies_in_range(tmp_path: Path) -> None:
    a = _run(tmp_path, "spmd-omp", r"""
#include <cstdlib>
#include <omp.h>
int main(int argc, char *argv[])
{
  const int n = atoi(argv[1]);
  const float a = 2.0f;
  float *x = (float *) malloc(n * sizeof(float));
  float *y = (float *) malloc(n * sizeof(float));
  #pragma omp target teams num_teams(4) thread_limit(256)
  {
    #pragma omp parallel
    {
      int i = omp_get_team_num() * omp_get_num_threads() + omp_get_thread_num();
      if (i < n) {
        y[i] = a * x[i] + y[i];
      }
    }
  }
  return 0;
}
""", "main_l10", "1000")
    # the CUDA-style region runs once per thread of 4 teams x 256 threads; the guard keeps
    # the 1000 copies with i < n
    assert a.threads == 1000
    assert a.counts().flops_sp == 2 * 1000
    assert a.access_bytes == 3 * 4 * 1000


def test_array_declarations_before_a_guard_are_no_work(tmp_path: Path) -> None:
    a = _run(tmp_path, "decl-cuda", r"""
__global__ void k(int n, const float *x, float *y)
{
  float e[3];
  int c[2] = {0, 1};
  __shared__ float s[256];
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  e[0] = x[i];
  y[i] = e[0] * 2.0f;
}
int main() { k<<<4, 256>>>(1000, 0, 0); }
""", "k")
    assert a.threads == 1000
