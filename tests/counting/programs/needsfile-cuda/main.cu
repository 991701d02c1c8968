#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(float *p) { p[threadIdx.x] *= 2.f; }
int main(int argc, char **argv) {
  FILE *f = fopen(argc > 1 ? argv[1] : "input.bin", "rb");
  if (!f) { fprintf(stderr, "Error: cannot open file %s\n", argc > 1 ? argv[1] : "input.bin"); return 1; }
  return 0;
}
