// A host parallel loop (outside any target region) that captures 10 variables: the counting
// runtime forwards it to libomp with all its arguments. Then one target region.
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
  float *c = (float *)malloc(n * sizeof(float)), *d = (float *)malloc(n * sizeof(float));
  float *e = (float *)malloc(n * sizeof(float));
  float k1 = 1.0f, k2 = 2.0f, k3 = 3.0f, k4 = 4.0f, k5 = 5.0f;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    a[i] = k1; b[i] = k2; c[i] = k3; d[i] = k4; e[i] = k5;
  }
  #pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]) map(from: c[0:n])
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  printf("%s\n", c[n - 1] == 3.0f && d[0] == 4.0f && e[n - 1] == 5.0f ? "OK" : "FAIL");
  return 0;
}
