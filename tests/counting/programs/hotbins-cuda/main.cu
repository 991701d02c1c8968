// A histogram of 64 bins: every block reads its own slice of the input and adds to the same
// 64 counters with global atomics. On a grid large enough to be sampled, the counters are
// 8 sectors that the first counted block makes dirty; the others update them in the L2.
// A second argument allocates that many counters (at least 64) of which the kernel still
// uses 64: the buffer's size no longer bounds the distinct sectors the launch touches.
#include <cstdio>
#include <cstdlib>

__global__ void histogram(const unsigned *in, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] & 63u], 1u);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4194304;
  const int nbins = argc > 2 && std::atoi(argv[2]) > 64 ? std::atoi(argv[2]) : 64;
  unsigned *h = (unsigned *)std::malloc(sizeof(unsigned) * n);
  for (int i = 0; i < n; ++i) h[i] = (unsigned)i * 2654435761u;
  unsigned *in, *bins;
  cudaMalloc(&in, sizeof(unsigned) * n);
  cudaMalloc(&bins, sizeof(unsigned) * nbins);
  cudaMemset(bins, 0, sizeof(unsigned) * nbins);
  cudaMemcpy(in, h, sizeof(unsigned) * n, cudaMemcpyHostToDevice);
  histogram<<<(n + 255) / 256, 256>>>(in, bins, n);
  unsigned out[64];
  cudaMemcpy(out, bins, sizeof out, cudaMemcpyDeviceToHost);
  std::printf("%u\n", out[0]);
  cudaFree(in);
  cudaFree(bins);
  std::free(h);
  return 0;
}
