// Target region calling a function of dev.cpp; host code that must stay uncounted.
#include <cstdio>
#include <cstdlib>
#pragma omp declare target
float poly(float x);
#pragma omp end declare target

static double host_only(const float *v, int n) {  // runs on the host, outside any region
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * 0.5;
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *v = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) v[i] = (float)i;
  #pragma omp target teams distribute parallel for map(tofrom: v[0:n])
  for (int i = 0; i < n; i++) v[i] = poly(v[i]);
  printf("%f\n", host_only(v, n));
  free(v);
  return 0;
}
