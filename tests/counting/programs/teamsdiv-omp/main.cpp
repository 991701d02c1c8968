// An OpenMP region written the CUDA way whose thread index is split by a run-time width
// (omp_get_thread_num() % mx and / mx, two calls), then a distributed loop: checks that the
// two queries are one value, so quotient and remainder are one division as on the GPU, and
// which regions ran a worksharing loop.
#include <omp.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int mx = argc > 1 ? atoi(argv[1]) : 32;
  const int n = 4 * 2 * mx;
  float *a = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) a[i] = 1.0f;
  #pragma omp target teams num_teams(4) thread_limit(2 * mx) map(tofrom: a[0:n])
  {
    #pragma omp parallel
    {
      int tx = omp_get_thread_num() % mx;
      int ty = omp_get_thread_num() / mx;
      int i = (omp_get_team_num() * 2 + ty) * mx + tx;
      a[i] = a[i] * 2.0f;
    }
  }
  #pragma omp target teams distribute parallel for thread_limit(64) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = a[i] + 1.0f;
  int ok = 1;
  for (int i = 0; i < n; i++) ok &= a[i] == 3.0f;
  printf("%s\n", ok ? "OK" : "FAIL");
  free(a);
  return ok ? 0 : 1;
}
