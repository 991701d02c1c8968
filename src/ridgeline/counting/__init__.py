"""Exact counts without the GPU: run kernels on the CPU with instrumentation and model the
target GPU's L2 to estimate DRAM traffic.

Backends: ``omp`` (OpenMP target regions on the host), ``cuda`` (CUDA programs through a CPU
execution layer), ``opencl`` (Oclgrind, via :mod:`ridgeline.profiles.oclgrind`).
"""

from ridgeline.counting.api import (
    backend_for,
    build_options,
    compiler_options,
    count_run,
    l2_model_note,
    shipped_gpu,
    uncountable,
)
from ridgeline.counting.base import BACKENDS, Backend, LaunchCount, ProgramRunError, RunOptions
from ridgeline.counting.toolchain import first_build_error

__all__ = ["count_run", "backend_for", "build_options", "compiler_options", "LaunchCount",
           "ProgramRunError", "RunOptions", "Backend", "BACKENDS", "uncountable", "l2_model_note",
           "shipped_gpu", "first_build_error"]
