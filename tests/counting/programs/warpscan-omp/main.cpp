// The warp-synchronous scan of warpscan-cuda written for OpenMP offload: team-local memory
// through a volatile pointer, no barrier between the steps (a GPU runs a warp's threads
// together). Each thread's prefix is its lane; it adds 1.0f that many times and stores its
// prefix at its own slot; thread 5 then hands its prefix to the team (5 more additions per
// thread). Prints PASS when every slot is right.
#include <omp.h>
#include <cstdio>
#include <cstdlib>

#define WARP_SCAN_FN
#pragma omp declare target
#include "../warpscan-cuda/warp_scan.h"
#pragma omp end declare target

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  const int nb = n / 64;
  float *acc = (float *)malloc(n * sizeof(float));
  unsigned *pos = (unsigned *)malloc(n * sizeof(unsigned));
  #pragma omp target teams num_teams(nb) thread_limit(64) map(from: acc[0:n], pos[0:n])
  {
    unsigned s[128];
    volatile unsigned five = 0;
    #pragma omp parallel num_threads(64)
    {
      int t = omp_get_thread_num();
      int g = omp_get_team_num() * 64 + t;
      unsigned p = warp_scan(1u, s, t);
      float a = 0.0f;
      for (unsigned k = 0; k < p; k++) a += 1.0f;
      // one thread stores (a divergent volatile access), the barrier shows it to all
      if (t == 5) five = p;
      #pragma omp barrier
      const unsigned f = *(const unsigned *)&five;  // a plain read: the barrier orders it
      for (unsigned k = 0; k < f; k++) a += 1.0f;
      acc[g] = a;
      pos[(g & ~31) + p] = p;
    }
  }
  int bad = 0;
  for (int i = 0; i < n; i++) bad += pos[i] != (unsigned)(i & 31);
  printf("%s\n", bad ? "FAIL" : "PASS");
  free(acc); free(pos);
  return bad ? 1 : 0;
}
