/* ridgeline CPU execution layer: 8-bit floating point, written for ridgeline (not NVIDIA's
 * header). Storage is one byte in the e4m3 or e5m2 layout; conversions (round to nearest
 * even, saturation as asked: the types' constructors saturate) run in the uninstrumented
 * runtime (__rl_to_fp8 / __rl_from_fp8 in rl_cuda_rt.cpp), as the GPU converts in one
 * instruction. */
#pragma once
#include "../rl_cuda.h"
#include "cuda_bf16.h"

extern "C" {
unsigned char __rl_to_fp8(double x, int sat, int kind);
double __rl_from_fp8(unsigned char v, int kind);
}

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };

RL_FN __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return __rl_to_fp8(x, s, k); }
RL_FN __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return __rl_to_fp8(x, s, k); }
RL_FN __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return __rl_to_fp8((double)(__half)x, s, k); }
RL_FN __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return __rl_to_fp8((double)__rl_bf2f(x.x), s, k); }
RL_FN __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return (__nv_fp8x2_storage_t)(__rl_to_fp8(x.x, s, k) | __rl_to_fp8(x.y, s, k) << 8); }
RL_FN __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return (__nv_fp8x2_storage_t)(__rl_to_fp8(x.x, s, k) | __rl_to_fp8(x.y, s, k) << 8); }
RL_FN __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return (__nv_fp8x2_storage_t)(__nv_cvt_halfraw_to_fp8(__half_raw::raw(x.x), s, k) | __nv_cvt_halfraw_to_fp8(__half_raw::raw(x.y), s, k) << 8); }
RL_FN __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x, __nv_saturation_t s, __nv_fp8_interpretation_t k) { return (__nv_fp8x2_storage_t)(__rl_to_fp8(__rl_bf2f(x.x), s, k) | __rl_to_fp8(__rl_bf2f(x.y), s, k) << 8); }
RL_FN __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t v, __nv_fp8_interpretation_t k) { return __half_raw((__half)__rl_from_fp8(v, k)); }
RL_FN __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t v, __nv_fp8_interpretation_t k) {
  return __half2_raw{__half_raw((__half)__rl_from_fp8((unsigned char)v, k)).x, __half_raw((__half)__rl_from_fp8((unsigned char)(v >> 8), k)).x};
}

/* the scalar and vector types: construction saturates to the largest finite value */
#define RL_FP8(NAME, X2, X4, KIND)                                                                   \
  struct __attribute__((aligned(1))) NAME {                                                  \
    __nv_fp8_storage_t __x;                                                                  \
    NAME() = default;                                                                        \
    explicit NAME(double f) : __x(__rl_to_fp8(f, 1, KIND)) {}                                \
    explicit NAME(float f) : __x(__rl_to_fp8(f, 1, KIND)) {}                                 \
    explicit NAME(__half f) : __x(__rl_to_fp8((double)f, 1, KIND)) {}                        \
    explicit NAME(__nv_bfloat16 f) : __x(__rl_to_fp8((float)f, 1, KIND)) {}                  \
    explicit NAME(int v) : __x(__rl_to_fp8(v, 1, KIND)) {}                                   \
    explicit NAME(unsigned v) : __x(__rl_to_fp8(v, 1, KIND)) {}                              \
    explicit NAME(short v) : __x(__rl_to_fp8(v, 1, KIND)) {}                                 \
    explicit NAME(unsigned short v) : __x(__rl_to_fp8(v, 1, KIND)) {}                        \
    explicit NAME(long v) : __x(__rl_to_fp8((double)v, 1, KIND)) {}                          \
    explicit NAME(unsigned long v) : __x(__rl_to_fp8((double)v, 1, KIND)) {}                 \
    explicit NAME(long long v) : __x(__rl_to_fp8((double)v, 1, KIND)) {}                     \
    explicit NAME(unsigned long long v) : __x(__rl_to_fp8((double)v, 1, KIND)) {}            \
    explicit operator float() const { return (float)__rl_from_fp8(__x, KIND); }              \
    explicit operator double() const { return __rl_from_fp8(__x, KIND); }                    \
    explicit operator __half() const { return (__half)__rl_from_fp8(__x, KIND); }            \
    explicit operator __nv_bfloat16() const { return __nv_bfloat16((float)__rl_from_fp8(__x, KIND)); } \
    explicit operator bool() const { return (__x & 0x7f) != 0; }                             \
    explicit operator int() const { return (int)__rl_from_fp8(__x, KIND); }                  \
    explicit operator unsigned() const { return (unsigned)__rl_from_fp8(__x, KIND); }        \
    explicit operator long long() const { return (long long)__rl_from_fp8(__x, KIND); }      \
    operator __half_raw() const { return __half_raw((__half)__rl_from_fp8(__x, KIND)); }     \
  };                                                                                         \
  struct __attribute__((aligned(2))) X2 {                                              \
    __nv_fp8x2_storage_t __x;                                                                \
    X2() = default;                                                                    \
    explicit X2(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, (__nv_fp8_interpretation_t)KIND)) {} \
    explicit X2(double2 f) : __x(__nv_cvt_double2_to_fp8x2(f, __NV_SATFINITE, (__nv_fp8_interpretation_t)KIND)) {} \
    explicit operator float2() const { return float2{(float)__rl_from_fp8((unsigned char)__x, KIND), (float)__rl_from_fp8((unsigned char)(__x >> 8), KIND)}; } \
  };                                                                                         \
  struct __attribute__((aligned(4))) X4 {                                              \
    __nv_fp8x4_storage_t __x;                                                                \
    X4() = default;                                                                    \
    explicit X4(float4 f) : __x((unsigned)__rl_to_fp8(f.x, 1, KIND) | (unsigned)__rl_to_fp8(f.y, 1, KIND) << 8 | (unsigned)__rl_to_fp8(f.z, 1, KIND) << 16 | (unsigned)__rl_to_fp8(f.w, 1, KIND) << 24) {} \
    explicit operator float4() const { return float4{(float)__rl_from_fp8((unsigned char)__x, KIND), (float)__rl_from_fp8((unsigned char)(__x >> 8), KIND), (float)__rl_from_fp8((unsigned char)(__x >> 16), KIND), (float)__rl_from_fp8((unsigned char)(__x >> 24), KIND)}; } \
  };
RL_FP8(__nv_fp8_e4m3, __nv_fp8x2_e4m3, __nv_fp8x4_e4m3, 0)
RL_FP8(__nv_fp8_e5m2, __nv_fp8x2_e5m2, __nv_fp8x4_e5m2, 1)
#undef RL_FP8
typedef __nv_fp8_e4m3 nv_fp8_e4m3;
typedef __nv_fp8_e5m2 nv_fp8_e5m2;
typedef __nv_fp8x2_e4m3 nv_fp8x2_e4m3;
typedef __nv_fp8x2_e5m2 nv_fp8x2_e5m2;
typedef __nv_fp8x4_e4m3 nv_fp8x4_e4m3;
typedef __nv_fp8x4_e5m2 nv_fp8x4_e5m2;
