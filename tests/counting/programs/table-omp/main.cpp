// Every team reads the same small table: on a GPU it comes from DRAM once, then from L2.
#include <omp.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  const int teams = argc > 1 ? atoi(argv[1]) : 8192;
  const int n = teams * 64;
  float tab[64];  // host stack array, mapped: device global memory
  for (int i = 0; i < 64; i++) tab[i] = (float)i;
  float *out = (float *)malloc(n * sizeof(float));
  #pragma omp target teams num_teams(teams) thread_limit(64) map(to: tab[0:64]) \
      map(from: out[0:n])
  {
    #pragma omp parallel
    {
      int t = omp_get_thread_num();
      out[omp_get_team_num() * 64 + t] = tab[t] * 2.0f;
    }
  }
  printf("%f\n", out[n - 1]);
  free(out);
  return 0;
}
