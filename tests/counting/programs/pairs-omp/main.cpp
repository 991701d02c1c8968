// All pairs of rows compared, one team per pair: each heap row is read by 2R teams; on a
// GPU the 256 kB table stays in the L2 and comes from DRAM once.
#include <cstdio>
#include <cstdlib>
#define COLS 1024
int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 256;
  unsigned char *rows = (unsigned char *)malloc((size_t)n * COLS);
  int *dist = (int *)malloc((size_t)n * n * sizeof(int));
  for (size_t i = 0; i < (size_t)n * COLS; i++) rows[i] = (unsigned char)(i * 2654435761u >> 24);
  #pragma omp target teams distribute num_teams(n * n) map(to: rows[0:n * COLS]) \
      map(from: dist[0:n * n])
  for (int p = 0; p < n * n; p++) {
    const unsigned char *a = rows + (size_t)(p / n) * COLS, *b = rows + (size_t)(p % n) * COLS;
    int c = 0;
    for (int i = 0; i < COLS; i++) c += a[i] != b[i];
    dist[p] = c;
  }
  printf("%d\n", dist[1]);
  int ok = dist[1] > 0;
  free(rows); free(dist);
  return ok ? 0 : 1;
}
