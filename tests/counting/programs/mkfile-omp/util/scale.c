#include "scale.h"
float scale(float v) { return v * 0.5f; }
