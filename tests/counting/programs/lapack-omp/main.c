/* Solves with LAPACK's dgesv after an offloaded fill: the counting build does not link the
 * Makefile's -llapack, so the link misses dgesv_. C that is not C++ (malloc's void * kept
 * uncast): a rebuild as C++ (the Makefile's driver is clang++) fails to compile, and the
 * error to report is still the undefined symbol. */
#include <stdio.h>
#include <stdlib.h>
void dgesv_(int *n, int *nrhs, double *a, int *lda, int *ipiv, double *b, int *ldb, int *info);
int main(void) {
  int n = 64, one = 1, info = 0;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  int *ipiv = malloc(sizeof(int) * n);
  #pragma omp target teams distribute parallel for map(from: a[0:n*n])
  for (int i = 0; i < n * n; i++) a[i] = (i % (n + 1) == 0) ? 2.0 : 0.001 * i;
  for (int i = 0; i < n; i++) b[i] = 1.0;
  dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
  printf("info=%d b0=%g\n", info, b[0]);
  free(a); free(b); free(ipiv);
  return 0;
}
