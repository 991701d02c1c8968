// Reserves a large device buffer (argv[1] GiB, as a program sized for an 80 GB GPU does) and
// touches 100 MiB of it: the count must go through whatever the host's RAM, as on the GPU.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * p[i] + 1.0f;
}
int main(int argc, char **argv) {
  size_t gib = argc > 1 ? (size_t)atoll(argv[1]) : 16;
  float *d;
  if (cudaMalloc(&d, gib << 30) != cudaSuccess) { printf("cudaMalloc failed\n"); return 1; }
  cudaMemset(d, 0, (size_t)100 << 20);
  scale<<<4, 256>>>(d, 1024);
  float h[4];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%g %zu GiB\n", h[0], gib);
  cudaFree(d);
  return 0;
}
