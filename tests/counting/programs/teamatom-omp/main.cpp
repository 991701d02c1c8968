// Float atomics in a target region: on team memory (a variable of the teams region) a
// compare-and-swap loop on the GPU whose contending threads retry; on mapped (device global)
// memory a native reduction, no FLOP.
#include <cstdio>
#include <cstdlib>
#include <omp.h>

int main(int argc, char **argv) {
  const int teams = atoi(argv[1]);
  float *out = new float[teams];
  double total = 0.0;
  #pragma omp target teams num_teams(teams) thread_limit(256) map(from: out[0:teams]) map(tofrom: total)
  {
    float sum;
    #pragma omp parallel num_threads(256)
    {
      if (omp_get_thread_num() == 0) sum = 0.f;
      #pragma omp barrier
      #pragma omp atomic update
      sum += 1.0f;  // all 256 threads of the team on one address
      #pragma omp barrier
      if (omp_get_thread_num() == 0) {
        out[omp_get_team_num()] = sum;
        #pragma omp atomic update
        total += 1.0;  // device global memory
      }
    }
  }
  printf("%f %f\n", out[0], total);
  delete[] out;
  return 0;
}
