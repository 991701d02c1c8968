// A stream over aligned buffers (aligned_alloc and posix_memalign), many teams: every
// element is read or written once, so DRAM traffic is the buffers' size whatever the
// sampling of teams.
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  float *a = (float *)aligned_alloc(64, (size_t)n * sizeof(float));
  float *b = nullptr;
  if (posix_memalign((void **)&b, 64, (size_t)n * sizeof(float))) return 1;
  for (int i = 0; i < n; i++) a[i] = 0.5f * i;
  #pragma omp target teams distribute parallel for num_teams(n / 256) thread_limit(256) \
      map(to: a[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; i++) b[i] = 2.0f * a[i];
  printf("%f\n", b[n - 1]);
  int ok = b[n - 1] == (float)(n - 1);
  free(a);
  free(b);
  return ok ? 0 : 1;
}
