#include <cstdio>
#include <cstdlib>
#include <vector>
#include "scale.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  std::vector<float> h(n, 1.0f);
  float *x, *y;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  launch_scale(2.0f, x, y, n);
  cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("checksum %.1f\n", host_checksum(h.data(), n));
  cudaFree(x);
  cudaFree(y);
  return 0;
}
