#include "scale.h"

float host_checksum(const float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += y[i];
  return s;
}
