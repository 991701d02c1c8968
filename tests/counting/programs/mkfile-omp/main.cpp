// The Makefile names util/scale.c only in its rules, and its compiler (a C++ driver)
// compiles that .c file as C++: main.cpp calls it by its C++ (mangled) name.
#include <cstdio>
#include <cstdlib>
#include "util/scale.h"

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *x = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) x[i] = scale((float)i);
  #pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i] + 1.0f;
  printf("%g\n", x[n - 1]);
  free(x);
  return 0;
}
