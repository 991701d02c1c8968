#include <cstdio>
#include <new>
#include <vector>
#include <cuda_runtime.h>
__global__ void k(float *p) { p[threadIdx.x] = 0.f; }
int main() {
  std::vector<char *> v;
  for (;;) { char *p = new char[1 << 28]; for (size_t i = 0; i < (1u << 28); i += 4096) p[i] = 1; v.push_back(p); }
}
