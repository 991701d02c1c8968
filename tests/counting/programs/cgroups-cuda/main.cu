// ridgeline test program: cooperative groups inside a block, and a launch through a
// function pointer. The kernel "ok" is launched only when every result is right.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;

// per 32-thread tile: butterfly sum (5 adds per thread), lane 0 writes it
__global__ void tilesum(const float *x, float *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = x[block.group_index().x * block.size() + block.thread_rank()];
  v = cg::reduce(tile, v, cg::plus<float>());
  block.sync();
  if (tile.thread_rank() == 0) out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

// per 16-thread tile: shift-down sum (4 adds per thread)
__global__ void halfsum(const float *x, float *out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int o = 8; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) out[i / 16] = v;
}

// stream compaction of the positive values with a coalesced group per warp
__global__ void compact(const int *src, int *dst, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && src[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(count, (int)active.size());
    base = active.shfl(base, 0);
    dst[base + active.thread_rank()] = src[i];
  }
}

__global__ void twice(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + x[i];
}

__global__ void ok() {}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;  // a multiple of 64
  float *x, *out;
  int *src, *dst, *count;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  cudaMallocManaged(&src, n * sizeof(int));
  cudaMallocManaged(&dst, n * sizeof(int));
  cudaMallocManaged(&count, sizeof(int));
  for (int i = 0; i < n; i++) { x[i] = (float)(i % 32); src[i] = i % 3 == 0 ? i : -1; }
  int bad = 0;
  tilesum<<<n / 64, 64>>>(x, out);
  for (int t = 0; t < n / 32; t++) bad |= out[t] != 496.0f;  // 0 + 1 + ... + 31
  halfsum<<<n / 64, 64>>>(x, out);
  for (int t = 0; t < n / 16; t++) bad |= out[t] != (t % 2 ? 376.0f : 120.0f);
  *count = 0;
  compact<<<n / 64, 64>>>(src, dst, count, n);
  int want = (n - 1) / 3;  // 3, 6, 9, ...
  bad |= *count != want;
  long long sum = 0;
  for (int i = 0; i < *count; i++) sum += dst[i];
  bad |= sum != 3LL * want * (want + 1) / 2;
  void (*kern)(float *, int) = &twice;
  kern<<<n / 64, 64>>>(x, n);
  bad |= x[3] != 6.0f;
  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
