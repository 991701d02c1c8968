#include "vec.h"
void vec_fill(float *v, int n, float value) {
  for (int i = 0; i < n; i++) v[i] = value;
}
