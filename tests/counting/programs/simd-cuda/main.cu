// ridgeline test program: SIMD-within-a-word and DPX intrinsics. "ok" runs only when all are
// right (expected values worked out lane by lane in the comments).
#include <cstdio>
__global__ void lanes(unsigned *o) {
  o[0] = __vmaxs4(0x80FF0205u, 0);             // signed bytes: max(x, 0)
  o[1] = __vadd2(0xFFFF0001u, 0x00010001u);    // halfwords wrap independently
  o[2] = __vsub4(0x00000100u, 0x01010101u);
  o[3] = __vabsdiffu4(0x10203040u, 0x40302010u);
  o[4] = __vaddss4(0x7F80FF01u, 0x01FF0101u);  // 127+1 -> 127, -128-1 -> -128, -1+1, 1+1
  o[5] = __vcmpgts2(0x80000001u, 0x00010000u); // -32768 > 1 no; 1 > 0 yes
  o[6] = __vsetltu4(0x01020304u, 0x04030201u); // 1<4 2<3 yes; 3<2 4<1 no
  o[7] = __vsads2(0xFFFF0005u, 0x00010002u);   // |-1-1| + |5-2|
  o[8] = (unsigned)__vimax3_s32(-5, 3, 2);
  o[9] = __viaddmax_s16x2(0x00010002u, 0x00010002u, 0x00030003u);  // max(2,3) max(4,3)
  bool hi = true, lo = false;
  o[10] = __vibmin_u16x2(0x00050001u, 0x00030002u, &hi, &lo);     // min(5,3) min(1,2)
  o[11] = (hi ? 2u : 0u) | (lo ? 1u : 0u);
  o[12] = __vavgs4(0x01030500u, 0x01010100u);  // rounded: (1+1+1)/2 (3+1+1)/2 (5+1+1)/2 0
}
__global__ void ok() {}
int main() {
  unsigned *o;
  cudaMallocManaged(&o, 13 * sizeof(unsigned));
  lanes<<<1, 1>>>(o);
  const unsigned want[13] = {0x00000205u, 0x00000002u, 0xffff00ffu, 0x30101030u, 0x7F800002u,
                             0x0000FFFFu, 0x01010000u, 5u, 3u, 0x00030004u, 0x00030001u, 1u,
                             0x01020300u};
  int bad = 0;
  for (int i = 0; i < 13; i++)
    if (o[i] != want[i]) { printf("o[%d] = %08x, want %08x\n", i, o[i], want[i]); bad = 1; }
  if (!bad) ok<<<1, 1>>>();
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
