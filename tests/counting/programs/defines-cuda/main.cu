// The precision comes from the build: the Makefile asks for single precision, a build
// without -DSINGLE_PRECISION (md-cuda's profiled one) computes in double.
#include <cstdio>
#include <cstdlib>
#ifdef SINGLE_PRECISION
typedef float real;
#else
typedef double real;
#endif
__global__ void axpy(real *y, const real *x, real a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  real *x, *y;
  cudaMalloc(&x, n * sizeof(real));
  cudaMalloc(&y, n * sizeof(real));
  cudaMemset(x, 0, n * sizeof(real));
  cudaMemset(y, 0, n * sizeof(real));
  axpy<<<(n + 255) / 256, 256>>>(y, x, (real)2, n);
  cudaFree(x);
  cudaFree(y);
  printf("%zu-byte reals\n", sizeof(real));
  return 0;
}
