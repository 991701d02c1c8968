"""A tiny multi-backend "stream" benchmark, written by the tests that need it: one driver
(``main.cpp``) picks the backend by ``#if defined(CUDA)`` / ``#if defined(OMP)`` ..., one
class per backend beside it, and a make fragment per backend (``CUDA.make``,
``OpenMP.make``) that defines the macro and names the sources. The SYCL and OpenACC backends
cannot be built here (no SYCL or OpenACC compiler)."""

from __future__ import annotations

from pathlib import Path

STREAM_FILES: dict[str, str] = {
    "Stream.h": """\
#pragma once
template <class T>
class Stream {
 public:
  virtual ~Stream() {}
  virtual void init_arrays(T a, T b, T c) = 0;
  virtual void copy() = 0;
  virtual void triad() = 0;
  virtual T read_c0() = 0;
};
""",
    "main.cpp": """\
#include <cstdio>
#include <cstdlib>
#include "Stream.h"
#if defined(CUDA)
#include "CUDAStream.h"
#elif defined(OMP)
#include "OMPStream.h"
#elif defined(SYCL)
#include "SYCLStream.h"
#elif defined(ACC)
#include "ACCStream.h"
#endif

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
  Stream<double> *s = nullptr;
#if defined(CUDA)
  s = new CUDAStream<double>(n);
#elif defined(OMP)
  s = new OMPStream<double>(n);
#elif defined(SYCL)
  s = new SYCLStream<double>(n);
#elif defined(ACC)
  s = new ACCStream<double>(n);
#endif
  if (!s) { fprintf(stderr, "no backend selected\\n"); return 1; }
  s->init_arrays(0.1, 0.2, 0.0);
  for (int k = 0; k < 2; k++) {
    s->copy();
    s->triad();
  }
  printf("c[0] = %f\\n", (double)s->read_c0());
  delete s;
  return 0;
}
""",
    "CUDAStream.h": """\
#pragma once
#include "Stream.h"
#define TBSIZE 128
template <class T>
class CUDAStream : public Stream<T> {
 protected:
  int array_size;
  T *d_a, *d_b, *d_c;
 public:
  CUDAStream(const int n);
  ~CUDAStream();
  void init_arrays(T a, T b, T c) override;
  void copy() override;
  void triad() override;
  T read_c0() override;
};
""",
    "CUDAStream.cu": """\
#include "CUDAStream.h"
#include <vector>

template <class T>
CUDAStream<T>::CUDAStream(const int n) : array_size(n) {
  cudaMalloc(&d_a, sizeof(T) * n);
  cudaMalloc(&d_b, sizeof(T) * n);
  cudaMalloc(&d_c, sizeof(T) * n);
}

template <class T>
CUDAStream<T>::~CUDAStream() {
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
}

template <class T>
void CUDAStream<T>::init_arrays(T a, T b, T c) {
  std::vector<T> ha(array_size, a), hb(array_size, b), hc(array_size, c);
  cudaMemcpy(d_a, ha.data(), sizeof(T) * array_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, hb.data(), sizeof(T) * array_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, hc.data(), sizeof(T) * array_size, cudaMemcpyHostToDevice);
}

template <typename T>
__global__ void copy_kernel(const T *a, T *c) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  c[i] = a[i];
}

template <class T>
void CUDAStream<T>::copy() {
  copy_kernel<<<array_size / TBSIZE, TBSIZE>>>(d_a, d_c);
  cudaDeviceSynchronize();
}

template <typename T>
__global__ void triad_kernel(T *a, const T *b, const T *c) {
  const T scalar = 0.4;
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  a[i] = b[i] + scalar * c[i];
}

template <class T>
void CUDAStream<T>::triad() {
  triad_kernel<<<array_size / TBSIZE, TBSIZE>>>(d_a, d_b, d_c);
  cudaDeviceSynchronize();
}

template <class T>
T CUDAStream<T>::read_c0() {
  T c0;
  cudaMemcpy(&c0, d_c, sizeof(T), cudaMemcpyDeviceToHost);
  return c0;
}

template class CUDAStream<float>;
template class CUDAStream<double>;
""",
    "OMPStream.h": """\
#pragma once
#include "Stream.h"
template <class T>
class OMPStream : public Stream<T> {
 protected:
  int array_size;
  T *a, *b, *c;
 public:
  OMPStream(const int n);
  ~OMPStream();
  void init_arrays(T a, T b, T c) override;
  void copy() override;
  void triad() override;
  T read_c0() override;
};
""",
    "OMPStream.cpp": """\
#include "OMPStream.h"

template <class T>
OMPStream<T>::OMPStream(const int n) : array_size(n) {
  a = new T[n];
  b = new T[n];
  c = new T[n];
  T *pa = a, *pb = b, *pc = c;
  #pragma omp target enter data map(alloc: pa[0:n], pb[0:n], pc[0:n])
}

template <class T>
OMPStream<T>::~OMPStream() {
  int n = array_size;
  T *pa = a, *pb = b, *pc = c;
  #pragma omp target exit data map(release: pa[0:n], pb[0:n], pc[0:n])
  delete[] a;
  delete[] b;
  delete[] c;
}

template <class T>
void OMPStream<T>::init_arrays(T ia, T ib, T ic) {
  int n = array_size;
  T *pa = a, *pb = b, *pc = c;
  #pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++) {
    pa[i] = ia;
    pb[i] = ib;
    pc[i] = ic;
  }
}

template <class T>
void OMPStream<T>::copy() {
  int n = array_size;
  T *pa = a, *pc = c;
  #pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    pc[i] = pa[i];
}

template <class T>
void OMPStream<T>::triad() {
  const T scalar = 0.4;
  int n = array_size;
  T *pa = a, *pb = b, *pc = c;
  #pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    pa[i] = pb[i] + scalar * pc[i];
}

template <class T>
T OMPStream<T>::read_c0() {
  T *pc = c;
  #pragma omp target update from(pc[0:1])
  return c[0];
}

template class OMPStream<float>;
template class OMPStream<double>;
""",
    "SYCLStream.h": """\
#pragma once
#include <sycl/sycl.hpp>
#include "Stream.h"
template <class T>
class SYCLStream : public Stream<T> {
  sycl::queue q;
  int array_size;
  T *a, *b, *c;
 public:
  SYCLStream(const int n);
  void init_arrays(T a, T b, T c) override;
  void copy() override;
  void triad() override;
  T read_c0() override;
};
""",
    "SYCLStream.cpp": """\
#include "SYCLStream.h"
template <class T>
SYCLStream<T>::SYCLStream(const int n) : array_size(n) {
  a = sycl::malloc_device<T>(n, q);
  b = sycl::malloc_device<T>(n, q);
  c = sycl::malloc_device<T>(n, q);
}
template <class T>
void SYCLStream<T>::copy() {
  T *pa = a, *pc = c;
  q.parallel_for(sycl::range<1>{(size_t)array_size}, [=](sycl::id<1> i) { pc[i] = pa[i]; });
  q.wait();
}
template class SYCLStream<double>;
""",
    "ACCStream.h": """\
#pragma once
#include <openacc.h>
#include "Stream.h"
template <class T>
class ACCStream : public Stream<T> {
  int array_size;
  T *a, *b, *c;
 public:
  ACCStream(const int n);
  void copy() override;
};
""",
    "ACCStream.cpp": """\
#include "ACCStream.h"
template <class T>
void ACCStream<T>::copy() {
  int n = array_size;
  T *pa = a, *pc = c;
  #pragma acc parallel loop present(pa[0:n], pc[0:n])
  for (int i = 0; i < n; i++)
    pc[i] = pa[i];
}
template class ACCStream<double>;
""",
    "CUDA.make": """\
CXXFLAGS=-O3
CUDA_CXX=nvcc

ifndef NVARCH
NVARCH=sm_70
endif

CUDAStream: main.cpp CUDAStream.cu
\t$(CUDA_CXX) -std=c++11 $(CXXFLAGS) -arch=$(NVARCH) -DCUDA $^ $(EXTRA_FLAGS) -o $@

.PHONY: clean
clean:
\trm -f CUDAStream
""",
    "OpenMP.make": """\
COMPILER_CLANG = clang++
OMP_CLANG_NVIDIA = -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda
CXX = $(COMPILER_CLANG)
OMP = $(OMP_CLANG_NVIDIA)
CXXFLAGS = -O3 -std=c++11

OMPStream: main.cpp OMPStream.cpp
\t$(CXX) $(CXXFLAGS) -DOMP $^ $(OMP) $(EXTRA_FLAGS) -o $@

.PHONY: clean
clean:
\trm -f OMPStream
""",
    "SYCL.make": """\
SYCLStream: main.cpp SYCLStream.cpp
\ticpx -fsycl -O3 -std=c++17 -DSYCL $^ -o $@
""",
}


def write_stream(folder: Path) -> Path:
    """The stream tree in *folder* (created); returns *folder*."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in STREAM_FILES.items():
        (folder / name).write_text(text)
    return folder
