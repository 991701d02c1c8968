/* ridgeline: the cuRAND shim (host and device API) is in curand_kernel.h */
#pragma once
#include <curand_kernel.h>
