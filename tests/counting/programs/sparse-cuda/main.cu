// Hand-countable CUDA program for ridgeline.counting tests: a grid whose work sits in a few
// blocks (a grid-stride loop over fewer items than threads) and a stencil whose edge blocks
// do less. Block sampling has to find both.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// threads below `active` iterate 100 times: 2 SP FLOPs per iteration
__global__ void busy_head(float *x, int active) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= active) return;
  float v = x[i];
  for (int k = 0; k < 100; k++) v = v * 0.999f + 0.5f;
  x[i] = v;
}

// 2D five-point average on an n x n grid; the outermost cells are left alone
__global__ void stencil(const float *in, float *out, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < 1 || c >= n - 1 || r < 1 || r >= n - 1) return;
  out[r * n + c] = 0.2f * (in[r * n + c] + in[r * n + c - 1] + in[r * n + c + 1] +
                           in[(r - 1) * n + c] + in[(r + 1) * n + c]);  // 5 SP FLOPs
}

int main(int argc, char **argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 4098, busy = argc > 2 ? atoi(argv[2]) : 513;
  int n = argc > 3 ? atoi(argv[3]) : 1024;
  float *x, *in, *out;
  cudaMalloc(&x, (size_t)blocks * 256 * sizeof(float));
  cudaMemset(x, 0, (size_t)blocks * 256 * sizeof(float));
  busy_head<<<blocks, 256>>>(x, busy * 256);
  cudaMalloc(&in, (size_t)n * n * sizeof(float));
  cudaMalloc(&out, (size_t)n * n * sizeof(float));
  cudaMemset(in, 0, (size_t)n * n * sizeof(float));
  stencil<<<dim3(n / 128, n), 128>>>(in, out, n);
  cudaDeviceSynchronize();
  printf("OK\n");
  return 0;
}
