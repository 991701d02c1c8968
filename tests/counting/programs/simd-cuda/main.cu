// ridgeline test program: SIMD-within-a-word intrinsics. "ok" runs only when all are right.
#include <cstdio>
__global__ void lanes(unsigned *o) {
  o[0] = __vmaxs4(0x80FF0205u, 0);             // signed bytes: max(x, 0)
  o[1] = __vadd2(0xFFFF0001u, 0x00010001u);    // halfwords wrap independently
  o[2] = __vsub4(0x00000100u, 0x01010101u);
  o[3] = __vabsdiffu4(0x10203040u, 0x40302010u);
}
__global__ void ok() {}
int main() {
  unsigned *o;
  cudaMallocManaged(&o, 4 * sizeof(unsigned));
  lanes<<<1, 1>>>(o);
  int bad = o[0] != 0x00000205u || o[1] != 0x00000002u || o[2] != 0xffff00ffu ||
            o[3] != 0x30101030u;
  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
