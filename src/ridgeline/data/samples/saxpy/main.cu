// saxpy: y = a*x + y over n floats. Bandwidth-bound on every GPU (2 FLOP per 12 bytes).
// Usage: saxpy [n] [repeat]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void saxpy(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char *argv[])
{
  const int n = (argc > 1) ? atoi(argv[1]) : 1 << 24;
  const int repeat = (argc > 2) ? atoi(argv[2]) : 10;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  dim3 block(BLOCK_SIZE);
  dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE);
  for (int r = 0; r < repeat; r++)
    saxpy<<<grid, block>>>(n, 2.0f, x, y);
  cudaDeviceSynchronize();
  printf("done\n");
  cudaFree(x);
  cudaFree(y);
  return 0;
}
