// Strided read-modify-write: one load, one add, one store per work-item. Bandwidth bound.
__kernel void scale_strided(__global float *data, int n, int stride, float alpha)
{
  int i = get_global_id(0) * stride;
  if (i < n) {
    data[i] = data[i] + alpha;
  }
}
