/* ridgeline CPU execution layer: a part of CUB, written for ridgeline (not NVIDIA's CUB).
 * Block and warp reductions run in the runtime's thread-block model with the structure of
 * CUB's default algorithm (BLOCK_REDUCE_WARP_REDUCTIONS): a shift-down shuffle reduction in
 * every warp where a lane adds only when its partner lane holds a valid item (as CUB's
 * predicated adds), warp aggregates through shared memory, and thread 0 combining them.
 * The result is valid in thread 0 (block) or lane 0 (warp), as in CUB. Device-wide
 * reductions and scans run on the host (device memory is host memory), outside kernels, so
 * they are not counted: CUB's own kernels are not the program's kernels. */
#pragma once
#include <cstddef>
#include <functional>
#include <type_traits>

namespace cub {

struct Sum {
  template <class T> T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
  template <class T> T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
  template <class T> T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS
};

namespace detail {
static inline int linear_tid() {
  return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
/* shift-down reduction over the first `valid` lanes of a segment of `width` lanes */
template <class T, class Op> static inline T warp_reduce(T v, Op op, int lane, int valid, int width) {
  for (int o = 1; o < width; o *= 2) {
    T u = __shfl_down_sync(0xffffffffu, v, (unsigned)o, width);
    if (lane + o < valid) {
      v = op(v, u);
      __asm__ __volatile__("");  // a predicated add, as CUB's: not speculated into every lane
    }
  }
  return v;
}
}  // namespace detail

template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0> class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "ridgeline: logical warps of 1..32 threads (a power of two) are supported");

 public:
  struct TempStorage { char unused; };
  explicit WarpReduce(TempStorage &) {}
  T Sum(T v) { return Reduce(v, cub::Sum()); }
  T Sum(T v, int valid) { return Reduce(v, cub::Sum(), valid); }
  template <class Op> T Reduce(T v, Op op) { return Reduce(v, op, LOGICAL_WARP_THREADS); }
  template <class Op> T Reduce(T v, Op op, int valid) {
    int lane = detail::linear_tid() & (LOGICAL_WARP_THREADS - 1);
    return detail::warp_reduce(v, op, lane, valid, LOGICAL_WARP_THREADS);
  }
};

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int WARPS = (THREADS + 31) / 32;

 public:
  struct TempStorage { T warp_aggregates[WARPS]; };
  BlockReduce() : temp_(private_storage()) {}
  explicit BlockReduce(TempStorage &t) : temp_(t) {}

  T Sum(T v) { return Reduce(v, cub::Sum(), THREADS); }
  T Sum(T v, int num_valid) { return Reduce(v, cub::Sum(), num_valid); }
  template <int N> T Sum(T (&items)[N]) { return Reduce(items, cub::Sum()); }
  template <class Op> T Reduce(T v, Op op) { return Reduce(v, op, THREADS); }
  template <int N, class Op> T Reduce(T (&items)[N], Op op) {
    T v = items[0];
    for (int i = 1; i < N; i++) v = op(v, items[i]);
    return Reduce(v, op, THREADS);
  }
  template <class Op> T Reduce(T v, Op op, int num_valid) {
    int tid = detail::linear_tid(), lane = tid & 31, warp = tid >> 5;
    int in_warp = num_valid - warp * 32;
    in_warp = in_warp < 0 ? 0 : (in_warp > 32 ? 32 : in_warp);
    v = detail::warp_reduce(v, op, lane, in_warp, 32);
    if (lane == 0) temp_.warp_aggregates[warp] = v;
    __syncthreads();
    if (tid == 0) {
      int used = (num_valid + 31) / 32;
      for (int w = 1; w < used && w < WARPS; w++) v = op(v, temp_.warp_aggregates[w]);
    }
    return v;
  }

 private:
  static TempStorage &private_storage() {
    __shared__ TempStorage s;
    return s;
  }
  TempStorage &temp_;
};

/* ---- device-wide algorithms on the host ------------------------------------------------ */
namespace detail {
template <class F> static inline cudaError_t host_algo(void *temp, size_t &bytes, F f) {
  if (temp == nullptr) {  // the size query
    bytes = 1;
    return cudaSuccess;
  }
  f();
  return cudaSuccess;
}
}  // namespace detail

struct DeviceReduce {
  template <class I, class O, class Op, class T>
  static cudaError_t Reduce(void *temp, size_t &bytes, I in, O out, int n, Op op, T init,
                            cudaStream_t = 0) {
    return detail::host_algo(temp, bytes, [&] {
      T acc = init;
      for (int i = 0; i < n; i++) acc = op(acc, in[i]);
      *out = acc;
    });
  }
  template <class I, class O> static cudaError_t Sum(void *temp, size_t &bytes, I in, O out, int n,
                                                     cudaStream_t s = 0) {
    using T = typename std::remove_reference<decltype(*out)>::type;
    return Reduce(temp, bytes, in, out, n, cub::Sum(), T(0), s);
  }
  template <class I, class O> static cudaError_t Max(void *temp, size_t &bytes, I in, O out, int n,
                                                     cudaStream_t = 0) {
    return Extremum(temp, bytes, in, out, n, [](const auto &a, const auto &b) { return a > b; });
  }
  template <class I, class O> static cudaError_t Min(void *temp, size_t &bytes, I in, O out, int n,
                                                     cudaStream_t = 0) {
    return Extremum(temp, bytes, in, out, n, [](const auto &a, const auto &b) { return a < b; });
  }

 private:
  // the first element that no later one beats (as CUB's Max/Min: initial value in[0])
  template <class I, class O, class Better>
  static cudaError_t Extremum(void *temp, size_t &bytes, I in, O out, int n, Better better) {
    return detail::host_algo(temp, bytes, [&] {
      auto acc = in[0];
      for (int i = 1; i < n; i++) acc = better(in[i], acc) ? in[i] : acc;
      *out = acc;
    });
  }
};

struct DeviceScan {
  template <class I, class O, class Op, class T>
  static cudaError_t ExclusiveScan(void *temp, size_t &bytes, I in, O out, Op op, T init, int n,
                                   cudaStream_t = 0) {
    return detail::host_algo(temp, bytes, [&] {
      T acc = init;
      for (int i = 0; i < n; i++) { T v = in[i]; out[i] = acc; acc = op(acc, v); }
    });
  }
  template <class I, class O, class Op>
  static cudaError_t InclusiveScan(void *temp, size_t &bytes, I in, O out, Op op, int n,
                                   cudaStream_t = 0) {
    return detail::host_algo(temp, bytes, [&] {
      if (n <= 0) return;
      auto acc = in[0];
      out[0] = acc;
      for (int i = 1; i < n; i++) { acc = op(acc, in[i]); out[i] = acc; }
    });
  }
  template <class I, class O>
  static cudaError_t ExclusiveSum(void *temp, size_t &bytes, I in, O out, int n, cudaStream_t s = 0) {
    using T = typename std::remove_reference<decltype(*out)>::type;
    return ExclusiveScan(temp, bytes, in, out, cub::Sum(), T(0), n, s);
  }
  template <class I, class O>
  static cudaError_t InclusiveSum(void *temp, size_t &bytes, I in, O out, int n, cudaStream_t s = 0) {
    return InclusiveScan(temp, bytes, in, out, cub::Sum(), n, s);
  }
};

}  // namespace cub
