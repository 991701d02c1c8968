// Strided read-modify-write: each thread loads one element, does one add, stores it back.
// Two memory operations per floating-point operation: Bandwidth bound.
__global__ void scale_strided(float *data, int n, int stride, float alpha)
{
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  if (i < n) {
    data[i] = data[i] + alpha;
  }
}

int main()
{
  const int n = 1 << 26, stride = 4;
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  int threads = 256, blocks = (n / stride + threads - 1) / threads;
  scale_strided<<<blocks, threads>>>(d, n, stride, 1.5f);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
