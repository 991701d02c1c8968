// fills a buffer, then the host dies before its second kernel: the first launch is counted,
// the second never happens
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * i;
}
__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 0.5f;
}
int main() {
  const int n = 1024;
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  fill<<<n / 256, 256>>>(p, n);
  cudaDeviceSynchronize();
  printf("filled\n");
  fflush(stdout);
  abort();
  scale<<<n / 256, 256>>>(p, n);
  cudaDeviceSynchronize();
  cudaFree(p);
  return 0;
}
