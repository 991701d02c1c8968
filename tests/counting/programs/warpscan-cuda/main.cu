// A warp-synchronous exclusive scan through volatile shared memory (warp_scan.h, no
// __syncwarp). Every thread scans a 1, so
// its prefix is its lane; it then adds 1.0f prefix times and stores its prefix as an index.
// Run lane by lane instead of in lockstep, the prefixes come out larger than the lane and
// the stores leave the output array. Lane 5 then hands its prefix to the block through
// shared memory: 5 more additions per thread.
#include <cstdio>
#include <cstdlib>
#define WARP_SCAN_FN __device__
#include "warp_scan.h"

__global__ void scan(float *acc, unsigned *pos, int n) {
  __shared__ unsigned s[2 * 256];
  volatile __shared__ unsigned five;
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = warp_scan(1u, s, threadIdx.x);
  float a = 0.0f;
  for (unsigned k = 0; k < p; k++) a += 1.0f;
  // one lane stores (a divergent volatile access), the barrier makes it visible to all
  if (threadIdx.x == 5) five = p;
  __syncthreads();
  const unsigned f = *(const unsigned *)&five;  // a plain read: the barrier orders it
  for (unsigned k = 0; k < f; k++) a += 1.0f;
  if (g < n) {
    acc[g] = a;
    pos[(g & ~31) + p] = p;
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *acc;
  unsigned *pos;
  cudaMalloc(&acc, n * sizeof(float));
  cudaMalloc(&pos, n * sizeof(unsigned));
  scan<<<(n + 255) / 256, 256>>>(acc, pos, n);
  unsigned *h = (unsigned *)malloc(n * sizeof(unsigned));
  cudaMemcpy(h, pos, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += h[i] != (unsigned)(i & 31);
  printf("%s\n", bad ? "FAIL" : "PASS");
  free(h);
  cudaFree(acc);
  cudaFree(pos);
  return bad ? 1 : 0;
}
