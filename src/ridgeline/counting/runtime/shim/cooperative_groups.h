/* ridgeline CPU execution layer: cooperative groups inside a thread block, written for
 * ridgeline (not NVIDIA's header). Groups are views of the runtime's thread-block model:
 * block sync is __syncthreads, tiles of <= 32 threads are warp segments whose shuffles are
 * the runtime's warp shuffles, coalesced groups are the lanes of a ballot. Grid-wide groups
 * (this_grid, cooperative launches) are not provided. */
#pragma once
#include <type_traits>

namespace cooperative_groups {

static inline unsigned __rl_linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned thread_rank() const { return __rl_linear_tid(); }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned num_threads() const { return size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};
static inline thread_block this_thread_block() { return thread_block(); }

/* a warp segment of N threads (N a power of two, at most 32) */
template <unsigned N> class thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "ridgeline: tiles of 1..32 threads (a power of two) are supported");

 public:
  static constexpr unsigned num_threads() { return N; }
  static constexpr unsigned size() { return N; }
  void sync() const { __syncwarp(); }
  unsigned thread_rank() const { return __rl_linear_tid() & (N - 1); }
  unsigned meta_group_rank() const { return __rl_linear_tid() / N; }
  unsigned meta_group_size() const {
    return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N;
  }
  template <class T> T shfl(T v, int src) const { return __shfl_sync(0xffffffffu, v, src, N); }
  template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(0xffffffffu, v, d, N); }
  template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(0xffffffffu, v, d, N); }
  template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(0xffffffffu, v, m, N); }
  unsigned ballot(int p) const { return (__ballot_sync(0xffffffffu, p) >> base()) & mask(); }
  int any(int p) const { return ballot(p) != 0; }
  int all(int p) const { return ballot(p) == mask(); }

 private:
  static unsigned mask() { return N == 32 ? 0xffffffffu : ((1u << N) - 1u); }
  static unsigned base() { return (__rl_linear_tid() & 31u) & ~(N - 1); }
};
template <unsigned N> static inline thread_block_tile<N> tiled_partition(const thread_block &) {
  return thread_block_tile<N>();
}

/* the lanes of this warp that are here now */
class coalesced_group {
 public:
  explicit coalesced_group(unsigned m) : mask_(m) {}
  unsigned size() const { return (unsigned)__builtin_popcount(mask_); }
  unsigned num_threads() const { return size(); }
  unsigned thread_rank() const {
    unsigned lane = __rl_linear_tid() & 31u;
    return (unsigned)__builtin_popcount(mask_ & ((1u << lane) - 1u));
  }
  void sync() const { __syncwarp(mask_); }
  template <class T> T shfl(T v, unsigned rank) const {
    return __shfl_sync(mask_, v, lane_of(rank), 32);
  }
  unsigned ballot(int p) const { return __ballot_sync(mask_, p) & mask_; }

 private:
  int lane_of(unsigned rank) const {
    unsigned m = mask_;
    for (unsigned i = 0; i < rank && m; i++) m &= m - 1;  // drop the lowest set bits
    return m ? __builtin_ctz(m) : 0;
  }
  unsigned mask_;
};
static inline coalesced_group coalesced_threads() { return coalesced_group(__ballot_sync(0xffffffffu, 1)); }

static inline void sync(const thread_block &g) { g.sync(); }
template <unsigned N> static inline void sync(const thread_block_tile<N> &g) { g.sync(); }
static inline void sync(const coalesced_group &g) { g.sync(); }

template <class T = void> struct plus { T operator()(const T &a, const T &b) const { return a + b; } };
template <class T = void> struct less { T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <class T = void> struct greater { T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <class T = void> struct bit_and { T operator()(const T &a, const T &b) const { return a & b; } };
template <class T = void> struct bit_or { T operator()(const T &a, const T &b) const { return a | b; } };
template <class T = void> struct bit_xor { T operator()(const T &a, const T &b) const { return a ^ b; } };

/* butterfly reduction over the tile: every lane ends with the result (log2 N steps) */
template <unsigned N, class T, class Op>
static inline T reduce(const thread_block_tile<N> &g, T v, Op op) {
  for (unsigned o = N / 2; o > 0; o /= 2) v = op(v, g.shfl_xor(v, (int)o));
  return v;
}

}  // namespace cooperative_groups
