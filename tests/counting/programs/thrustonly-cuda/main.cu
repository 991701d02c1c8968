// ridgeline test program: every GPU computation is a Thrust algorithm (no kernel of its own)
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <cstdio>
#include <cstdlib>

struct twice {
  __host__ __device__ float operator()(float v) const { return 2.0f * v; }
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  thrust::device_vector<float> x(n, 1.0f), y(n);
  thrust::transform(x.begin(), x.end(), y.begin(), twice());
  float s = thrust::reduce(y.begin(), y.end(), 0.0f, thrust::plus<float>());
  printf("%s\n", s == 2.0f * n ? "PASS" : "FAIL");
  return s == 2.0f * n ? 0 : 1;
}
