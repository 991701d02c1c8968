#include <cuda_runtime.h>
__global__ void k(volatile int *p) { while (p[0] == 0) {} }
int main() { int *p; cudaMalloc(&p, 4); cudaMemset(p, 0, 4); k<<<1, 1>>>(p); return 0; }
