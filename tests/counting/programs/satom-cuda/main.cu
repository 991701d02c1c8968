// Float atomics: on shared memory a CAS loop around an FADD (a counted FLOP on the GPU per
// attempt; the threads adding to one address at once retry), on global memory a native
// reduction (not a FLOP).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void atom(float *out) {
  __shared__ float s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0.f;
  __syncthreads();
  atomicAdd(&s[threadIdx.x & 31], 1.0f);  // 8 threads (one per warp) per address
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], s[threadIdx.x]);  // 0 FLOPs
}

__global__ void single(double *out) {
  __shared__ double one;
  if (threadIdx.x == 0) one = 0.0;
  __syncthreads();
  atomicAdd(&one, 1.0);  // every thread of the block on one address
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = one;
}

int main() {
  float *out, h[32];
  cudaMalloc(&out, 32 * sizeof(float));
  cudaMemset(out, 0, 32 * sizeof(float));
  atom<<<128, 256>>>(out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  double *d;
  cudaMalloc(&d, 4 * sizeof(double));
  single<<<4, 256>>>(d);
  printf("%f %s\n", h[0], h[0] == 1024.0f ? "PASS" : "FAIL");
  return 0;
}
