// polyeval: each thread evaluates a degree-`terms` polynomial `iters` times on one float.
// Compute-bound: 2*terms*iters FLOP per 8 bytes moved.
// Usage: polyeval <n> <terms> <iters>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void polyeval(const float *in, float *out, int n, int terms, int iters)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  float acc = 0.0f;
  for (int it = 0; it < iters; it++) {
    float p = 1.0f;
    for (int k = 0; k < terms; k++) {
      p = p * x + 0.5f;
    }
    acc += p;
  }
  out[i] = acc;
}

int main(int argc, char *argv[])
{
  if (argc < 4) {
    printf("Usage: %s <n> <terms> <iters>\n", argv[0]);
    return 1;
  }
  const int n = atoi(argv[1]);
  const int terms = atoi(argv[2]);
  const int iters = atoi(argv[3]);
  const int threads = 128;
  const int blocks = (n + threads - 1) / threads;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  polyeval<<<blocks, threads>>>(in, out, n, terms, iters);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
