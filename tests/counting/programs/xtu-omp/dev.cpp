// Device function in another translation unit than the region that calls it.
#pragma omp declare target
float poly(float x) { return x * x * x + 2.0f * x; }  // 2 mul + 1 fma-able add: 4 FLOPs
#pragma omp end declare target
