// A later launch sized from an earlier kernel's results: flag marks every element, count
// adds the flags up on one thread, and use runs one block per 65536 flags. flag's grid
// (1M threads) is large enough to be sampled: with only the sampled blocks executed the
// count is far too small and use's grid would be empty.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void flag(int *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f[i] = 1;
}
__global__ void count(const int *f, int n, unsigned *c) {
  unsigned s = 0;
  for (int i = 0; i < n; i++) s += f[i];
  *c = s;
}
__global__ void use(float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = out[i] * 0.5f;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int *f;
  unsigned *c, h = 0;
  float *out;
  cudaMalloc(&f, n * sizeof(int));
  cudaMemset(f, 0, n * sizeof(int));
  cudaMalloc(&c, sizeof(unsigned));
  flag<<<(n + 255) / 256, 256>>>(f, n);
  count<<<1, 1>>>(f, n, c);
  cudaMemcpy(&h, c, sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned blocks = h / 65536;
  cudaMalloc(&out, (blocks + 1) * 256 * sizeof(float));
  cudaMemset(out, 0, (blocks + 1) * 256 * sizeof(float));
  use<<<blocks, 256>>>(out);
  printf("%u blocks\n", blocks);
  return 0;
}
