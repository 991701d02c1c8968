// An OpenCL host program that misbehaves, for the sandbox test of profile_program
// (tests/profiles/test_oclgrind_sandbox.py).
//   host launch OUTSIDE  launches one kernel, then writes OUTSIDE (a path outside its folder)
//                        and out.txt in its working directory; exits 0
//   host env             prints what OPENAI_API_KEY and OCLGRIND_MAX_ERRORS hold; exits 3
//   host hang            launches one kernel, then never ends
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SRC =
    "__kernel void twice(__global float *a) { size_t i = get_global_id(0); a[i] = 2.0f * i; }";

static int launch(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS) return 10;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) return 11;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  if (clBuildProgram(prog, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 12;
  cl_kernel k = clCreateKernel(prog, "twice", &err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &err);
  clSetKernelArg(k, 0, sizeof(cl_mem), &buf);
  size_t global = 64, local = 16;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL) != CL_SUCCESS)
    return 13;
  clFinish(q);
  return 0;
}

static const char *try_write(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return "denied";
  fputs("escaped\n", f);
  fclose(f);
  return "ok";
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "launch") == 0) {
    int rc = launch();
    printf("outside=%s\n", try_write(argv[2]));
    printf("cwd=%s\n", try_write("out.txt"));
    return rc;
  }
  if (argc >= 2 && strcmp(argv[1], "env") == 0) {
    const char *key = getenv("OPENAI_API_KEY");
    const char *setting = getenv("OCLGRIND_MAX_ERRORS");
    fprintf(stderr, "OPENAI_API_KEY=%s\n", key ? key : "(absent)");
    fprintf(stderr, "OCLGRIND_MAX_ERRORS=%s\n", setting ? setting : "(absent)");
    return 3;
  }
  if (argc >= 2 && strcmp(argv[1], "hang") == 0) {
    launch();
    for (;;) pause();
  }
  fprintf(stderr, "usage: host launch OUTSIDE | host env | host hang\n");
  return 2;
}
