// A three-row stencil over a 4096 x 512 image (8 MB in, 8 MB out): more than an RTX 3080's
// L2. The loop is split into teams of 256 iterations, each a sixteenth of a row,
// and sampled. On the GPU the teams resident beside a team have read the rows it shares with
// them, so every input byte comes from DRAM once; a team counted alone reads three rows.
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {
  const int w = 4096, h = argc > 1 ? atoi(argv[1]) : 512;
  float *in = (float *)malloc((size_t)w * h * sizeof(float));
  float *out = (float *)malloc((size_t)w * h * sizeof(float));
  for (int i = 0; i < w * h; i++) in[i] = (float)(i % 7);
  #pragma omp target teams distribute parallel for collapse(2) \
      map(to: in[0:w * h]) map(from: out[w:w * (h - 2)])
  for (int y = 1; y < h - 1; y++)
    for (int x = 0; x < w; x++)
      out[y * w + x] = in[(y - 1) * w + x] + in[y * w + x] + in[(y + 1) * w + x];
  printf("%f\n", out[w + 1]);
  free(in);
  free(out);
  return 0;
}
