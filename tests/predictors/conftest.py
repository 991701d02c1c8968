"""Small CUDA / OpenMP programs written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

STENCIL = r"""
#include <cstdlib>
#define RADIUS 2
const int BLOCK = 128;

__global__ void stencil(const double *in, double *out, int n, int steps)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = 0.0;
  for (int s = 0; s < steps; s++) {
    for (int k = -RADIUS; k <= RADIUS; k++) {
      acc += 0.5 * in[i];
    }
  }
  out[i] = acc;
}

static void run(int n, int steps, double *a, double *b)
{
  stencil<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(a, b, n, steps);
}

int main(int argc, char **argv)
{
  int n = 4096;
  int steps = 3;
  if (argc > 1) {
    n = atoi(argv[1]);
  }
  if (argc > 2) steps = atoi(argv[2]);
  double *a, *b;
  run(n, steps, a, b);
  return 0;
}
"""

OMP = r"""
#include <cstdlib>
int main(int argc, char *argv[])
{
  const int n = atoi(argv[1]);
  float *x = (float *) malloc(n * sizeof(float));
  float *y = (float *) malloc(n * sizeof(float));
  #pragma omp target teams distribute parallel for thread_limit(256)
  for (int i = 0; i < n; i++) {
    y[i] = 2.0f * x[i] + y[i];
  }
  return 0;
}
"""


@pytest.fixture
def stencil_dir(tmp_path: Path) -> Path:
    d = tmp_path / "stencil-cuda"
    d.mkdir()
    (d / "main.cu").write_text(STENCIL)
    return d


@pytest.fixture
def omp_dir(tmp_path: Path) -> Path:
    d = tmp_path / "axpy-omp"
    d.mkdir()
    (d / "main.cpp").write_text(OMP)
    return d
