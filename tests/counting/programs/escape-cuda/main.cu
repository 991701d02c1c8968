// A CUDA program that tries to leave the sandbox around one counted launch, for
// tests/counting/test_sandbox.py. main OUTSIDE_FILE SECRET_FILE MARKER [hang]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void scale(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * y[i];
}

int main(int argc, char **argv) {
  if (argc < 4) return 64;
  const int n = 1024;
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  scale<<<n / 256, 256>>>(y, n);
  cudaDeviceSynchronize();
  cudaFree(y);
  const char *key = getenv("OPENAI_API_KEY");
  FILE *f = fopen(argv[1], "w");  // outside the work folder
  if (f) {
    fprintf(f, "%s\n", key ? key : "(unset)");
    fclose(f);
  }
  f = fopen(argv[2], "r");  // in the user's home
  printf("secret %s\n", f ? "read" : "hidden");
  f = fopen("output.txt", "w");  // in its working directory, the program's folder
  printf("output %s\n", f ? "written" : "refused");
  if (f) {
    fputs("result\n", f);
    fclose(f);
  }
  if (fork() == 0) {  // a child that leaves the session and outlives its parent
    setsid();
    sleep(300);
    _exit(0);
  }
  if (argc > 4 && !strcmp(argv[4], "hang"))
    for (volatile unsigned long i = 0;; i++) {
    }
  return 0;
}
