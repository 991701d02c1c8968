// A chain of blocks: block b waits until block b-1 has published its results (a flag in
// global memory, read through volatile, as sync-free solvers do), then does its own part.
// Run in block order this finishes; a sample that runs the last block second waits forever.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void chain(const float *x, float *y, int *flag, int n) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0 && b > 0) {
    const volatile int *f = flag;
    while (f[b - 1] == 0) {}
  }
  __syncthreads();
  int i = b * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;  // one FMA: 2 FLOPs per element
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    volatile int *f = flag;
    f[b] = 1;
  }
}

int main(int argc, char **argv) {
  const int blocks = argc > 1 ? atoi(argv[1]) : 2048, threads = 256, n = blocks * threads;
  float *x, *y;
  int *flag;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc((void **)&flag, blocks * sizeof(int));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(flag, 0, blocks * sizeof(int));
  chain<<<blocks, threads>>>(x, y, flag, n);
  cudaDeviceSynchronize();
  float last = -1.0f;
  cudaMemcpy(&last, y + n - 1, sizeof(float), cudaMemcpyDeviceToHost);
  printf("y[n-1] = %.1f\n", last);
  cudaFree(x);
  cudaFree(y);
  cudaFree(flag);
  return last == 1.0f ? 0 : 1;
}
