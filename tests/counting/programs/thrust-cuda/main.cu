#include <thrust/device_vector.h>
__global__ void k(float *p) { p[threadIdx.x] = 0.f; }
int main() { return 0; }
