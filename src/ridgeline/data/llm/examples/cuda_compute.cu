// Long register-only FMA loop: one load and one store per thread around 2 x 4096 fused
// multiply-adds on registers. Thousands of FLOPs per byte: Compute bound.
__global__ void fma_chain(float *out, const float *in, int n, int iters)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i], b = 0.5f, c = 1.0001f, d = 0.25f;
  for (int k = 0; k < iters; k++) {
    b = fmaf(a, b, c);
    d = fmaf(b, d, a);
  }
  out[i] = b + d;
}

int main()
{
  const int n = 1 << 20, iters = 4096;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  fma_chain<<<(n + 255) / 256, 256>>>(out, in, n, iters);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
