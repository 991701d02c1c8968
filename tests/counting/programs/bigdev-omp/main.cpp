// omp_target_alloc of argv[1] GiB, 100 MiB of it touched: device memory is reserved, not
// committed, as with cudaMalloc.
#include <omp.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  size_t gib = argc > 1 ? (size_t)atoll(argv[1]) : 16;
  int dev = omp_get_default_device();
  float *d = (float *)omp_target_alloc(gib << 30, dev);
  if (!d) { printf("omp_target_alloc failed\n"); return 1; }
  size_t touched = (size_t)100 << 20;
  float *h = (float *)calloc(touched, 1);
  omp_target_memcpy(d, h, touched, 0, 0, dev, omp_get_initial_device());
  const int n = 1024;
  #pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; i++) d[i] = 2.0f * d[i] + 1.0f;
  printf("%zu GiB\n", gib);
  omp_target_free(d, dev);
  free(h);
  return 0;
}
