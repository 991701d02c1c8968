// Work one thread of each block does alone: a prefix sum that lane 0 walks serially over
// n values, and the same walk before a barrier the block then waits at. The other threads
// add one value each. The launch lasts as long as the walking thread takes; its warp issues
// the walk's instructions for all 32 lanes.
#include <cstdio>
#include <cstdlib>

__global__ void walk(const float *in, float *out, int n) {
  int t = threadIdx.x;
  if (t == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      acc = acc * 0.5f + in[i];
      out[blockIdx.x * n + i] = acc;
    }
  } else {
    out[blockIdx.x * n + t] += in[t];
  }
}

__global__ void walk_then_wait(const float *in, float *out, int n) {
  __shared__ float total;
  if (threadIdx.x == 0) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      acc = acc * 0.5f + in[i];
      out[blockIdx.x * n + i] = acc;
    }
    total = acc;
  }
  __syncthreads();
  out[blockIdx.x * n + threadIdx.x] += total;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int blocks = 4, threads = 64;
  float *h = (float *)std::malloc(sizeof(float) * n);
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 7);
  float *in, *out;
  cudaMalloc(&in, sizeof(float) * n);
  cudaMalloc(&out, sizeof(float) * n * blocks);
  cudaMemset(out, 0, sizeof(float) * n * blocks);
  cudaMemcpy(in, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  walk<<<blocks, threads>>>(in, out, n);
  walk_then_wait<<<blocks, threads>>>(in, out, n);
  float r;
  cudaMemcpy(&r, out + n - 1, sizeof r, cudaMemcpyDeviceToHost);
  std::printf("%f\n", r);
  cudaFree(in);
  cudaFree(out);
  std::free(h);
  return 0;
}
