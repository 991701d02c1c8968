// one launch, then a long stretch of host-only work (a CPU reference, a result check)
#include <cuda_runtime.h>
#include <cstdio>
#include <unistd.h>
__global__ void fill(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 7; }
int main() {
  int *out = nullptr;
  cudaMalloc(&out, 4096 * sizeof(int));
  fill<<<16, 256>>>(out);
  cudaDeviceSynchronize();
  puts("launched; checking on the host");
  fflush(stdout);
  sleep(120);  // the host side that idle_stop cuts short
  cudaFree(out);
  return 0;
}
