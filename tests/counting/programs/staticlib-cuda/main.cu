// The host fills its input through a static library built in ./vec by that folder's own
// makefile; the library's unused object calls a function nothing defines.
#include <cstdio>
#include <cstdlib>
#include "vec.h"
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  float *h = (float *)malloc(2 * n * sizeof(float));
  vec_fill(h, 2 * n, 0.5f);
  float *d;
  cudaMalloc(&d, 2 * n * sizeof(float));
  cudaMemcpy(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(d + n, d, 2.0f, n);
  cudaMemcpy(h, d, 2 * n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", h[n]);
  cudaFree(d);
  free(h);
  return 0;
}
