// A seven-point moving average: each thread reads x[i - 3] .. x[i + 3]. The taps' loop has a
// constant trip count and is unrolled; on the GPU the seven loads share one address, each
// carrying its constant offset, so the address arithmetic per thread is the same for three
// taps as for seven.
#include <cstdio>
#include <cstdlib>
#define R 3
__global__ void blur(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + R;
  if (i >= n - R) return;
  float s = 0.0f;
  for (int k = -R; k <= R; k++) s += x[i + k];
  y[i] = s * (1.0f / (2 * R + 1));
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1030;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  blur<<<(n - 2 * R + 255) / 256, 256>>>(y, x, n);
  cudaFree(x);
  cudaFree(y);
  printf("done\n");
  return 0;
}
