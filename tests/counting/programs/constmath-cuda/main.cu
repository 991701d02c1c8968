// Each thread scales by the cosine of a constant angle (affine-cuda's rotation does this):
// a compiler may evaluate cosf(0.5f) once at build time; a GPU build through libdevice runs
// it in every thread. The square root of a run-time value stays in every build: IEEE under
// nvcc, the approximate one under clang's libdevice.
#include <cstdio>
#include <cstdlib>
__global__ void rotate(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(x[i] + 1.0f) * cosf(0.5f);
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *xy;  // x then y in one buffer
  cudaMalloc(&xy, 2 * n * sizeof(float));
  cudaMemset(xy, 0, n * sizeof(float));
  rotate<<<(n + 255) / 256, 256>>>(xy + n, xy, n);
  cudaFree(xy);
  printf("done\n");
  return 0;
}
