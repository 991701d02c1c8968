// Hand-countable OpenMP offload program for ridgeline.counting tests.
#include <cstdio>
#include <cstdlib>

void saxpy(int n, float a, const float *x, float *y) {
  #pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];  // 2 SP FLOPs, 8 B loaded, 4 B stored
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  float *x = (float *)aligned_alloc(128, n * sizeof(float));
  float *y = (float *)aligned_alloc(128, n * sizeof(float));
  double *d = (double *)aligned_alloc(128, n * sizeof(double));
  for (int i = 0; i < n; i++) { x[i] = 1.0f; y[i] = 1.0f; d[i] = 2.0; }
  for (int r = 0; r < 3; r++) saxpy(n, 2.0f, x, y);
  #pragma omp target teams distribute parallel for map(tofrom: d[0:n])
  for (int i = 0; i < n; i++) d[i] = d[i] * 3.0 + d[i] * d[i];  // 3 DP FLOPs
  printf("%f %f\n", y[0], d[0]);
  return 0;
}
