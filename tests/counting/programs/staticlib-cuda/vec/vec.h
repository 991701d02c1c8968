void vec_fill(float *v, int n, float value);
void vec_norm_all(const float *v, int n);
