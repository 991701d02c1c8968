// Double divisions whose numerator is zero for every other element: on the GPU those leave
// the division's fast path for the general routine (more FLOPs), the others do not. With a
// third argument, a kernel launched three times zeroes every numerator on its last launch.
#include <cstdio>
#include <cstdlib>
__global__ void ratio(const double *x, double *y, double d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / d;
}
__global__ void fill(double *x, int last, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && last) x[i] = 0.0;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  double *h = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) h[i] = (i % 2) ? 1.0 + i : 0.0;
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, h, n * sizeof(double), cudaMemcpyHostToDevice);
  if (argc > 3)
    for (int r = 0; r < 3; r++) fill<<<(n + 255) / 256, 256>>>(x, r == 2, n);
  ratio<<<(n + 255) / 256, 256>>>(x, y, argc > 2 ? atof(argv[2]) : 3.0, n);
  cudaMemcpy(h, y, n * sizeof(double), cudaMemcpyDeviceToHost);
  printf("%g\n", h[1]);
  cudaFree(x); cudaFree(y); free(h);
  return h[1] >= 0 ? 0 : 1;
}
