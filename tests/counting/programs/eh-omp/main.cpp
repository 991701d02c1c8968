// A target region that calls a function which may throw: its IR gets a personality
// (exceptions end in std::terminate inside a region), which the region wrapper must keep.
#include <cstdio>
#include <cstdlib>
#include <omp.h>

struct Args { double a, b, c, d; };  // 32 bytes: passed in memory, scalar code

#pragma omp declare target
// the call to a runtime function (not known not to throw) makes the region's call an invoke
void kernel(Args x, double *out) { out[omp_get_team_num()] = x.a * x.b + x.c * x.d; }
#pragma omp end declare target

int main(int argc, char **argv) {
  const int repeat = argc > 1 ? atoi(argv[1]) : 3;
  Args args = {1.0, 2.0, 3.0, 4.0};
  double r = 0.0;
  for (int i = 0; i < repeat; i++) {
    #pragma omp target map(to: args) map(from: r)
    kernel(args, &r);
  }
  printf("%g\n", r);
  return 0;
}
