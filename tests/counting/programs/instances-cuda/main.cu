// Template instantiations of one kernel, launched from one site in a host template, and a
// host that times itself with OpenMP (the Makefile builds it with -Xcompiler -fopenmp).
#include <cstdio>
#include <cstdlib>
#include <omp.h>
#include <cuda_runtime.h>

template <typename T>
__global__ void scale(T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a;
}

template <typename T>
void run(int n) {
  T *d;
  cudaMalloc((void **)&d, n * sizeof(T));
  cudaMemset(d, 0, n * sizeof(T));
  scale<<<(n + 255) / 256, 256>>>(d, (T)2, n);
  cudaDeviceSynchronize();
  cudaFree(d);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  double t0 = omp_get_wtime();
  run<int>(n);
  run<double>(n);
  run<float>(n);
  printf("%d procs, %.3f s\n", omp_get_num_procs(), omp_get_wtime() - t0);
  return 0;
}
