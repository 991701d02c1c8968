"""Small kernels written for these tests (CUDA, OpenMP offload, OpenCL C)."""

CUDA = r"""
#include <cuda_runtime.h>
#include <cstdio>
#define BS 256
#define SQ(x) ((x) * (x))

__device__ float scale(float v, float a) { return a * v; }

template <typename T, int R>
__global__ void stencil(T *out, const T *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R && i < n - R) {
    T acc = 0;
    for (int k = -R; k <= R; k++) acc += in[i + k];
    out[i] = acc;
  }
}

__global__ void saxpy(float *__restrict__ y, const float *x, float a, int n, int iters) {
  __shared__ float tile[BS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int it = 0; it < iters; ++it) {
    acc += scale(x[i], a) + SQ(y[i]);
  }
  tile[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 0; s < 4; s++) acc += sqrtf(tile[(threadIdx.x + s) % BS]);
  atomicAdd(&y[0], acc);
  y[i * 4] = acc;
}

__global__ void gather(double *out, const double *in, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = i; j < n; j += blockDim.x * gridDim.x) out[j] = in[idx[j]] * 2.0;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  dim3 grid((n + BS - 1) / BS), block(BS);
  saxpy<<<grid, block>>>(y, x, 2.0f, n, 10);
  stencil<float, 2><<<(n + 127) / 128, 128, 0, 0>>>(y, x, n);
  gather<<<dim3(n / 64), 64>>>(nullptr, nullptr, nullptr, n);
  return 0;
}
"""

# one long pragma line (no continuation) is part of the test
_ADD_PRAGMA = ("#pragma omp target teams distribute parallel for thread_limit(256) "
               "map(to: b[0:n]) map(tofrom: a[0:n])")
OPENMP = r"""
#include <omp.h>
#include <stdlib.h>

void add(float *a, const float *b, int n) {
  @ADD_PRAGMA@
  for (int i = 0; i < n; i++) a[i] += b[i];
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int m = atoi(argv[2]);
  float *a = (float *)malloc(sizeof(float) * n * m);
  double sum = 0;
  #pragma omp target data map(tofrom: a[0:n*m])
  {
    #pragma omp target teams distribute parallel for collapse(2) \
        reduction(+: sum)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        sum += a[i * m + j] * 0.5;
    #pragma omp target update from(a[0:n*m])
  }
  add(a, a, n);
  return (int)sum;
}
""".replace("@ADD_PRAGMA@", _ADD_PRAGMA)

OPENCL = r"""
#define TS 16
typedef float real;
float helper(float x) { return x * x; }
__kernel void mm(__global const real *A, __global const float *B, __global float *C,
                 __local float *tile, __constant float *coef, const int n) {
  int row = get_global_id(1);
  int col = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
  tile[get_local_id(0)] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  C[row * n + col] = helper(tile[get_local_id(0)]) + coef[0];
}
kernel void vec4(global float4 *v, uint n) { v[get_global_id(0)] *= (float4)(2.0f); }
"""
