#pragma once
#include "../rl_cuda.h"
/* single and double complex as in CUDA's cuComplex.h (host C++ versions) */
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
static inline float cuCrealf(cuFloatComplex x) { return x.x; }
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return float2{r, i}; }
static inline cuFloatComplex make_cuComplex(float r, float i) { return float2{r, i}; }
static inline cuFloatComplex cuConjf(cuFloatComplex x) { return float2{x.x, -x.y}; }
static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return float2{a.x + b.x, a.y + b.y}; }
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return float2{a.x - b.x, a.y - b.y}; }
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) { return float2{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x}; }
/* division and magnitude scaled against overflow, the same arithmetic as CUDA's header */
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
  float s = fabsf(y.x) + fabsf(y.y), oos = 1.0f / s;
  float ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
  s = brs * brs + bis * bis;
  oos = 1.0f / s;
  return float2{(ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos};
}
static inline float cuCabsf(cuFloatComplex x) {
  float a = fabsf(x.x), b = fabsf(x.y), v = a > b ? a : b, w = a > b ? b : a;
  float t = w / v;
  t = 1.0f + t * t;
  t = v * sqrtf(t);
  if (v == 0.0f || v > 3.402823466e38f || w > 3.402823466e38f) t = v + w;
  return t;
}
static inline double cuCreal(cuDoubleComplex x) { return x.x; }
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return double2{r, i}; }
static inline cuDoubleComplex cuConj(cuDoubleComplex x) { return double2{x.x, -x.y}; }
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return double2{a.x + b.x, a.y + b.y}; }
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return double2{a.x - b.x, a.y - b.y}; }
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) { return double2{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x}; }
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
  double s = std::fabs(y.x) + std::fabs(y.y), oos = 1.0 / s;
  double ars = x.x * oos, ais = x.y * oos, brs = y.x * oos, bis = y.y * oos;
  s = brs * brs + bis * bis;
  oos = 1.0 / s;
  return double2{(ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos};
}
static inline double cuCabs(cuDoubleComplex x) {
  double a = std::fabs(x.x), b = std::fabs(x.y), v = a > b ? a : b, w = a > b ? b : a;
  double t = w / v;
  t = 1.0 + t * t;
  t = v * std::sqrt(t);
  if (v == 0.0 || v > 1.79769313486231570e+308 || w > 1.79769313486231570e+308) t = v + w;
  return t;
}
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex x) { return double2{x.x, x.y}; }
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex x) { return float2{(float)x.x, (float)x.y}; }
