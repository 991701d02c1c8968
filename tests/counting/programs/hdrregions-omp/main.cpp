// Two target regions whose bodies come from headers, each at the header's line 1: both are
// named main_l1 once the device and file ids are dropped (as in lid-driven-cavity-omp).
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) x[i] = (float)i;
  {
#include "scale.h"
  }
  {
#include "axpy.h"
  }
  printf("%g\n", y[n - 1]);
  free(x); free(y);
  return 0;
}
