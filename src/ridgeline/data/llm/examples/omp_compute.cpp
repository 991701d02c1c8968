// Long register-only FMA loop offloaded with OpenMP: one load and one store around
// 2 x 4096 fused multiply-adds per element. Compute bound.
#include <cmath>
#include <cstdlib>

int main()
{
  const int n = 1 << 20, iters = 4096;
  float *in = (float *)malloc(n * sizeof(float));
  float *out = (float *)malloc(n * sizeof(float));
  #pragma omp target data map(to: in[0:n]) map(from: out[0:n])
  {
    #pragma omp target teams distribute parallel for thread_limit(256)
    for (int i = 0; i < n; i++) {
      float a = in[i], b = 0.5f, c = 1.0001f, d = 0.25f;
      for (int k = 0; k < iters; k++) {
        b = fmaf(a, b, c);
        d = fmaf(b, d, a);
      }
      out[i] = b + d;
    }
  }
  free(in);
  free(out);
  return 0;
}
