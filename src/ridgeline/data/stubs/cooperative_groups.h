/* ridgeline: minimal cooperative groups declarations for parsing (not a CUDA header). */
#ifndef __RIDGELINE_CG_H
#define __RIDGELINE_CG_H
#include "__ridgeline_cuda.h"
namespace cooperative_groups {
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned size() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned num_threads() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
struct grid_group : thread_group {};
template <unsigned N> struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl(T v, int l) const;
  template <class T> __device__ T shfl_down(T v, unsigned d) const;
  template <class T> __device__ T shfl_up(T v, unsigned d) const;
  template <class T> __device__ T shfl_xor(T v, unsigned d) const;
  __device__ unsigned ballot(int p) const;
  __device__ int any(int p) const;
  __device__ int all(int p) const;
  __device__ unsigned meta_group_rank() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
template <unsigned N, class G> __device__ thread_block_tile<N> tiled_partition(const G &g);
__device__ thread_group tiled_partition(const thread_group &g, unsigned n);
template <class G> __device__ void sync(const G &g);
}  // namespace cooperative_groups
#endif
