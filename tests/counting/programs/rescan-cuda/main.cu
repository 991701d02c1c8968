// One thread scans an array twice: DRAM traffic shows whether the array fits in the L2.
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void rescan(const float *a, int n, float *out) {
  float s = 0.f;
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < n; j += 8) s += a[j];  // one load per 32-byte sector
  *out = s;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  float *a, *out;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  rescan<<<1, 1>>>(a, n, out);
  return 0;
}
