// A 16-tap filter whose taps loop has a constant trip count and a body of several
// instructions: nvcc unrolls it whole, LLVM's default threshold leaves it rolled, and every
// rolled iteration adds an increment, a compare and address arithmetic to the counted
// integer operations. The FLOPs are the same either way.
#include <cstdio>
#include <cstdlib>
#define TAPS 16
__global__ void filter(float *y, const float *x, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < TAPS; t++) {
    int j = (i * 7 + t * 13) % n;  // gathered input, so no tap folds into the next
    float v = x[j] * w[t] + x[(j + t) % n];
    acc += v * v;
  }
  y[i] = acc;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *buf;  // x, then y, then the taps
  cudaMalloc(&buf, (2 * n + TAPS) * sizeof(float));
  cudaMemset(buf, 0, (2 * n + TAPS) * sizeof(float));
  filter<<<(n + 255) / 256, 256>>>(buf + n, buf, buf + 2 * n, n);
  cudaFree(buf);
  printf("done\n");
  return 0;
}
