/* ridgeline: minimal half-precision declarations for parsing (not a CUDA header). */
#ifndef __RIDGELINE_FP16_H
#define __RIDGELINE_FP16_H
#include "__ridgeline_cuda.h"
struct __half {
  unsigned short __x;
  __host__ __device__ __half() {}
  __host__ __device__ __half(float);
  __host__ __device__ operator float() const;
};
struct __half2 { __half x, y; };
struct __nv_bfloat16 {
  unsigned short __x;
  __host__ __device__ __nv_bfloat16() {}
  __host__ __device__ __nv_bfloat16(float);
  __host__ __device__ operator float() const;
};
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __half half;
typedef __half2 half2;
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __halves2half2(__half, __half);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half __low2half(__half2);
__host__ __device__ __half __high2half(__half2);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ float __bfloat162float(__nv_bfloat16);
__device__ __half __hadd(__half, __half);
__device__ __half __hsub(__half, __half);
__device__ __half __hmul(__half, __half);
__device__ __half __hdiv(__half, __half);
__device__ __half __hfma(__half, __half, __half);
__device__ __half2 __hadd2(__half2, __half2);
__device__ __half2 __hmul2(__half2, __half2);
__device__ __half2 __hfma2(__half2, __half2, __half2);
__device__ __half hsqrt(__half);
__device__ __half hexp(__half);
__device__ bool __hgt(__half, __half);
__device__ bool __hlt(__half, __half);
__host__ __device__ __half operator+(__half, __half);
__host__ __device__ __half operator-(__half, __half);
__host__ __device__ __half operator*(__half, __half);
__host__ __device__ __half operator/(__half, __half);
#endif
