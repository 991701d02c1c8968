/* ridgeline stub */
#include "__ridgeline_cuda.h"
