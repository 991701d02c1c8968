// Exclusive scan of one value per lane through volatile memory (64 slots per warp), written
// the warp-synchronous way: no barrier between the steps, a warp's lanes are assumed to run
// each statement together. WARP_SCAN_FN qualifies the function (__device__ for CUDA).
WARP_SCAN_FN unsigned warp_scan(unsigned v, volatile unsigned *s, int t) {
  int lane = t & 31, warp = t >> 5;
  int i = warp * 64 + lane;
  s[i] = 0;
  i += 32;
  s[i] = v;
  s[i] += s[i - 1];
  s[i] += s[i - 2];
  s[i] += s[i - 4];
  s[i] += s[i - 8];
  s[i] += s[i - 16];
  return s[i] - v;
}
