/* CUDA runtime API on the host, half precision and the launch helper (part of rl_cuda.h). */
#pragma once

/* ---- errors, devices, memory ----------------------------------------------------------- */
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorInitializationError = 3, cudaErrorInvalidDevice = 101,
                 cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDevicePointer = 17,
                 cudaErrorInvalidMemcpyDirection = 21, cudaErrorNoDevice = 100,
                 cudaErrorNotReady = 600, cudaErrorHostMemoryAlreadyRegistered = 712,
                 cudaErrorHostMemoryNotRegistered = 713, cudaErrorLaunchOutOfResources = 701,
                 cudaErrorAssert = 710, cudaErrorLaunchFailure = 719,
                 cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
typedef cudaError_t CUresult;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1,
                      cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3,
                      cudaMemcpyDefault = 4 };
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared,
                     cudaFuncCachePreferL1, cudaFuncCachePreferEqual };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte,
                           cudaSharedMemBankSizeEightByte };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrWarpSize = 10, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrComputeCapabilityMajor = 75,
                      cudaDevAttrComputeCapabilityMinor = 76,
                      cudaDevAttrConcurrentManagedAccess = 89,
                      cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
struct CUstream_st;
struct CUevent_st { std::chrono::steady_clock::time_point t; };
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamDefault 0
#define cudaStreamNonBlocking 1
#define cudaEventDefault 0
#define cudaEventBlockingSync 1
#define cudaEventDisableTiming 2
#define cudaHostAllocDefault 0
#define cudaHostAllocPortable 1
#define cudaHostAllocMapped 2
#define cudaHostAllocWriteCombined 4
#define cudaHostRegisterDefault 0
#define cudaHostRegisterPortable 1
#define cudaHostRegisterMapped 2
#define cudaHostRegisterIoMemory 4
#define cudaHostRegisterReadOnly 8
#define cudaMemAttachGlobal 1
#define cudaMemAttachHost 2
#define cudaMemAttachSingle 4
#define cudaCpuDeviceId (-1)
struct cudaDeviceProp {
  char name[256]; size_t totalGlobalMem, sharedMemPerBlock; int regsPerBlock, warpSize;
  size_t memPitch; int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem; int major, minor; size_t textureAlignment; int deviceOverlap,
  multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode,
  concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, asyncEngineCount, unifiedAddressing,
  memoryClockRate, memoryBusWidth, l2CacheSize, maxThreadsPerMultiProcessor,
  sharedMemPerMultiprocessor, regsPerMultiprocessor, managedMemory, isMultiGpuBoard,
  sharedMemPerBlockOptin, pageableMemoryAccess, cooperativeLaunch;
  size_t sharedMemPerBlockOptinSz;
};
struct cudaFuncAttributes { size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
                            int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion; };

extern "C" {
cudaError_t __rl_malloc(void **p, size_t n);
void __rl_host_flags_set(const void *p, unsigned f);
void __rl_host_flags_forget(const void *p);
int __rl_host_flags_get(const void *p, unsigned *f);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k);
cudaError_t cudaMemset(void *d, int v, size_t n);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
void __rl_run_launch(const char *name, dim3 g, dim3 b, size_t shmem, void *ctx,
                     void (*body)(void *));
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return __rl_malloc((void **)p, n); }
template <class T> static inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned = 1) { return __rl_malloc((void **)p, n); }
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t n, unsigned f = 0) { cudaError_t e = __rl_malloc((void **)p, n); if (e == cudaSuccess) __rl_host_flags_set(*p, f); return e; }
template <class T> static inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned f = 0) { cudaError_t e = __rl_malloc((void **)p, n); if (e == cudaSuccess) __rl_host_flags_set(*p, f); return e; }
template <class T> static inline cudaError_t cudaMallocPitch(T **p, size_t *pitch, size_t w, size_t h) { *pitch = (w + 255) / 256 * 256; return __rl_malloc((void **)p, *pitch * h); }
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned) { *d = (T *)h; return cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *p) { __rl_host_flags_forget(p); return cudaFree(p); }
/* the C forms beside the templates (a void ** argument picks these) */
static inline cudaError_t cudaMallocHost(void **p, size_t n) { cudaError_t e = __rl_malloc(p, n); if (e == cudaSuccess) __rl_host_flags_set(*p, 0); return e; }
static inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned f) { cudaError_t e = __rl_malloc(p, n); if (e == cudaSuccess) __rl_host_flags_set(*p, f); return e; }
static inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned = cudaMemAttachGlobal) { return __rl_malloc(p, n); }
static inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned) { *d = h; return cudaSuccess; }
/* host memory is device memory here: registering pins nothing, it remembers the flags */
static inline cudaError_t cudaHostRegister(void *p, size_t, unsigned f) { if (!p) return cudaErrorInvalidValue; __rl_host_flags_set(p, f); return cudaSuccess; }
static inline cudaError_t cudaHostUnregister(void *p) { unsigned f; if (!__rl_host_flags_get(p, &f)) return cudaErrorHostMemoryNotRegistered; __rl_host_flags_forget(p); return cudaSuccess; }
static inline cudaError_t cudaHostGetFlags(unsigned *f, void *p) { return __rl_host_flags_get(p, f) ? cudaSuccess : cudaErrorInvalidValue; }

/* ---- stream-ordered allocation: streams run in order here, so an allocation is ready at
 * once and a free takes effect at once; a pool keeps its attributes --------------------- */
enum cudaMemPoolAttr { cudaMemPoolReuseFollowEventDependencies = 1,
                       cudaMemPoolReuseAllowOpportunistic = 2,
                       cudaMemPoolReuseAllowInternalDependencies = 3,
                       cudaMemPoolAttrReleaseThreshold = 4, cudaMemPoolAttrReservedMemCurrent = 5,
                       cudaMemPoolAttrReservedMemHigh = 6, cudaMemPoolAttrUsedMemCurrent = 7,
                       cudaMemPoolAttrUsedMemHigh = 8 };
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0, cudaMemHandleTypePosixFileDescriptor = 1 };
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1 };
enum cudaMemAccessFlags { cudaMemAccessFlagsProtNone = 0, cudaMemAccessFlagsProtRead = 1,
                          cudaMemAccessFlagsProtReadWrite = 3 };
struct cudaMemLocation { cudaMemLocationType type; int id; };
struct cudaMemAccessDesc { cudaMemLocation location; cudaMemAccessFlags flags; };
struct cudaMemPoolProps {
  cudaMemAllocationType allocType; cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location; void *win32SecurityAttributes; size_t maxSize;
  unsigned short usage; unsigned char reserved[54];
};
struct CUmemPoolHandle_st { unsigned long long attr[9]; };
typedef CUmemPoolHandle_st *cudaMemPool_t;
/* one default pool for the program (an inline function's static is shared by every unit) */
inline cudaMemPool_t __rl_default_pool() {
  static CUmemPoolHandle_st pool = {{0, 1, 1, 1, 0, 0, 0, 0, 0}};
  return &pool;
}
inline cudaMemPool_t &__rl_current_pool() { static cudaMemPool_t cur = __rl_default_pool(); return cur; }
static inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t = 0) { return __rl_malloc(p, n); }
static inline cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t) { return pool ? __rl_malloc(p, n) : cudaErrorInvalidValue; }
template <class T> static inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s = 0) { return cudaMallocAsync((void **)p, n, s); }
template <class T> static inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s) { return cudaMallocFromPoolAsync((void **)p, n, pool, s); }
template <class T> static inline cudaError_t cudaMallocFromPoolAsync(T **p, size_t n, cudaMemPool_t pool, cudaStream_t s) { return cudaMallocFromPoolAsync((void **)p, n, pool, s); }
static inline cudaError_t cudaFreeAsync(void *p, cudaStream_t = 0) { return cudaFree(p); }
static inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int) { *pool = __rl_default_pool(); return cudaSuccess; }
static inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int) { *pool = __rl_current_pool(); return cudaSuccess; }
static inline cudaError_t cudaDeviceSetMemPool(int, cudaMemPool_t pool) { if (!pool) return cudaErrorInvalidValue; __rl_current_pool() = pool; return cudaSuccess; }
static inline cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *) { *pool = new CUmemPoolHandle_st{{0, 1, 1, 1, 0, 0, 0, 0, 0}}; return cudaSuccess; }
static inline cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) { if (!pool || pool == __rl_default_pool()) return cudaErrorInvalidValue; delete pool; return cudaSuccess; }
/* reuse switches are ints, the others 64-bit byte counts (the memory figures stay 0: the
 * allocations are not pooled) */
static inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if (!pool || a < 1 || a > 8 || !v) return cudaErrorInvalidValue;
  pool->attr[a] = a <= 3 ? (unsigned long long)*(int *)v : *(unsigned long long *)v;
  return cudaSuccess;
}
static inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr a, void *v) {
  if (!pool || a < 1 || a > 8 || !v) return cudaErrorInvalidValue;
  if (a <= 3) *(int *)v = (int)pool->attr[a]; else *(unsigned long long *)v = pool->attr[a];
  return cudaSuccess;
}
static inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) { return pool ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc *, size_t) { return pool ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *f, cudaMemPool_t pool, cudaMemLocation *) { *f = cudaMemAccessFlagsProtReadWrite; return pool ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t = 0) { return cudaMemcpy(d, s, n, k); }
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t = 0) { return cudaMemset(d, v, n); }
static inline cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, cudaMemcpyKind) { for (size_t i = 0; i < h; i++) std::memcpy((char *)d + i * dp, (const char *)s + i * sp, w); return cudaSuccess; }
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t = 0) { return cudaMemcpy2D(d, dp, s, sp, w, h, k); }
static inline cudaError_t cudaMemset2D(void *d, size_t p, int v, size_t w, size_t h) { for (size_t i = 0; i < h; i++) std::memset((char *)d + i * p, v, w); return cudaSuccess; }
template <class T> static inline cudaError_t cudaMemcpyToSymbol(T &sym, const void *s, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) { std::memcpy((char *)&sym + off, s, n); return cudaSuccess; }
template <class T> static inline cudaError_t cudaMemcpyToSymbolAsync(T &sym, const void *s, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = 0) { std::memcpy((char *)&sym + off, s, n); return cudaSuccess; }
template <class T> static inline cudaError_t cudaMemcpyFromSymbol(void *d, const T &sym, size_t n, size_t off = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost) { std::memcpy(d, (const char *)&sym + off, n); return cudaSuccess; }
template <class T> static inline cudaError_t cudaGetSymbolAddress(void **p, T &sym) { *p = (void *)&sym; return cudaSuccess; }
static inline cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = 0) { return cudaSuccess; }
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,
                        cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,
                        cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };
static inline cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int) { return cudaSuccess; }
static inline cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = (size_t)8 << 30; *t = (size_t)10 << 30; return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
static inline cudaError_t cudaThreadSynchronize() { return cudaSuccess; }
static inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
static inline cudaError_t cudaFree(std::nullptr_t) { return cudaSuccess; }
static inline cudaError_t cudaGetLastError() { return cudaSuccess; }
static inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
static inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSetLimit(int, size_t) { return cudaSuccess; }
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) { switch (a) { case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break; case cudaDevAttrWarpSize: *v = 32; break; case cudaDevAttrMultiProcessorCount: *v = 68; break; case cudaDevAttrComputeCapabilityMajor: *v = 8; break; case cudaDevAttrComputeCapabilityMinor: *v = 6; break; default: *v = 49152; } return cudaSuccess; }
template <class F> static inline cudaError_t cudaFuncSetCacheConfig(F, cudaFuncCache) { return cudaSuccess; }
template <class F> static inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }
template <class F> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F) { std::memset(a, 0, sizeof *a); a->maxThreadsPerBlock = 1024; a->numRegs = 32; return cudaSuccess; }
template <class F> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int bs, size_t) { *n = bs > 0 ? 2048 / bs : 1; return cudaSuccess; }
template <class F> static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *g, int *b, F, size_t = 0, int = 0) { *g = 68 * 8; *b = 256; return cudaSuccess; }
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = nullptr; return cudaSuccess; }
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { *s = nullptr; return cudaSuccess; }
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int) { *s = nullptr; return cudaSuccess; }
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *lo, int *hi) { *lo = 0; *hi = -5; return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new CUevent_st(); return cudaSuccess; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = new CUevent_st(); return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = 0) { e->t = std::chrono::steady_clock::now(); return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 12000; return cudaSuccess; }
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 12000; return cudaSuccess; }

/* ---- half precision (storage and arithmetic as _Float16: counted as HP) ----------------- */
typedef _Float16 __half;
typedef _Float16 half;
struct __attribute__((aligned(4))) __half2 { __half x, y; };
/* the bits of a half (NVIDIA's header has them as the storage behind __half) */
struct __half_raw {
  unsigned short x;
  __half_raw() = default;
  __half_raw(__half h) { std::memcpy(&x, &h, 2); }
  operator __half() const { __half h; std::memcpy(&h, &x, 2); return h; }
  static __half_raw raw(unsigned short v) { __half_raw r; r.x = v; return r; }
};
struct __half2_raw { unsigned short x, y; };
typedef __half2 half2;
static inline __half __float2half(float f) { return (__half)f; }
static inline __half __float2half_rn(float f) { return (__half)f; }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return (__half)i; }
static inline __half __double2half(double d) { return (__half)d; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{(__half)a, (__half)b}; }
static inline __half2 __float2half2_rn(float a) { return __half2{(__half)a, (__half)a}; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline __half2 __half2half2(__half a) { return __half2{a, a}; }
static inline __half2 __float22half2_rn(float2 f) { return __half2{(__half)f.x, (__half)f.y}; }
static inline float2 __half22float2(__half2 h) { return float2{(float)h.x, (float)h.y}; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hfma(__half a, __half b, __half c) { return a * b + c; }
static inline __half __hneg(__half a) { return -a; }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hle(__half a, __half b) { return a <= b; }
static inline bool __hge(__half a, __half b) { return a >= b; }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline __half __hmax(__half a, __half b) { return a > b ? a : b; }
static inline __half __hmin(__half a, __half b) { return a < b ? a : b; }
static inline __half hsqrt(__half a) { return (__half)sqrtf((float)a); }
static inline __half hexp(__half a) { return (__half)expf((float)a); }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{a.x * b.x + c.x, a.y * b.y + c.y}; }
static inline __half2 __hneg2(__half2 a) { return __half2{-a.x, -a.y}; }
#define RL_H2CMP(N, OP)                                                                      \
  static inline __half2 N(__half2 a, __half2 b) {                                            \
    return __half2{(__half)(a.x OP b.x ? 1.f : 0.f), (__half)(a.y OP b.y ? 1.f : 0.f)}; }
RL_H2CMP(__hgt2, >) RL_H2CMP(__hlt2, <) RL_H2CMP(__hge2, >=) RL_H2CMP(__hle2, <=)
RL_H2CMP(__heq2, ==) RL_H2CMP(__hne2, !=)
#undef RL_H2CMP
static inline __half2 __hmax2(__half2 a, __half2 b) { return __half2{a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y}; }
static inline __half2 __hmin2(__half2 a, __half2 b) { return __half2{a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y}; }
static inline __half2 operator+(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
static inline __half2 operator-(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
static inline __half2 operator*(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
static inline __half2 operator-(__half2 a) { return __half2{-a.x, -a.y}; }
RL_FN __half atomicAdd(__half *a, __half v) { __half o = *a; *a = o + v; return o; }
RL_FN __half2 atomicAdd(__half2 *a, __half2 v) { __half2 o = *a; a->x = o.x + v.x; a->y = o.y + v.y; return o; }
/* the _block and _system scopes: one device, one address space, the same operation. Variadic
 * forwarders, after every overload here (class types such as cuda_bf16.h's are found by
 * argument-dependent lookup) */
#define RL_ATOM_SCOPES(OP)                                                                   \
  template <class... A> static inline auto OP##_block(A... a) -> decltype(OP(a...)) { return OP(a...); } \
  template <class... A> static inline auto OP##_system(A... a) -> decltype(OP(a...)) { return OP(a...); }
RL_ATOM_SCOPES(atomicAdd) RL_ATOM_SCOPES(atomicSub) RL_ATOM_SCOPES(atomicExch)
RL_ATOM_SCOPES(atomicMin) RL_ATOM_SCOPES(atomicMax) RL_ATOM_SCOPES(atomicInc)
RL_ATOM_SCOPES(atomicDec) RL_ATOM_SCOPES(atomicCAS) RL_ATOM_SCOPES(atomicAnd)
RL_ATOM_SCOPES(atomicOr) RL_ATOM_SCOPES(atomicXor)
#undef RL_ATOM_SCOPES


/* std::apply is C++17; programs may be built as C++14 */
template <class F, class T, std::size_t... I>
static inline void __rl_apply_seq(F &&f, T &t, std::index_sequence<I...>) {
  f(std::get<I>(t)...);
}
template <class F, class T> static inline void __rl_apply(F &&f, T &t) {
  __rl_apply_seq(std::forward<F>(f), t,
                 std::make_index_sequence<std::tuple_size<typename std::decay<T>::type>::value>());
}

/* ---- launches: name<<<g, b, shmem, stream>>>(args) is rewritten to
 * __rl_launcher("name", name, g, b, shmem, stream)(args) ------------------------------ */
template <class... P> struct __rl_Launch {
  const char *name; void (*kernel)(P...); dim3 grid, block; size_t shmem;
  template <class... A> void operator()(A &&...a) const {
    auto args = std::tuple<typename std::decay<P>::type...>(std::forward<A>(a)...);
    struct Ctx { void (*k)(P...); decltype(args) *t; } ctx{kernel, &args};
    __rl_run_launch(name, grid, block, shmem, &ctx, [](void *c) {
      Ctx *x = static_cast<Ctx *>(c);
      __rl_apply(x->k, *x->t);
    });
  }
};
template <class... P>
static inline __rl_Launch<P...> __rl_launcher(const char *name, void (*k)(P...), dim3 g, dim3 b,
                                              size_t shmem = 0, cudaStream_t = 0) {
  return __rl_Launch<P...>{name, k, g, b, shmem};
}

/* templated kernels with partly deduced template arguments: the rewrite passes a generic
 * lambda that calls the kernel expression, so deduction happens at the call */
template <class F> struct __rl_LaunchF {
  const char *name; F f; dim3 grid, block; size_t shmem;
  template <class... A> void operator()(A &&...a) const {
    auto args = std::make_tuple(std::forward<A>(a)...);
    struct Ctx { const F *f; decltype(args) *t; } ctx{&f, &args};
    __rl_run_launch(name, grid, block, shmem, &ctx, [](void *c) {
      Ctx *x = static_cast<Ctx *>(c);
      __rl_apply(*x->f, *x->t);
    });
  }
};
template <class F>
static inline __rl_LaunchF<F> __rl_launcher_f(const char *name, F f, dim3 g, dim3 b,
                                              size_t shmem = 0, cudaStream_t = 0) {
  return __rl_LaunchF<F>{name, f, g, b, shmem};
}

/* the form the rewrite emits: the launch's call, as written, inside a lambda */
template <class L>
static inline void __rl_launch_call(const char *name, const L &call, dim3 g, dim3 b,
                                    size_t shmem = 0, cudaStream_t = 0) {
  // one key per launch site and template instantiation: "kernel@<lambda type>"
  static char key[512];
  if (!key[0]) snprintf(key, sizeof key, "%s@%s", name, typeid(L).name());
  __rl_run_launch(key, g, b, shmem, const_cast<void *>(static_cast<const void *>(&call)),
                  [](void *c) { (*static_cast<const L *>(c))(); });
}
