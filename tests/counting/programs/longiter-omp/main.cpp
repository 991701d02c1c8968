// A distributed loop without num_teams, few iterations (well under RL_FULL_THREADS) but each
// a long inner loop: y[i] = m steps of a = a / 2 + 1 from x[i], two FLOPs per step.
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096;
  const int m = argc > 2 ? atoi(argv[2]) : 64;
  float *x = (float *)malloc(n * sizeof(float));
  float *y = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) x[i] = (float)(i % 7);
  #pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
  for (int i = 0; i < n; i++) {
    float a = x[i];
    for (int k = 0; k < m; k++) a = a * 0.5f + 1.0f;
    y[i] = a;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) s += y[i];
  printf("%g\n", s);
  free(x); free(y);
  return 0;
}
