"""Small OpenCL kernels written for the tests, with their hand-computed counts."""

VADD = """
__kernel void vadd(__global const float* a, __global const float* b, __global float* c,
                   const int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
"""

SAXPY = """
__kernel void saxpy(__global const float* x, __global float* y, const float a, const int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
"""

DAXPY = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void daxpy(__global const double* x, __global double* y, const double a,
                    const int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
"""

MATMUL = """
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     const int N) {
  int row = get_global_id(1), col = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];
  C[row * N + col] = acc;
}
"""

TILED = """
#define T 4
__kernel void tiled(__global const float* A, __global const float* B, __global float* C,
                    const int N) {
  __local float As[T][T];
  __local float Bs[T][T];
  int lr = get_local_id(1), lc = get_local_id(0);
  int row = get_global_id(1), col = get_global_id(0);
  float acc = 0.0f;
  for (int t = 0; t < N / T; ++t) {
    As[lr][lc] = A[row * N + t * T + lc];
    Bs[lr][lc] = B[(t * T + lr) * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < T; ++k) acc += As[lr][k] * Bs[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * N + col] = acc;
}
"""

REDUCE = """
__kernel void reduce(__global const float* in, __global float* out, __local float* s) {
  int l = get_local_id(0), g = get_global_id(0);
  s[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = get_local_size(0) / 2; off > 0; off >>= 1) {
    if (l < off) s[l] += s[l + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = s[0];
}
"""

STENCIL = """
__kernel void stencil(__global const float* in, __global float* out, const int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}
"""

VEC4 = """
__kernel void vec4add(__global const float4* a, __global float4* b) {
  int i = get_global_id(0);
  b[i] = a[i] * a[i] + b[i];
}
"""

HANG = """
__kernel void hang(__global float* a, const int n) {
  int i = get_global_id(0);
  while (a[i] >= 0.0f) { a[i] = a[i] + 1.0f; if (a[i] > 1e30f) a[i] = 0.0f; }
}
"""

BROKEN = """
__kernel void broken(__global float* a) { a[get_global_id(0)] = undefined_thing; }
"""

NEEDS_FP16 = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void h(__global half* a) { a[get_global_id(0)] = a[get_global_id(0)] * (half)2; }
"""
