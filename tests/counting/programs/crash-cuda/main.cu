#include <cuda_runtime.h>
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main() { int *p = nullptr; k<<<1, 32>>>(p); return 0; }
