// Strided read-modify-write offloaded with OpenMP: one load, one add, one store per
// iteration. Bandwidth bound.
#include <cstdlib>

int main()
{
  const int n = 1 << 26, stride = 4;
  float *data = (float *)malloc(n * sizeof(float));
  #pragma omp target data map(tofrom: data[0:n])
  {
    #pragma omp target teams distribute parallel for thread_limit(256)
    for (int i = 0; i < n; i += stride) {
      data[i] = data[i] + 1.5f;
    }
  }
  free(data);
  return 0;
}
