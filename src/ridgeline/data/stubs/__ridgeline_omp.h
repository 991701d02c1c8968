/* ridgeline: C headers OpenMP offload programs commonly use, so regions parse without the
   C++ standard library (which is slow to parse and not needed to find regions). */
#ifndef __RIDGELINE_OMP_STUB_H
#define __RIDGELINE_OMP_STUB_H
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp.h"
#include "__ridgeline_std.h"
#endif
