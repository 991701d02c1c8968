// Float atomics: on shared memory a CAS loop around an FADD (a counted FLOP on the GPU),
// on global memory a native reduction (not a FLOP).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void atom(float *out) {
  __shared__ float s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0.f;
  __syncthreads();
  atomicAdd(&s[threadIdx.x & 31], 1.0f);  // 1 FLOP per thread
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], s[threadIdx.x]);  // 0 FLOPs
}

int main() {
  float *out, h[32];
  cudaMalloc(&out, 32 * sizeof(float));
  cudaMemset(out, 0, 32 * sizeof(float));
  atom<<<64, 256>>>(out);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%f %s\n", h[0], h[0] == 512.0f ? "PASS" : "FAIL");
  return 0;
}
