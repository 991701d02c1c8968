// Long register-only FMA loop: one load and one store around 2 x 4096 fused multiply-adds
// per work-item. Compute bound.
__kernel void fma_chain(__global float *out, __global const float *in, int n, int iters)
{
  int i = get_global_id(0);
  if (i >= n) return;
  float a = in[i], b = 0.5f, c = 1.0001f, d = 0.25f;
  for (int k = 0; k < iters; k++) {
    b = fma(a, b, c);
    d = fma(b, d, a);
  }
  out[i] = b + d;
}
