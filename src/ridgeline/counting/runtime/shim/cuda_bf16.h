/* ridgeline CPU execution layer: bfloat16, written for ridgeline (not NVIDIA's header).
 * Storage is the upper 16 bits of an IEEE float (round to nearest even). Arithmetic runs in
 * the uninstrumented runtime in float and is rounded back to bfloat16; its FLOPs are counted
 * as half precision by name (mathops.py: __rl_bf16_*), as the GPU's BF16 HADD/HMUL/HFMA. */
#pragma once
#include "../rl_cuda.h"

extern "C" {
unsigned short __rl_f2bf(float f);
float __rl_bf2f(unsigned short h);
unsigned short __rl_bf16_add(unsigned short a, unsigned short b);
unsigned short __rl_bf16_sub(unsigned short a, unsigned short b);
unsigned short __rl_bf16_mul(unsigned short a, unsigned short b);
unsigned short __rl_bf16_div(unsigned short a, unsigned short b);
unsigned short __rl_bf16_fma(unsigned short a, unsigned short b, unsigned short c);
}

struct __attribute__((aligned(2))) __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(__rl_f2bf(f)) {}
  __nv_bfloat16(double f) : __x(__rl_f2bf((float)f)) {}
  __nv_bfloat16(int i) : __x(__rl_f2bf((float)i)) {}
  operator float() const { return __rl_bf2f(__x); }
  static __nv_bfloat16 raw(unsigned short v) { __nv_bfloat16 h; h.__x = v; return h; }
};
struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat16 nv_bfloat16;
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };
RL_FN __nv_bfloat16 atomicAdd(__nv_bfloat16 *a, __nv_bfloat16 v) { __nv_bfloat16 o = *a; a->__x = __rl_bf16_add(o.__x, v.__x); return o; }
typedef __nv_bfloat162 nv_bfloat162;

#define RL_BF(N, OP, F)                                                                     \
  static inline __nv_bfloat16 N(__nv_bfloat16 a, __nv_bfloat16 b) {                        \
    return __nv_bfloat16::raw(F(a.__x, b.__x)); }                                          \
  static inline __nv_bfloat162 N##2(__nv_bfloat162 a, __nv_bfloat162 b) {                  \
    return __nv_bfloat162{N(a.x, b.x), N(a.y, b.y)}; }                                     \
  static inline __nv_bfloat16 operator OP(__nv_bfloat16 a, __nv_bfloat16 b) { return N(a, b); } \
  static inline __nv_bfloat162 operator OP(__nv_bfloat162 a, __nv_bfloat162 b) { return N##2(a, b); } \
  static inline __nv_bfloat16 &operator OP##=(__nv_bfloat16 &a, __nv_bfloat16 b) { return a = N(a, b); }
RL_BF(__hadd, +, __rl_bf16_add)
RL_BF(__hsub, -, __rl_bf16_sub)
RL_BF(__hmul, *, __rl_bf16_mul)
RL_BF(__hdiv, /, __rl_bf16_div)
#undef RL_BF
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __nv_bfloat16::raw(__rl_bf16_fma(a.__x, b.__x, c.__x));
}
RL_FN __nv_bfloat162 atomicAdd(__nv_bfloat162 *a, __nv_bfloat162 v) { __nv_bfloat162 o = *a; a->x.__x = __rl_bf16_add(o.x.__x, v.x.__x); a->y.__x = __rl_bf16_add(o.y.__x, v.y.__x); return o; }
static inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return __nv_bfloat162{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
static inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __nv_bfloat16::raw(a.__x ^ 0x8000u); }
static inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return __hneg(a); }
static inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a < (float)b; }
static inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a > (float)b; }
static inline bool operator<=(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a <= (float)b; }
static inline bool operator>=(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a >= (float)b; }
static inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a == (float)b; }
static inline bool operator!=(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a != (float)b; }
static inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b ? b : a; }
static inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return b < a ? b : a; }

static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16((float)d); }
static inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16((float)i); }
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
static inline __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162{f, f}; }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{a, b}; }
static inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162{f.x, f.y}; }
static inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
static inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{(float)h.x, (float)h.y}; }
static inline float __low2float(__nv_bfloat162 h) { return (float)h.x; }
static inline float __high2float(__nv_bfloat162 h) { return (float)h.y; }
static inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
static inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16::raw(v); }
