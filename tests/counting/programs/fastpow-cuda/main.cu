// powf under nvcc's -use_fast_math: the approximate __powf (a few instructions); a clang
// build of the same source does not take that nvcc flag and runs the full powf.
#include <cstdio>
#include <cstdlib>

__global__ void power(const float *x, float *y, float p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = powf(x[i], p);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  float *h = (float *)std::malloc(sizeof(float) * n);
  for (int i = 0; i < n; ++i) h[i] = 1.0f + (float)(i % 17) / 16.0f;
  float *x, *y;
  cudaMalloc(&x, sizeof(float) * n);
  cudaMalloc(&y, sizeof(float) * n);
  cudaMemcpy(x, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  power<<<(n + 127) / 128, 128>>>(x, y, argc > 2 ? (float)std::atof(argv[2]) : 2.5f, n);
  cudaMemcpy(h, y, sizeof(float) * n, cudaMemcpyDeviceToHost);
  std::printf("%f\n", h[3]);
  cudaFree(x);
  cudaFree(y);
  std::free(h);
  return 0;
}
