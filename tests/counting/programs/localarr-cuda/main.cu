// Per-thread histogram of K ints indexed by data: the GPU keeps it in local memory. Each
// thread zeroes it (K stores), makes R read-modify-write updates and sums it (K loads).
#include <cstdio>
#include <cstdlib>
#define K 256
#define R 64
__global__ void hist(const unsigned *keys, unsigned *out) {
  unsigned h[K];
  for (int i = 0; i < K; i++) h[i] = 0;
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, x = keys[t];
  for (int i = 0; i < R; i++) {
    h[x & (K - 1)] += i;
    x = x * 1664525u + 1013904223u;
  }
  unsigned s = 0;
  for (int i = 0; i < K; i++) s += h[i] * (i + 1);
  out[t] = s;
}
int main(int argc, char **argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 1024;
  size_t n = (size_t)blocks * 128;
  unsigned *hk = (unsigned *)malloc(n * 4), *keys, *out;
  for (size_t i = 0; i < n; i++) hk[i] = (unsigned)(i * 2654435761u);
  cudaMalloc(&keys, n * 4);
  cudaMalloc(&out, n * 4);
  cudaMemcpy(keys, hk, n * 4, cudaMemcpyHostToDevice);
  hist<<<blocks, 128>>>(keys, out);
  cudaMemcpy(hk, out, n * 4, cudaMemcpyDeviceToHost);
  printf("%u\n", hk[n - 1]);
  cudaFree(keys); cudaFree(out); free(hk);
  return 0;
}
