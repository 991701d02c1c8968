// Per-iteration histogram of K ints indexed by data: on the GPU each thread's copy lives in
// local memory. Each iteration zeroes it (K stores), makes R read-modify-write updates and
// sums it (K loads).
#include <cstdio>
#include <cstdlib>
#define K 256
#define R 64
int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 131072;
  unsigned *keys = (unsigned *)malloc((size_t)n * 4), *out = (unsigned *)malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) keys[i] = (unsigned)(i * 2654435761u);
#ifdef NO_LIMIT  // the compiler's default teams and threads
  #pragma omp target teams distribute parallel for map(to: keys[0:n]) map(from: out[0:n])
#else
  #pragma omp target teams distribute parallel for thread_limit(128) \
      map(to: keys[0:n]) map(from: out[0:n])
#endif
  for (int t = 0; t < n; t++) {
    unsigned h[K];
    for (int i = 0; i < K; i++) h[i] = 0;
    unsigned x = keys[t];
    for (int i = 0; i < R; i++) {
      h[x & (K - 1)] += i;
      x = x * 1664525u + 1013904223u;
    }
    unsigned s = 0;
    for (int i = 0; i < K; i++) s += h[i] * (i + 1);
    out[t] = s;
  }
  printf("%u\n", out[n - 1]);
  free(keys); free(out);
  return 0;
}
