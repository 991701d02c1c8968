// Repeated math calls with the same argument: one call on a GPU (no errno), so one here.
#include <cmath>
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *v = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) v[i] = 0.001f * i;
  #pragma omp target teams distribute parallel for map(tofrom: v[0:n])
  for (int i = 0; i < n; i++) v[i] = expf(v[i]) + expf(v[i]) * 2.0f;  // expf + 1 FMA
  printf("%f\n", v[1]);
  free(v);
  return 0;
}
