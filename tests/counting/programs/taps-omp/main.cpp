// A row filter written the CUDA way: each team stages a 4 x 80 tile of the input in a
// team-local array, then every thread sums five neighbouring tile elements (an unrolled loop)
// into one output. The five taps' addresses differ by constants only: on the GPU they are one
// address register and five offsets the loads carry, so a thread's tap loop executes no
// integer address arithmetic (checks the NVPTX back end's passes, toolchain.CODEGEN_PASSES).
#include <omp.h>
#include <cstdio>
#include <cstdlib>

#define TX 64
#define TY 4
#define HALO 8
#define TAPS 5

int main(int argc, char **argv) {
  const int w = argc > 1 ? atoi(argv[1]) : 256;  // row length, a multiple of TX
  const int h = 8;                               // rows, a multiple of TY
  const int n = w * h;
  float *in = (float *)malloc(n * sizeof(float));
  float *out = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) in[i] = (float)(i % 7);
  const int teams_x = w / TX;
  #pragma omp target teams num_teams(teams_x * (h / TY)) thread_limit(TX * TY) \
      map(to: in[0:n]) map(from: out[0:n])
  {
    float tile[TY][TX + 2 * HALO];
    #pragma omp parallel
    {
      const int tx = omp_get_thread_num() % TX;
      const int ty = omp_get_thread_num() / TX;
      const int x = (omp_get_team_num() % teams_x) * TX + tx;
      const int y = (omp_get_team_num() / teams_x) * TY + ty;
      tile[ty][HALO + tx] = in[y * w + x];
      if (tx < HALO) {
        tile[ty][tx] = x >= HALO ? in[y * w + x - HALO] : 0.0f;
        tile[ty][HALO + TX + tx] = x + TX < w ? in[y * w + x + TX] : 0.0f;
      }
      #pragma omp barrier
      float sum = 0.0f;
      #pragma unroll
      for (int k = 0; k < TAPS; k++) sum += tile[ty][HALO + tx + k - TAPS / 2];
      out[y * w + x] = sum;
    }
  }
  int ok = 1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float s = 0.0f;
      for (int k = 0; k < TAPS; k++) {
        int xx = x + k - TAPS / 2;
        s += xx >= 0 && xx < w ? in[y * w + xx] : 0.0f;
      }
      ok &= out[y * w + x] == s;
    }
  printf("%s\n", ok ? "OK" : "FAIL");
  free(in);
  free(out);
  return ok ? 0 : 1;
}
