/* ridgeline CPU execution layer: a minimal cuRAND, written for ridgeline (not NVIDIA's).
 * The device generator is an xorwow generator (Marsaglia's xorshift with a Weyl sequence, the
 * family of cuRAND's default); its integer operations are counted as the program's, and need
 * not match NVIDIA's instruction for instruction. The uniform conversions are the usual one
 * multiply-add (float: 32 random bits; double: 53 from two draws), normals are Box-Muller.
 * The host API fills device memory (host memory here) outside kernels: not counted. */
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>

struct curandStateXORWOW { unsigned int d, v[5]; int has_normal; float normal; double normal_d; };
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;

static inline unsigned long long __rl_splitmix(unsigned long long &x) {
  unsigned long long z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline unsigned int curand(curandStateXORWOW *s) {
  unsigned int t = s->v[0] ^ (s->v[0] >> 2);
  s->v[0] = s->v[1]; s->v[1] = s->v[2]; s->v[2] = s->v[3]; s->v[3] = s->v[4];
  s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
  s->d += 362437u;
  return s->v[4] + s->d;
}
/* every (seed, subsequence) pair gets its own stream; offset skips that many draws */
static inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset, curandStateXORWOW *s) {
  unsigned long long x = seed ^ (subsequence * 0xD1B54A32D192ED03ull);
  for (int i = 0; i < 5; i++) {
    s->v[i] = (unsigned int)__rl_splitmix(x);
    if (s->v[i] == 0) s->v[i] = 0x6C078965u;
  }
  s->d = (unsigned int)__rl_splitmix(x);
  s->has_normal = 0;
  for (unsigned long long i = 0; i < offset; i++) curand(s);
}
#define RL_CURAND_2POW32_INV 2.3283064e-10f
#define RL_CURAND_2POW53_INV 1.1102230246251565e-16
/* conversions shared by every generator state (each has curand(S *) and the normal cache) */
template <class S> static inline float curand_uniform(S *s) {  /* (0, 1] */
  return curand(s) * RL_CURAND_2POW32_INV + RL_CURAND_2POW32_INV / 2.0f;
}
template <class S> static inline double curand_uniform_double(S *s) {
  unsigned long long x = curand(s), y = curand(s);
  unsigned long long z = x ^ (y << (53 - 32));
  return z * RL_CURAND_2POW53_INV + RL_CURAND_2POW53_INV / 2.0;
}
template <class S> static inline float curand_normal(S *s) {
  if (s->has_normal) { s->has_normal = 0; return s->normal; }
  float u = curand_uniform(s), v = curand_uniform(s);
  float r = sqrtf(-2.0f * logf(u)), a = 6.2831853f * v;
  s->normal = r * sinf(a);
  s->has_normal = 1;
  return r * cosf(a);
}
template <class S> static inline double curand_normal_double(S *s) {
  double u = curand_uniform_double(s), v = curand_uniform_double(s);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}
template <class S> static inline float curand_log_normal(S *s, float m, float sd) {
  return expf(m + sd * curand_normal(s));
}

/* Philox4x32-10 (Salmon et al., SC'11: a counter-based generator, four 32-bit outputs per
 * counter value, ten rounds of two multiply-high mixes and a Weyl-sequence key). The key is
 * the seed; the subsequence is the counter's upper half; offset skips that many outputs. */
struct curandStatePhilox4_32_10 {
  unsigned int ctr[4], key[2], out[4];
  int idx; /* next output in out[] (4: a new block is due) */
  int has_normal; float normal; double normal_d;
};
typedef curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
static inline void __rl_philox_block(curandStatePhilox4_32_10 *s) {
  unsigned int c0 = s->ctr[0], c1 = s->ctr[1], c2 = s->ctr[2], c3 = s->ctr[3];
  unsigned int k0 = s->key[0], k1 = s->key[1];
  for (int r = 0; r < 10; r++) {
    unsigned long long p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
    unsigned int n0 = (unsigned int)(p1 >> 32) ^ c1 ^ k0, n2 = (unsigned int)(p0 >> 32) ^ c3 ^ k1;
    c1 = (unsigned int)p1; c3 = (unsigned int)p0; c0 = n0; c2 = n2;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  s->out[0] = c0; s->out[1] = c1; s->out[2] = c2; s->out[3] = c3;
  if (++s->ctr[0] == 0 && ++s->ctr[1] == 0 && ++s->ctr[2] == 0) ++s->ctr[3];
  s->idx = 0;
}
static inline unsigned int curand(curandStatePhilox4_32_10 *s) {
  if (s->idx >= 4) __rl_philox_block(s);
  return s->out[s->idx++];
}
static inline void curand_init(unsigned long long seed, unsigned long long subsequence,
                               unsigned long long offset, curandStatePhilox4_32_10 *s) {
  s->key[0] = (unsigned int)seed; s->key[1] = (unsigned int)(seed >> 32);
  s->ctr[0] = (unsigned int)(offset / 4); s->ctr[1] = (unsigned int)(offset / 4 >> 32);
  s->ctr[2] = (unsigned int)subsequence; s->ctr[3] = (unsigned int)(subsequence >> 32);
  s->idx = 4; s->has_normal = 0;
  if (offset % 4) { __rl_philox_block(s); s->idx = (int)(offset % 4); }
}
static inline uint4 curand4(curandStatePhilox4_32_10 *s) {
  uint4 r; r.x = curand(s); r.y = curand(s); r.z = curand(s); r.w = curand(s);
  return r;
}
static inline float4 curand_uniform4(curandStatePhilox4_32_10 *s) {
  float4 r; r.x = curand_uniform(s); r.y = curand_uniform(s); r.z = curand_uniform(s);
  r.w = curand_uniform(s);
  return r;
}
static inline float4 curand_normal4(curandStatePhilox4_32_10 *s) {
  float4 r; r.x = curand_normal(s); r.y = curand_normal(s); r.z = curand_normal(s);
  r.w = curand_normal(s);
  return r;
}

/* ---- host API ------------------------------------------------------------------------------ */
enum curandStatus { CURAND_STATUS_SUCCESS = 0, CURAND_STATUS_NOT_INITIALIZED = 101 };
typedef enum curandStatus curandStatus_t;
enum curandRngType { CURAND_RNG_PSEUDO_DEFAULT = 100, CURAND_RNG_PSEUDO_XORWOW = 101,
                     CURAND_RNG_PSEUDO_MRG32K3A = 121, CURAND_RNG_PSEUDO_MTGP32 = 141,
                     CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161 };
typedef enum curandRngType curandRngType_t;
struct curandGenerator_st { curandStateXORWOW s; unsigned long long seed; };
typedef curandGenerator_st *curandGenerator_t;
static inline curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t) {
  *g = new curandGenerator_st();
  curand_init(0, 0, 0, &(*g)->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandCreateGeneratorHost(curandGenerator_t *g, curandRngType_t t) {
  return curandCreateGenerator(g, t);
}
static inline curandStatus_t curandDestroyGenerator(curandGenerator_t g) { delete g; return CURAND_STATUS_SUCCESS; }
static inline curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed) {
  g->seed = seed;
  curand_init(seed, 0, 0, &g->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandSetStream(curandGenerator_t, cudaStream_t) { return CURAND_STATUS_SUCCESS; }
static inline curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = curand(&g->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandGenerateUniform(curandGenerator_t g, float *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = curand_uniform(&g->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = curand_uniform_double(&g->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandGenerateNormal(curandGenerator_t g, float *p, size_t n, float m, float sd) {
  for (size_t i = 0; i < n; i++) p[i] = m + sd * curand_normal(&g->s);
  return CURAND_STATUS_SUCCESS;
}
static inline curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *p, size_t n, double m, double sd) {
  for (size_t i = 0; i < n; i++) p[i] = m + sd * curand_normal_double(&g->s);
  return CURAND_STATUS_SUCCESS;
}
