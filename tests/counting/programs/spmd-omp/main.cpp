// OpenMP region written CUDA-style: each (team, thread) pair handles one element.
#include <omp.h>
#include <cstdio>
int main() {
  float a[256];
  for (int i = 0; i < 256; i++) a[i] = 1.0f;
  #pragma omp target teams num_teams(4) thread_limit(64) map(tofrom: a[0:256])
  {
    #pragma omp parallel
    {
      int i = omp_get_team_num() * 64 + omp_get_thread_num();
      if (i < 256) a[i] = a[i] * 2.0f;
    }
  }
  printf("%f\n", a[0]);
  return 0;
}
