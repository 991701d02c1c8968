// Hand-countable CUDA program for ridgeline.counting tests; checks its own results.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];  // 2 SP FLOPs, 8 bytes loaded, 4 stored
}

template <int B>
__global__ void reduce(const float *x, float *out, int n) {
  __shared__ float s[B];
  int t = threadIdx.x, i = blockIdx.x * B + t;
  s[t] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int k = B / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];  // B - 1 adds per block
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}

__global__ void warpsum(const double *x, double *out) {
  double v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = v;
}

__global__ void scale_dyn(float *y, int n) {
  extern __shared__ float buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? y[i] : 0.f;
  __syncthreads();
  if (i < n) y[i] = buf[blockDim.x - 1 - t] * 0.5f;  // 1 SP FLOP
}

__global__ void idiv(const int *a, const int *d, int *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = a[i] / d[i] + a[i] / 4;  // one division by a run-time value
}

__global__ void fill(float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = 0.5f * i;  // stores only
}

// writes two tables, then reads back what it wrote (state and inc may alias: the load stays)
__global__ void seed(unsigned long long *state, unsigned long long *inc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    state[i] = 0;
    inc[i] = 2ull * i + 1;
    state[i] = state[i] * 6364136223846793005ull + inc[i];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 65536;
  float *x, *y, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  float *h = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h[i] = 1.0f;
  cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(float));
  for (int r = 0; r < 3; r++) saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  reduce<256><<<n / 256, 256>>>(y, out, n);
  float res;
  cudaMemcpy(&res, out, sizeof(float), cudaMemcpyDeviceToHost);
  double *dx, *dout, hd[64], ho[2];
  cudaMalloc(&dx, 64 * sizeof(double));
  cudaMalloc(&dout, 2 * sizeof(double));
  for (int i = 0; i < 64; i++) hd[i] = i;
  cudaMemcpy(dx, hd, sizeof hd, cudaMemcpyHostToDevice);
  warpsum<<<1, 64>>>(dx, dout);
  cudaMemcpy(ho, dout, sizeof ho, cudaMemcpyDeviceToHost);
  scale_dyn<<<n / 128, 128, 128 * sizeof(float)>>>(y, n);
  cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int *ia, *id, *io, hi[3] = {0, 0, 0};
  cudaMalloc(&ia, n * sizeof(int));
  cudaMalloc(&id, n * sizeof(int));
  cudaMalloc(&io, n * sizeof(int));
  int *hb = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) hb[i] = 3 + i % 5;
  cudaMemcpy(id, hb, n * sizeof(int), cudaMemcpyHostToDevice);
  for (int i = 0; i < n; i++) hb[i] = 60;
  cudaMemcpy(ia, hb, n * sizeof(int), cudaMemcpyHostToDevice);
  idiv<<<(n + 255) / 256, 256>>>(ia, id, io, n);
  cudaMemcpy(hi, io, sizeof hi, cudaMemcpyDeviceToHost);
  float *f;
  unsigned long long *st, *in, hs[2];
  cudaMalloc(&f, n * sizeof(float));
  cudaMalloc(&st, n * sizeof(unsigned long long));
  cudaMalloc(&in, n * sizeof(unsigned long long));
  fill<<<(n + 255) / 256, 256>>>(f, n);
  seed<<<(n + 255) / 256, 256>>>(st, in, n);
  float hf[2];
  cudaMemcpy(hf, f + 2, sizeof hf, cudaMemcpyDeviceToHost);
  cudaMemcpy(hs, st, sizeof hs, cudaMemcpyDeviceToHost);
  int ok = hf[0] == 1.0f && hs[1] == 3 && hi[0] == 35 && hi[1] == 30 && hi[2] == 27 && res == 7.0f * n && ho[0] == 496.0 && ho[1] == 1520.0 && h[0] == 3.5f;
  printf("sum=%f warps=%f %f y0=%f %s\n", res, ho[0], ho[1], h[0], ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
