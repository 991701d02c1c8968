#pragma once
#include "../rl_cuda.h"
