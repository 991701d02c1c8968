/* ridgeline stub */
#include "__ridgeline_fp16.h"
