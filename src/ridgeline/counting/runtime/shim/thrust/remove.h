/* ridgeline: standard Thrust header name, everything is in rl_thrust.h */
#pragma once
#include <thrust/rl_thrust.h>
