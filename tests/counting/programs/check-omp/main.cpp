// A program that checks a region's results on the host before launching the next region
// (as many HeCBench programs do): when the counting runtime samples the first region's
// teams and skips the others, the check fails and the program stops early.
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096;
  float *x = (float *)malloc(n * sizeof(float));
  float *y = (float *)calloc(n, sizeof(float));
  for (int i = 0; i < n; i++) x[i] = 1.0f;

  // no num_teams: one team per 256 iterations on a large loop (teams are then sampled)
  #pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
  for (int i = 0; i < n; i++) y[i] = 3.0f * x[i];

  for (int i = 0; i < n; i++)
    if (y[i] != 3.0f) {
      printf("FAIL at %d\n", i);
      return 1;
    }

  double s = 0.0;
  #pragma omp target teams distribute parallel for reduction(+: s) map(to: y[0:n])
  for (int i = 0; i < n; i++) s += (double)y[i] * 0.5;

  printf("%s %g\n", s == 1.5 * n ? "OK" : "FAIL", s);
  free(x); free(y);
  return 0;
}
