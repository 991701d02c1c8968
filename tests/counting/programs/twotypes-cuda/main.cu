// One template kernel launched alike for float, then for double, then another kernel: a
// profiler lists scale twice with the same launch shape.
#include <cstdio>
#include <cstdlib>
template <typename T> __global__ void scale(T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}
__global__ void tail(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
template <typename T> void run(int n) {
  T *x;
  cudaMalloc(&x, n * sizeof(T));
  cudaMemset(x, 0, n * sizeof(T));
  for (int r = 0; r < 2; r++) scale<T><<<(n + 255) / 256, 256>>>(x, (T)2, n);
  cudaFree(x);
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  run<float>(n);
  run<double>(n);
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  tail<<<(n + 255) / 256, 256>>>(y, n);
  cudaFree(y);
  printf("done\n");
  return 0;
}
