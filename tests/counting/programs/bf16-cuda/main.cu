// ridgeline test program: bfloat16 storage, conversions and arithmetic. The kernel "ok" is
// launched only when the results are right (rounding to nearest even included).
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>

__global__ void axpy_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, __nv_bfloat16 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hadd(__hmul(a[i], b[i]), a[i]);  // 2 BF16 FLOPs (half precision)
}

__global__ void widen(const __nv_bfloat162 *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2 f = __bfloat1622float2(a[i]);
    out[i] = f.x * f.y + 1.0f;  // one FP32 multiply-add
  }
}

__global__ void ok() {}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  __nv_bfloat16 *a, *b, *c;
  __nv_bfloat162 *p;
  float *out;
  cudaMallocManaged(&a, n * sizeof(__nv_bfloat16));
  cudaMallocManaged(&b, n * sizeof(__nv_bfloat16));
  cudaMallocManaged(&c, n * sizeof(__nv_bfloat16));
  cudaMallocManaged(&p, n * sizeof(__nv_bfloat162));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; i++) {
    a[i] = __float2bfloat16(1.5f);
    b[i] = __float2bfloat16(2.0f);
    p[i] = __floats2bfloat162_rn(3.0f, 0.5f);
  }
  axpy_bf16<<<(n + 255) / 256, 256>>>(a, b, c, n);
  widen<<<(n + 255) / 256, 256>>>(p, out, n);
  int bad = 0;
  for (int i = 0; i < n; i++) bad |= __bfloat162float(c[i]) != 4.5f || out[i] != 2.5f;
  // 1 + 2^-8 is halfway between two bfloat16 values: rounds to even (1.0)
  bad |= __bfloat162float(__float2bfloat16(1.00390625f)) != 1.0f;
  bad |= __bfloat162float(__float2bfloat16(1.01171875f)) != 1.015625f;
  bad |= sizeof(__nv_bfloat16) != 2 || sizeof(__nv_bfloat162) != 4;
  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
