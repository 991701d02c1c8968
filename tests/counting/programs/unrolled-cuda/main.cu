// A 3x3 weight table filled by a nested loop around a hashing helper, then read at fixed
// places. The CPU build keeps the table on the stack, indexed by the loop counters; nvcc
// unrolls both loops and keeps the nine weights in registers: no local memory on the GPU.
#include <cstdio>
#include <cstdlib>

template <int ROUNDS>
__device__ float mix(unsigned a, unsigned b) {
  for (int k = 0; k < ROUNDS; k++) {
    a += ((b << 4) + 0xA341316Cu) ^ (b + 0x9E3779B9u) ^ ((b >> 5) + 0xC8013EA4u);
    b += ((a << 4) + 0xAD90777Du) ^ (a + 0x9E3779B9u) ^ ((a >> 5) + 0x7E95761Eu);
  }
  return (float)(a ^ b) * 2.3283064e-10f;
}

__global__ void weights(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float w[3][3];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) w[r][c] = mix<4>(i + r, __float_as_uint(x[i]) + c);
  y[i] = x[i] * (w[0][0] + w[1][1] + w[2][2]) + w[0][1] * w[1][0] + w[0][2] * w[2][0] +
         w[1][2] * w[2][1];
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 262144;
  float *h = (float *)std::malloc(sizeof(float) * n);
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 13);
  float *x, *y;
  cudaMalloc(&x, sizeof(float) * n);
  cudaMalloc(&y, sizeof(float) * n);
  cudaMemcpy(x, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  weights<<<(n + 255) / 256, 256>>>(x, y, n);
  cudaMemcpy(h, y, sizeof(float) * n, cudaMemcpyDeviceToHost);
  std::printf("%f\n", h[1]);
  cudaFree(x);
  cudaFree(y);
  std::free(h);
  return 0;
}
