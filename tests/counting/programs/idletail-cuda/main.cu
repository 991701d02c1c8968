// one launch, then a long stretch of host-only work (a CPU reference, a result check)
#include <cuda_runtime.h>
#include <cstdio>
#include <unistd.h>
__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}
int main() {
  const int n = 1024;
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  fill<<<n / 256, 256>>>(p, n);
  cudaDeviceSynchronize();
  printf("launched\n");
  fflush(stdout);
  sleep(120);
  cudaFree(p);
  return 0;
}
