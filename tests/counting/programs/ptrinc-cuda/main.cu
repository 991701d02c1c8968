// Each thread sums weighted squared distances to all n points, reading three arrays at the
// loop's index j. nvcc's code walks the arrays with pointer increments; x86's addressing
// modes would instead keep a scaled j inside every address.
#include <cstdio>
#include <cstdlib>
__global__ void near(float *out, const float *px, const float *py, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = px[i], y = py[i], s = 0.0f;
  for (int j = 0; j < n; j++) {
    float dx = px[j] - x, dy = py[j] - y;
    s += w[j] * (dx * dx + dy * dy);
  }
  out[i] = s;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  float *px, *py, *w, *out;
  cudaMalloc(&px, n * sizeof(float));
  cudaMalloc(&py, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(px, 0, n * sizeof(float));
  cudaMemset(py, 0, n * sizeof(float));
  cudaMemset(w, 0, n * sizeof(float));
  near<<<(n + 255) / 256, 256>>>(out, px, py, w, n);
  printf("done\n");
  return 0;
}
