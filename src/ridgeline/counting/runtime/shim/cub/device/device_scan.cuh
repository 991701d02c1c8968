/* ridgeline: standard CUB header name, the shim is in cub.cuh */
#pragma once
#include <cub/cub.cuh>
