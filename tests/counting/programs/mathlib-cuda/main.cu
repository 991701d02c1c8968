// One kernel per CUDA math function (o[i] = f(a[i], ...)): each counts the table's FLOPs
// per call (ridgeline.counting.mathops.math_table) for the architecture and build.
#include <cstdio>
#include <cstdlib>
#include <cmath>

__global__ void k_sqrtf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sqrtf(x); } }
__global__ void k_rsqrtf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rsqrtf(x); } }
__global__ void k_cbrtf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cbrtf(x); } }
__global__ void k_rcbrtf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rcbrtf(x); } }
__global__ void k_hypotf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = hypotf(x,y); } }
__global__ void k_norm3df(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = norm3df(x,y,z); } }
__global__ void k_rhypotf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rhypotf(x,y); } }
__global__ void k_rnorm4df(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rnorm4df(x,y,z,x); } }
__global__ void k_expf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = expf(x); } }
__global__ void k_exp2f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = exp2f(x); } }
__global__ void k_exp10f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = exp10f(x); } }
__global__ void k_expm1f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = expm1f(x); } }
__global__ void k_logf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = logf(x); } }
__global__ void k_log1pf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = log1pf(x); } }
__global__ void k_log10f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = log10f(x); } }
__global__ void k_powf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = powf(x,y); } }
__global__ void k_sinf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sinf(x); } }
__global__ void k_cosf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cosf(x); } }
__global__ void k_tanf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = tanf(x); } }
__global__ void k_asinf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = asinf(x); } }
__global__ void k_acosf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = acosf(x); } }
__global__ void k_atanf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = atanf(x); } }
__global__ void k_atan2f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = atan2f(y,x); } }
__global__ void k_sinpif(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sinpif(x); } }
__global__ void k_cospif(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cospif(x); } }
__global__ void k_sinhf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sinhf(x); } }
__global__ void k_coshf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = coshf(x); } }
__global__ void k_tanhf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = tanhf(x); } }
__global__ void k_asinhf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = asinhf(x); } }
__global__ void k_acoshf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = acoshf(y); } }
__global__ void k_atanhf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = atanhf(x); } }
__global__ void k_erff(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erff(x); } }
__global__ void k_erfcf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfcf(x); } }
__global__ void k_normcdff(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = normcdff(x); } }
__global__ void k_lgammaf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = lgammaf(x); } }
__global__ void k_tgammaf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = tgammaf(x); } }
__global__ void k_j0f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = j0f(x); } }
__global__ void k_y1f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = y1f(x); } }
__global__ void k_erfinvf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfinvf(x); } }
__global__ void k_erfcinvf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfcinvf(x); } }
__global__ void k_normcdfinvf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = normcdfinvf(x); } }
__global__ void k_erfcxf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfcxf(x); } }
__global__ void k_cyl_bessel_i0f(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cyl_bessel_i0f(x); } }
__global__ void k_fmaf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fmaf(x,y,z); } }
__global__ void k_fdimf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fdimf(x,y); } }
__global__ void k_remainderf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = remainderf(x,y); } }
__global__ void k_ldexpf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = ldexpf(x,q); } }
__global__ void k_logbf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = logbf(x); } }
__global__ void k_fabsf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fabsf(x); } }
__global__ void k_floorf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = floorf(x); } }
__global__ void k_fminf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fminf(x,y); } }
__global__ void k_roundf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = roundf(x); } }
__global__ void k_copysignf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = copysignf(x,y); } }
__global__ void k___expf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __expf(x); } }
__global__ void k___sinf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __sinf(x); } }
__global__ void k___logf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __logf(x); } }
__global__ void k___powf(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __powf(x,y); } }
__global__ void k___fdividef(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fdividef(x,y); } }
__global__ void k___frcp_rn(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __frcp_rn(x); } }
__global__ void k___fadd_rn(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fadd_rn(x,y); } }
__global__ void k___saturatef(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __saturatef(x); } }
__global__ void k___frsqrt_rn(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __frsqrt_rn(x); } }
__global__ void k___fsqrt_rn(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fsqrt_rn(x); } }
__global__ void k___fadd_rd(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fadd_rd(x,y); } }
__global__ void k___fdiv_ru(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fdiv_ru(x,y); } }
__global__ void k___fsqrt_rz(const float *a, const float *b, const float *c, const int *qs, float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fsqrt_rz(x); } }
__global__ void k_sqrt(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sqrt(x); } }
__global__ void k_rsqrt(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rsqrt(x); } }
__global__ void k_cbrt(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cbrt(x); } }
__global__ void k_rcbrt(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rcbrt(x); } }
__global__ void k_hypot(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = hypot(x,y); } }
__global__ void k_rhypot(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = rhypot(x,y); } }
__global__ void k_norm4d(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = norm4d(x,y,z,x); } }
__global__ void k_exp(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = exp(x); } }
__global__ void k_exp2(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = exp2(x); } }
__global__ void k_expm1(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = expm1(x); } }
__global__ void k_log(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = log(x); } }
__global__ void k_log1p(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = log1p(x); } }
__global__ void k_pow(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = pow(x,y); } }
__global__ void k_sin(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sin(x); } }
__global__ void k_cos(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cos(x); } }
__global__ void k_tan(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = tan(x); } }
__global__ void k_asin(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = asin(x); } }
__global__ void k_atan2(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = atan2(y,x); } }
__global__ void k_sinpi(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sinpi(x); } }
__global__ void k_sinh(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = sinh(x); } }
__global__ void k_cosh(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cosh(x); } }
__global__ void k_tanh(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = tanh(x); } }
__global__ void k_asinh(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = asinh(x); } }
__global__ void k_erf(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erf(x); } }
__global__ void k_erfc(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfc(x); } }
__global__ void k_normcdf(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = normcdf(x); } }
__global__ void k_lgamma(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = lgamma(x); } }
__global__ void k_erfinv(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = erfinv(x); } }
__global__ void k_cyl_bessel_i1(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = cyl_bessel_i1(x); } }
__global__ void k_fma(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fma(x,y,z); } }
__global__ void k_ldexp(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = ldexp(x,q); } }
__global__ void k_fabs(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fabs(x); } }
__global__ void k_floor(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = floor(x); } }
__global__ void k_fmax(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = fmax(x,y); } }
__global__ void k___dadd_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __dadd_rn(x,y); } }
__global__ void k___dmul_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __dmul_rn(x,y); } }
__global__ void k___ddiv_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __ddiv_rn(x,y); } }
__global__ void k___drcp_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __drcp_rn(x); } }
__global__ void k___fma_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __fma_rn(x,y,z); } }
__global__ void k___dmul_ru(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __dmul_ru(x,y); } }
__global__ void k___dsqrt_rn(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __dsqrt_rn(x); } }
__global__ void k___ddiv_rz(const double *a, const double *b, const double *c, const int *qs, double *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { double x = a[i], y = b[i], z = c[i]; int q = qs[i]; (void)y; (void)z; (void)q; o[i] = __ddiv_rz(x,y); } }

template <class T> static void run(const char *what, int n) {
  T *a, *b, *c, *o; int *q;
  cudaMallocManaged(&a, n * sizeof(T)); cudaMallocManaged(&b, n * sizeof(T));
  cudaMallocManaged(&c, n * sizeof(T)); cudaMallocManaged(&o, n * sizeof(T));
  cudaMallocManaged(&q, n * sizeof(int));
  for (int i = 0; i < n; i++) { a[i] = (T)(0.25 + 0.5 * i / n); b[i] = (T)(1.5 - 0.5 * i / n); c[i] = (T)0.75; q[i] = i % 5; }
  int g = (n + 127) / 128;
  if (sizeof(T) == sizeof(float)) {
    k_sqrtf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_rsqrtf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_cbrtf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_rcbrtf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_hypotf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_norm3df<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_rhypotf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_rnorm4df<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_expf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_exp2f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_exp10f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_expm1f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_logf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_log1pf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_log10f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_powf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_sinf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_cosf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_tanf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_asinf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_acosf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_atanf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_atan2f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_sinpif<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_cospif<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_sinhf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_coshf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_tanhf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_asinhf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_acoshf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_atanhf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_erff<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_erfcf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_normcdff<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_lgammaf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_tgammaf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_j0f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_y1f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_erfinvf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_erfcinvf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_normcdfinvf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_erfcxf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_cyl_bessel_i0f<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_fmaf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_fdimf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_remainderf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_ldexpf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_logbf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_fabsf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_floorf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_fminf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_roundf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k_copysignf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___expf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___sinf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___logf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___powf<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fdividef<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___frcp_rn<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fadd_rn<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___saturatef<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___frsqrt_rn<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fsqrt_rn<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fadd_rd<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fdiv_ru<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
    k___fsqrt_rz<<<g, 128>>>((const float *)a, (const float *)b, (const float *)c, q, (float *)o, n);
  }
  if (sizeof(T) == sizeof(double)) {
    k_sqrt<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_rsqrt<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_cbrt<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_rcbrt<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_hypot<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_rhypot<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_norm4d<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_exp<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_exp2<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_expm1<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_log<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_log1p<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_pow<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_sin<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_cos<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_tan<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_asin<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_atan2<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_sinpi<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_sinh<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_cosh<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_tanh<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_asinh<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_erf<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_erfc<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_normcdf<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_lgamma<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_erfinv<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_cyl_bessel_i1<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_fma<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_ldexp<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_fabs<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_floor<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k_fmax<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___dadd_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___dmul_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___ddiv_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___drcp_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___fma_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___dmul_ru<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___dsqrt_rn<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
    k___ddiv_rz<<<g, 128>>>((const double *)a, (const double *)b, (const double *)c, q, (double *)o, n);
  }
  cudaDeviceSynchronize();
  printf("%s %g\n", what, (double)o[n / 2]);
  cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(o); cudaFree(q);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  run<float>("float", n);
  run<double>("double", n);
  return 0;
}
