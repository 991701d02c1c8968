// Reciprocals and divisions: y = 1/x is a reciprocal on the GPU (5 counted FLOPs in single
// precision), m * (-1/d) + 1 a division (10), a multiply and an add; z = 1/w in double
// precision a reciprocal (10).
#include <cstdio>
#include <cstdlib>
__global__ void recip(const float *x, float *y, const double *w, double *z, float d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 1.f / x[i];
  z[i] = 1.0 / w[i];
}
__global__ void scale(float *m, float d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = m[i];
  v *= -1.f / d;
  v += 1.f;
  m[i] = v;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float *h = (float *)malloc(n * sizeof(float));
  double *hd = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { h[i] = 1.0f + i; hd[i] = 2.0 + i; }
  float *x, *y;
  double *w, *z;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(w, hd, n * sizeof(double), cudaMemcpyHostToDevice);
  recip<<<(n + 255) / 256, 256>>>(x, y, w, z, 3.0f, n);
  scale<<<(n + 255) / 256, 256>>>(y, 3.0f, n);
  cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g\n", h[0]);
  cudaFree(x); cudaFree(y); cudaFree(w); cudaFree(z); free(h); free(hd);
  return 0;
}
