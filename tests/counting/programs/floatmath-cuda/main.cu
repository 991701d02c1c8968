// Float arguments to math functions named without the f suffix and without <math.h>
// (ced-cuda's sobel kernel: hypot and atan2 of float sums). CUDA's headers resolve them to
// the float functions, so the GPU runs hypotf and atan2f: single precision, no double work.
#include <cstdio>
#include <cstdlib>
__global__ void polar(float *r, float *a, const float *x, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    r[i] = hypot(x[i], y[i]);
    a[i] = atan2(y[i], x[i]);
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *buf;  // x, y, r, a in one buffer
  cudaMalloc(&buf, 4 * n * sizeof(float));
  cudaMemset(buf, 0, 2 * n * sizeof(float));
  polar<<<(n + 255) / 256, 256>>>(buf + 2 * n, buf + 3 * n, buf, buf + n, n);
  cudaFree(buf);
  printf("done\n");
  return 0;
}
