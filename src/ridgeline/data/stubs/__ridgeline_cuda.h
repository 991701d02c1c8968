/* ridgeline: minimal CUDA declarations for parsing with libclang (-nocudainc).
   Written for ridgeline; declares only what kernels commonly use. Not a CUDA header. */
#ifndef __RIDGELINE_CUDA_H
#define __RIDGELINE_CUDA_H
#define __CUDACC__ 1
#define __NVCC__ 1
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 860
#endif
#define CUDART_VERSION 12000
/* parsed as plain C++: the CUDA qualifiers become annotations ridgeline reads back */
#define __host__
#define __device__ __attribute__((annotate("__device__")))
#define __global__ __attribute__((annotate("__global__")))
#define __shared__ __attribute__((annotate("__shared__")))
#define __constant__ __attribute__((annotate("__constant__")))
#define __managed__ __attribute__((annotate("__managed__")))
#define __launch_bounds__(...)
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "__ridgeline_std.h"

#define __RL_VEC(T, N) \
  struct T##1 { N x; }; struct T##2 { N x, y; }; struct T##3 { N x, y, z; }; \
  struct __attribute__((aligned(4 * sizeof(N)))) T##4 { N x, y, z, w; }; \
  __host__ __device__ T##1 make_##T##1(N); __host__ __device__ T##2 make_##T##2(N, N); \
  __host__ __device__ T##3 make_##T##3(N, N, N); __host__ __device__ T##4 make_##T##4(N, N, N, N);
__RL_VEC(char, signed char) __RL_VEC(uchar, unsigned char) __RL_VEC(short, short)
__RL_VEC(ushort, unsigned short) __RL_VEC(int, int) __RL_VEC(uint, unsigned int)
__RL_VEC(long, long) __RL_VEC(ulong, unsigned long) __RL_VEC(longlong, long long)
__RL_VEC(ulonglong, unsigned long long) __RL_VEC(float, float) __RL_VEC(double, double)
#undef __RL_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum { cudaSuccess = 0 };
struct cudaDeviceProp { char name[256]; int multiProcessorCount; int major, minor;
                        size_t sharedMemPerBlock; int maxThreadsPerBlock; int warpSize; };
template <class T> cudaError_t cudaMalloc(T **p, size_t n);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f = 1);
template <class T> cudaError_t cudaMallocHost(T **p, size_t n);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                            cudaStream_t st = 0);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &sym, const void *s, size_t n,
                                                  size_t off = 0,
                                                  cudaMemcpyKind k = cudaMemcpyHostToDevice);
cudaError_t cudaMemset(void *d, int v, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDevice(int *dev);

/* device built-ins */
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
#define __RL_ATOMIC(name) \
  __device__ int name(int *, int); __device__ unsigned name(unsigned *, unsigned); \
  __device__ unsigned long long name(unsigned long long *, unsigned long long); \
  __device__ float name(float *, float); __device__ double name(double *, double);
__RL_ATOMIC(atomicAdd) __RL_ATOMIC(atomicSub) __RL_ATOMIC(atomicExch) __RL_ATOMIC(atomicMin)
__RL_ATOMIC(atomicMax) __RL_ATOMIC(atomicAnd) __RL_ATOMIC(atomicOr) __RL_ATOMIC(atomicXor)
__RL_ATOMIC(atomicInc) __RL_ATOMIC(atomicDec) __RL_ATOMIC(atomicAdd_block)
__RL_ATOMIC(atomicAdd_system)
#undef __RL_ATOMIC
__device__ int atomicCAS(int *, int, int);
__device__ unsigned atomicCAS(unsigned *, unsigned, unsigned);
__device__ unsigned long long atomicCAS(unsigned long long *, unsigned long long,
                                        unsigned long long);
template <class T> __device__ T __shfl_sync(unsigned m, T v, int l, int w = 32);
template <class T> __device__ T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned m, T v, int l, int w = 32);
template <class T> __device__ T __shfl(T v, int l, int w = 32);
template <class T> __device__ T __shfl_up(T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_down(T v, unsigned d, int w = 32);
template <class T> __device__ T __shfl_xor(T v, int l, int w = 32);
template <class T> __device__ T __ldg(const T *p);
__device__ unsigned __ballot_sync(unsigned m, int p);
__device__ int __all_sync(unsigned m, int p);
__device__ int __any_sync(unsigned m, int p);
__device__ unsigned __activemask(void);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned __brev(unsigned);
__device__ int __mul24(int, int);
__device__ int __umul24(unsigned, unsigned);
__device__ int __mulhi(int, int);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ float __uint_as_float(unsigned);
__device__ unsigned __float_as_uint(float);
__device__ double __longlong_as_double(long long);
__device__ long long __double_as_longlong(double);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ unsigned __float2uint_rn(float);
__device__ float __int2float_rn(int);
__device__ int __double2int_rn(double);
__device__ float __fdividef(float, float);
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ void __sincosf(float, float *, float *);
__device__ float __saturatef(float);
__device__ float __fmaf_rn(float, float, float);
__device__ double __fma_rn(double, double, double);
__device__ float __fmul_rn(float, float);
__device__ float __fadd_rn(float, float);
__device__ float __frcp_rn(float);
__device__ float __fsqrt_rn(float);
__device__ double __drcp_rn(double);
__device__ float rsqrtf(float);
__device__ double rsqrt(double);
__device__ void sincospif(float, float *, float *);
__device__ float normf(int, const float *);
__host__ __device__ int min(int, int);
__host__ __device__ unsigned min(unsigned, unsigned);
__host__ __device__ long long min(long long, long long);
__host__ __device__ float min(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned max(unsigned, unsigned);
__host__ __device__ long long max(long long, long long);
__host__ __device__ float max(float, float);
__host__ __device__ double max(double, double);
__device__ long long clock64(void);
__device__ long clock(void);
#endif
