// ridgeline test program: CUB block and warp reductions in kernels, device-wide reduce and
// scan on the host. The kernel "ok" is launched only when every result is right.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>

#define THREADS 128

__global__ void blocksum(const float *x, float *out) {
  typedef cub::BlockReduce<float, THREADS> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  float v = x[blockIdx.x * THREADS + threadIdx.x];
  float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

__global__ void blockmax_partial(const int *x, int *out, int valid) {
  typedef cub::BlockReduce<int, THREADS> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  int v = threadIdx.x < valid ? x[threadIdx.x] : -1000000;
  int m = BlockReduce(temp).Reduce(v, cub::Max(), valid);
  if (threadIdx.x == 0) *out = m;
}

__global__ void warpsum(const double *x, double *out) {
  typedef cub::WarpReduce<double> WarpReduce;
  __shared__ typename WarpReduce::TempStorage temp[THREADS / 32];
  double s = WarpReduce(temp[threadIdx.x / 32]).Sum(x[blockIdx.x * THREADS + threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (THREADS / 32) + threadIdx.x / 32] = s;
}

__global__ void ok() {}

int main(int argc, char **argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 8, n = blocks * THREADS;
  float *x, *out;
  double *xd, *outd;
  int *xi, *mi, *scan;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&out, blocks * sizeof(float));
  cudaMallocManaged(&xd, n * sizeof(double));
  cudaMallocManaged(&outd, n * sizeof(double));
  cudaMallocManaged(&xi, n * sizeof(int));
  cudaMallocManaged(&mi, n * sizeof(int));
  cudaMallocManaged(&scan, n * sizeof(int));
  for (int i = 0; i < n; i++) { x[i] = 1.0f; xd[i] = (double)(i % 32); xi[i] = i % 100; }
  int bad = 0;
  blocksum<<<blocks, THREADS>>>(x, out);
  for (int b = 0; b < blocks; b++) bad |= out[b] != (float)THREADS;
  blockmax_partial<<<1, THREADS>>>(xi, mi, 50);
  bad |= *mi != 49;
  warpsum<<<blocks, THREADS>>>(xd, outd);
  for (int w = 0; w < n / 32; w++) bad |= outd[w] != 496.0;

  void *temp = nullptr;
  size_t bytes = 0;
  cub::DeviceReduce::Sum(temp, bytes, xi, mi, n);
  cudaMalloc(&temp, bytes);
  cub::DeviceReduce::Sum(temp, bytes, xi, mi, n);
  long long want = 0;
  for (int i = 0; i < n; i++) want += xi[i];
  bad |= *mi != want;
  cub::DeviceScan::ExclusiveSum(temp, bytes, xi, scan, n);
  bad |= scan[0] != 0 || scan[3] != 0 + 1 + 2;
  cub::DeviceReduce::Max(temp, bytes, xi, mi, n);
  bad |= *mi != 99;
  cub::DeviceReduce::Min(temp, bytes, xi + 1, mi, n - 1);
  bad |= *mi != 0;
  cudaFree(temp);
  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
