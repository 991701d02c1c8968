float scale(float v);
