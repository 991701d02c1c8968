// ridgeline test program: cuRAND device API (per-thread states) and host API. The kernel
// "ok" is launched only when the draws look uniform on (0, 1] and the Philox4x32-10 state gives
// the generator's published known-answer block (Random123: counter 0, key 0).
#include <curand.h>
#include <curand_kernel.h>
#include <cstdio>
#include <cstdlib>

#define K 16

__global__ void setup(curandState_t *st, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, i, 0, &st[i]);
}

__global__ void draw(curandState_t *st, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState_t s = st[i];
  float acc = 0.f;
  for (int k = 0; k < K; k++) acc += curand_uniform(&s);  // 2 + 1 FLOPs per draw
  st[i] = s;
  out[i] = acc;
}

__global__ void philox(unsigned *kat, float *u) {
  curandStatePhilox4_32_10_t s;
  curand_init(0ull, 0ull, 0ull, &s);
  uint4 r = curand4(&s);
  kat[0] = r.x; kat[1] = r.y; kat[2] = r.z; kat[3] = r.w;
  curand_init(7ull, threadIdx.x, 0ull, &s);
  float4 v = curand_uniform4(&s);
  u[threadIdx.x] = v.x + v.y + v.z + v.w;
}

__global__ void ok() {}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  curandState_t *st;
  float *out, *host;
  cudaMallocManaged(&st, n * sizeof(curandState_t));
  cudaMallocManaged(&out, n * sizeof(float));
  cudaMallocManaged(&host, n * sizeof(float));
  setup<<<n / 128, 128>>>(st, 1234ull);
  draw<<<n / 128, 128>>>(st, out);
  double mean = 0;
  for (int i = 0; i < n; i++) mean += out[i];
  mean /= (double)n * K;
  curandGenerator_t g;
  curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(g, 99ull);
  curandGenerateUniform(g, host, n);
  double hmean = 0, lo = 1, hi = 0;
  for (int i = 0; i < n; i++) {
    hmean += host[i];
    lo = host[i] < lo ? host[i] : lo;
    hi = host[i] > hi ? host[i] : hi;
  }
  hmean /= n;
  curandDestroyGenerator(g);
  unsigned *kat;
  float *u;
  cudaMallocManaged(&kat, 4 * sizeof(unsigned));
  cudaMallocManaged(&u, 256 * sizeof(float));
  philox<<<1, 256>>>(kat, u);
  double pmean = 0;
  for (int i = 0; i < 256; i++) pmean += u[i] / 4;
  pmean /= 256;
  int bad = mean < 0.48 || mean > 0.52 || hmean < 0.45 || hmean > 0.55 || lo <= 0 || hi > 1 ||
            kat[0] != 0x6627e8d5u || kat[1] != 0xe169c58du || kat[2] != 0xbc57ac4cu ||
            kat[3] != 0x9b00dbd8u || pmean < 0.45 || pmean > 0.55;
  if (!bad) ok<<<1, 1>>>();
  printf("%s %f %f\n", bad ? "FAIL" : "PASS", mean, hmean);
  return bad;
}
