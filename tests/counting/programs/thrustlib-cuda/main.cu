// ridgeline test program: Thrust containers and algorithms on the host around two kernels.
// The kernel "ok" is launched only when every Thrust result is right.
#include <thrust/complex.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <cstdio>
#include <cstdlib>

typedef thrust::complex<float> cf;

__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void cmul(const cf *a, const cf *b, cf *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

__global__ void ok() {}

struct square {
  __host__ __device__ int operator()(int v) const { return v * v; }
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int bad = 0;
  thrust::device_vector<float> x(n);
  thrust::sequence(thrust::device, x.begin(), x.end());
  scale<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(x.data()), 2.0f, n);
  float s = thrust::reduce(x.begin(), x.end(), 0.0f, thrust::plus<float>());
  bad |= s != (float)n * (n - 1);

  thrust::device_vector<int> keys(n), vals(n);
  for (int i = 0; i < n; i++) { keys[i] = (n - 1 - i) / 2; vals[i] = i; }
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
  bad |= keys[0] != 0 || vals[0] != n - 2 || vals[1] != n - 1;  // stable
  auto ends = thrust::unique_by_key(keys.begin(), keys.end(), vals.begin());
  bad |= (ends.first - keys.begin()) != (n + 1) / 2;

  thrust::device_vector<int> ones(n, 1), pre(n);
  thrust::inclusive_scan(thrust::cuda::par.on(0), ones.begin(), ones.end(), pre.begin());
  bad |= pre[n - 1] != n;
  thrust::exclusive_scan(ones.begin(), ones.end(), pre.begin());
  bad |= pre[n - 1] != n - 1 || pre[0] != 0;
  thrust::transform(pre.begin(), pre.end(), pre.begin(), square());
  auto mm = thrust::minmax_element(pre.begin(), pre.end());
  bad |= *mm.first != 0 || *mm.second != (n - 1) * (n - 1);

  thrust::host_vector<cf> ha(n), hb(n);
  for (int i = 0; i < n; i++) { ha[i] = cf(1.0f, (float)i); hb[i] = cf(2.0f, -1.0f); }
  thrust::device_vector<cf> da = ha, db = hb, dc(n);
  cmul<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(da.data()),
                                 thrust::raw_pointer_cast(db.data()),
                                 thrust::raw_pointer_cast(dc.data()), n);
  thrust::host_vector<cf> hc = dc;
  cf want = cf(1.0f, 3.0f) * cf(2.0f, -1.0f);  // (5, 5)
  bad |= hc[3] != want || want.real() != 5.0f || want.imag() != 5.0f;
  thrust::device_ptr<float> p(thrust::raw_pointer_cast(x.data()));
  bad |= thrust::reduce(p, p + 2) != 2.0f;

  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
