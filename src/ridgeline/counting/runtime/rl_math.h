/* CPU definitions of the CUDA Math API functions the C and C++ libraries lack (included
 * after rl_cuda.h in CUDA builds). Only their results matter here: every call stays a call
 * (instrument.keep_math_calls) and counts the GPU's FLOPs for the function from
 * ridgeline/data/math/flops.csv; these bodies are not counted. Directed-rounding intrinsics
 * round to nearest on the CPU. */
#pragma once
#include <cmath>

template <class T> static inline T __rl_erfinv(T y) {
  if (!(y > -1 && y < 1)) return y == 1 ? (T)INFINITY : y == -1 ? -(T)INFINITY : (T)NAN;
  /* a starting guess from the logarithm of 1 - y^2, then Newton steps on erf */
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w; x = -4.39150654e-06 + x * w;
    x = 0.00021858087 + x * w; x = -0.00125372503 + x * w; x = -0.00417768164 + x * w;
    x = 0.246640727 + x * w; x = 1.50140941 + x * w;
  } else {
    w = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    x = 0.000100950558 + x * w; x = 0.00134934322 + x * w; x = -0.00367342844 + x * w;
    x = 0.00573950773 + x * w; x = -0.0076224613 + x * w; x = 0.00943887047 + x * w;
    x = 1.00167406 + x * w; x = 2.83297682 + x * w;
  }
  x *= y;
  for (int k = 0; k < 2; k++)
    x -= (std::erf(x) - (double)y) / (1.1283791670955126 * std::exp(-x * x));
  return (T)x;
}
static inline float erfinvf(float y) { return __rl_erfinv(y); }
static inline double erfinv(double y) { return __rl_erfinv(y); }
static inline float erfcinvf(float y) { return __rl_erfinv(1.f - y); }
static inline double erfcinv(double y) { return __rl_erfinv(1.0 - y); }
static inline float normcdfinvf(float p) { return -1.41421356f * __rl_erfinv(1.f - 2.f * p); }
static inline double normcdfinv(double p) { return -1.4142135623730951 * __rl_erfinv(1.0 - 2.0 * p); }
template <class T> static inline T __rl_erfcx(T x) {
  if (x < 25) return (T)(std::exp((double)x * x) * std::erfc((double)x));
  double r = 1.0 / ((double)x * x);
  return (T)(0.5641895835477563 / x * (1 - 0.5 * r + 0.75 * r * r));
}
static inline float erfcxf(float x) { return __rl_erfcx(x); }
static inline double erfcx(double x) { return __rl_erfcx(x); }
static inline float cyl_bessel_i0f(float x) { return (float)std::cyl_bessel_i(0.0, std::fabs((double)x)); }
static inline double cyl_bessel_i0(double x) { return std::cyl_bessel_i(0.0, std::fabs(x)); }
static inline float cyl_bessel_i1f(float x) { return (float)(x < 0 ? -std::cyl_bessel_i(1.0, -(double)x) : std::cyl_bessel_i(1.0, (double)x)); }
static inline double cyl_bessel_i1(double x) { return x < 0 ? -std::cyl_bessel_i(1.0, -x) : std::cyl_bessel_i(1.0, x); }
template <class T> static inline T __rl_norm(int dim, const T *p) {
  double s = 0;
  for (int i = 0; i < dim; i++) s += (double)p[i] * p[i];
  return (T)std::sqrt(s);
}
static inline float normf(int dim, const float *p) { return __rl_norm(dim, p); }
static inline double norm(int dim, const double *p) { return __rl_norm(dim, p); }
static inline float rnormf(int dim, const float *p) { return 1.f / __rl_norm(dim, p); }
static inline double rnorm(int dim, const double *p) { return 1.0 / __rl_norm(dim, p); }
static inline double norm3d(double a, double b, double c) { return std::sqrt(a * a + b * b + c * c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / std::sqrt(a * a + b * b + c * c); }
static inline float norm4df(float a, float b, float c, float d) { return std::sqrt(a * a + b * b + c * c + d * d); }
static inline double norm4d(double a, double b, double c, double d) { return std::sqrt(a * a + b * b + c * c + d * d); }
static inline float rnorm4df(float a, float b, float c, float d) { return 1.f / std::sqrt(a * a + b * b + c * c + d * d); }
static inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / std::sqrt(a * a + b * b + c * c + d * d); }
static inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }
static inline void sincospi(double x, double *s, double *c) { *s = std::sin(x * 3.141592653589793); *c = std::cos(x * 3.141592653589793); }

#define __RL_ROUNDED(r)                                                                   \
  static inline float __fadd_##r(float a, float b) { return a + b; }                      \
  static inline float __fsub_##r(float a, float b) { return a - b; }                      \
  static inline float __fdiv_##r(float a, float b) { return a / b; }                      \
  static inline float __fmaf_##r(float a, float b, float c) { return std::fma(a, b, c); } \
  static inline float __frcp_##r(float a) { return 1.f / a; }                             \
  static inline float __fsqrt_##r(float a) { return std::sqrt(a); }                       \
  static inline double __dadd_##r(double a, double b) { return a + b; }                   \
  static inline double __dsub_##r(double a, double b) { return a - b; }                   \
  static inline double __dmul_##r(double a, double b) { return a * b; }                   \
  static inline double __ddiv_##r(double a, double b) { return a / b; }                   \
  static inline double __fma_##r(double a, double b, double c) { return std::fma(a, b, c); } \
  static inline double __drcp_##r(double a) { return 1.0 / a; }                           \
  static inline double __dsqrt_##r(double a) { return std::sqrt(a); }
__RL_ROUNDED(rd)
__RL_ROUNDED(ru)
static inline float __fmul_rd(float a, float b) { return a * b; }
static inline float __fmul_ru(float a, float b) { return a * b; }
static inline float __fsub_rz(float a, float b) { return a - b; }
static inline float __fdiv_rz(float a, float b) { return a / b; }
static inline float __fmaf_rz(float a, float b, float c) { return std::fma(a, b, c); }
static inline float __frcp_rz(float a) { return 1.f / a; }
static inline float __fsqrt_rz(float a) { return std::sqrt(a); }
static inline double __dadd_rz(double a, double b) { return a + b; }
static inline double __dsub_rz(double a, double b) { return a - b; }
static inline double __dmul_rz(double a, double b) { return a * b; }
static inline double __ddiv_rz(double a, double b) { return a / b; }
static inline double __fma_rz(double a, double b, double c) { return std::fma(a, b, c); }
static inline double __drcp_rz(double a) { return 1.0 / a; }
static inline double __dsqrt_rz(double a) { return std::sqrt(a); }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
#undef __RL_ROUNDED
