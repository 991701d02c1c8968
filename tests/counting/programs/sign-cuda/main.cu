// Signs of a row of values, two ways: as a product with (1 - 2 * negative) (an I2F and an
// FMUL per value in nvcc's SASS) and as a select of -s and s (an FSEL: no FLOP).
#include <cstdio>
#include <cstdlib>

__global__ void product_sign(const float *x, float *out, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sign = 1.0f;
  for (int j = 0; j < len; j++) {
    char sq = x[i * len + j] < 0;
    sign = sign * (1 - sq * 2);
  }
  out[i] = sign;
}

__global__ void select_sign(const float *x, float *out, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sign = 1.0f;
  for (int j = 0; j < len; j++)
    sign = x[i * len + j] < 0 ? -sign : sign;
  out[i] = sign;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int len = argc > 2 ? std::atoi(argv[2]) : 8;
  float *h = (float *)std::malloc(sizeof(float) * n * len);
  for (int i = 0; i < n * len; ++i) h[i] = (i % 3) - 1.0f;
  float *x, *out;
  cudaMalloc(&x, sizeof(float) * n * len);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMemcpy(x, h, sizeof(float) * n * len, cudaMemcpyHostToDevice);
  product_sign<<<(n + 127) / 128, 128>>>(x, out, n, len);
  select_sign<<<(n + 127) / 128, 128>>>(x, out, n, len);
  cudaMemcpy(h, out, sizeof(float) * n, cudaMemcpyDeviceToHost);
  std::printf("%f\n", h[0]);
  cudaFree(x);
  cudaFree(out);
  std::free(h);
  return 0;
}
