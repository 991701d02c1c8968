#include <cuda_runtime.h>
__global__ void k(float *p) { p[threadIdx.x] = undefined_symbol; }
int main() { return 0; }
