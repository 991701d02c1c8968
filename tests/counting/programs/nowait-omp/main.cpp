// Two-stage pipeline of `target nowait` regions: each pass scales one half of the
// vector while the host prepares the next; every launch does 2 FLOPs per element
// (n elements in the first region, n / 2 in the second).
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 4;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 0.0f);
  float *pa = a.data(), *pb = b.data(), *pc = c.data();
  const float s = 1.5f;
  #pragma omp target data map(to: pa[0:n], pb[0:n]) map(tofrom: pc[0:n])
  {
    for (int p = 0; p < passes; ++p) {
      #pragma omp target teams distribute parallel for thread_limit(128) nowait
      for (int i = 0; i < n; ++i)
        pc[i] = pa[i] + s * pb[i];
      const int half = n / 2;
      #pragma omp target teams distribute parallel for thread_limit(128) nowait
      for (int i = 0; i < half; ++i)
        pc[i] = pc[i] * s - pa[i];
      #pragma omp taskwait
    }
  }
  std::printf("%f\n", pc[0]);
  return 0;
}
