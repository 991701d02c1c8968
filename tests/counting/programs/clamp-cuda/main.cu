// Positions clamped to a box, each clamp damping the velocity: the multiplies run only for
// the particles out of the box (n/4 below, n/4 above: x[i] = i/n - 0.25 spans [-0.25, 0.75),
// the box is [0, 0.5]).
#include <cstdio>
#include <cstdlib>
struct Params { float lo, hi, damping, dt; };
__global__ void clamp(float *x, float *v, Params p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float pos = x[i], vel = v[i];
  if (pos < p.lo) { pos = p.lo; vel *= p.damping; }
  if (pos > p.hi) { pos = p.hi; vel *= p.damping; }
  x[i] = pos;
  v[i] = vel;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  float *h = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h[i] = (float)i / n - 0.25f;
  float *x, *v;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(v, h, n * sizeof(float), cudaMemcpyHostToDevice);
  Params p = {0.0f, 0.5f, 0.9f, 0.01f};
  clamp<<<(n + 255) / 256, 256>>>(x, v, p, n);
  cudaMemcpy(h, x, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g %g\n", h[0], h[n - 1]);
  cudaFree(x); cudaFree(v); free(h);
  return 0;
}
