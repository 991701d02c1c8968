// Reductions in target regions, as clang's offload code runs them on a GPU: a combined
// `distribute parallel for` reduces once per chunk of one iteration per thread (a warp's
// shuffle tree and the warps' tree in warp 0); a parallel region in a team reduces once;
// a max reduction compares, no FLOP; an integer sum combines with integer adds.
#include <cstdio>
#include <cstdlib>
#include <omp.h>

int main(int argc, char **argv) {
  const int n = atoi(argv[1]);
  float *a = new float[n], *b = new float[n];
  double *x = new double[n];
  for (int i = 0; i < n; i++) { a[i] = 1.0f; b[i] = 0.5f; x[i] = i % 7; }
  float dot = 0.f;
  double total = 0.0, biggest = 0.0;
  int count = 0;
  #pragma omp target data map(to: a[0:n], b[0:n], x[0:n])
  {
    #pragma omp target teams distribute parallel for thread_limit(256) reduction(+:dot)
    for (int i = 0; i < n; i++) dot += a[i] * b[i];

    #pragma omp target teams distribute parallel for reduction(+:total)
    for (int i = 0; i < n; i++) total += x[i];

    #pragma omp target teams num_teams(4) thread_limit(64) reduction(+:total)
    {
      double part = 0.0;
      #pragma omp parallel num_threads(64) reduction(+:part)
      part += x[omp_get_team_num() * 64 + omp_get_thread_num()];
      total += part;
    }

    #pragma omp target teams distribute parallel for thread_limit(256) reduction(max:biggest)
    for (int i = 0; i < n; i++) biggest = x[i] > biggest ? x[i] : biggest;

    #pragma omp target teams distribute parallel for thread_limit(256) reduction(+:count)
    for (int i = 0; i < n; i++) count += x[i] > 3.0;
  }
  printf("%f %f %f %d\n", dot, total, biggest, count);
  delete[] a; delete[] b; delete[] x;
  return 0;
}
