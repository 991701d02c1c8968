// OpenMP regions written the CUDA way (teams x threads, team-shared array, barriers), a
// distributed loop with a dynamic schedule and a reduction: checks the counting runtime's
// emulation of the offload launch. Prints OK when every result is right.
#include <omp.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096;
  const int nb = (n + 63) / 64;
  float *x = (float *)malloc(n * sizeof(float));
  float *y = (float *)malloc(n * sizeof(float));
  float *part = (float *)malloc(nb * sizeof(float));
  for (int i = 0; i < n; i++) { x[i] = 1.0f; y[i] = 0.5f; }

  // block sums: one team per 64 elements, tree reduction in team-shared memory
  #pragma omp target teams num_teams(nb) thread_limit(64) map(to: x[0:n]) map(from: part[0:nb])
  {
    float sm[64];
    #pragma omp parallel
    {
      int t = omp_get_thread_num();
      int g = omp_get_team_num() * 64 + t;
      sm[t] = g < n ? x[g] : 0.0f;
      #pragma omp barrier
      for (int s = 32; s > 0; s >>= 1) {
        if (t < s) sm[t] += sm[t + s];
        #pragma omp barrier
      }
      if (t == 0) part[omp_get_team_num()] = sm[0];
    }
  }

  // distributed loop, dynamic schedule: y = 2 x + y
  #pragma omp target teams distribute parallel for num_teams(8) thread_limit(32) \
      schedule(dynamic, 4) map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++) y[i] = 2.0f * x[i] + y[i];

  // reduction over a distributed loop
  double s = 0.0;
  #pragma omp target teams distribute parallel for num_teams(4) thread_limit(16) \
      reduction(+: s) map(to: y[0:n])
  for (int i = 0; i < n; i++) s += (double)y[i];

  int ok = 1;
  for (int b = 0; b < nb; b++) {
    int want = n - b * 64 < 64 ? n - b * 64 : 64;
    if (part[b] != (float)want) ok = 0;
  }
  if (s != 2.5 * n) ok = 0;
  printf("%s %g\n", ok ? "OK" : "FAIL", s);
  free(x); free(y); free(part);
  return ok ? 0 : 1;
}
