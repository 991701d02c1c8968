// Asks for a 4 GiB host buffer and uses it without checking (flip-cuda's 1024^3 floats
// times five buffers do the same): under a smaller address-space limit malloc returns NULL
// and the first store crashes. The count must say "memory", not "crash".
#include <cstdio>
#include <cstdlib>
__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}
int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atoll(argv[1]) : (size_t)1 << 30;
  volatile float *h = (volatile float *)malloc(n * sizeof(float));
  h[0] = 1.0f;
  float *d;
  cudaMalloc(&d, 1024 * sizeof(float));
  fill<<<4, 256>>>(d, 1024);
  printf("%g\n", h[0]);
  free((void *)h);
  cudaFree(d);
  return 0;
}
