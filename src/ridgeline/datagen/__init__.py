"""LLMPerf-style dataset generation on any OpenCL device.

    from ridgeline.datagen import DatagenConfig, generate, read_samples
    generate("kernels/", "runs/pocl", DatagenConfig(device="pocl", samples=12))
    df = read_samples("runs/pocl")   # one row per (kernel hash, launch config, seed)

Pipeline: argument model from the kernel's parameters (:mod:`.args`), input sizing by an
Oclgrind memory analysis with an affine fit of the extent touched (:mod:`.sizing`), launch
sampling over three utilization regimes (:mod:`.sampling`), an isolated worker process per
kernel with a timeout (:mod:`.worker`), resumable Parquet shards (:mod:`.store`).
"""

from ridgeline.datagen.args import ArgSlot, KernelSpec, kernel_hash, kernel_spec
from ridgeline.datagen.runner import DatagenConfig, collect_kernels, generate, run_isolated
from ridgeline.datagen.sampling import REGIMES, LaunchConfig, balance, sample_launches
from ridgeline.datagen.sizing import AffineFit, SizingModel, make_args, size_kernel
from ridgeline.datagen.store import done_kernels, read_kernels, read_samples

__all__ = [
    "REGIMES",
    "AffineFit",
    "ArgSlot",
    "DatagenConfig",
    "KernelSpec",
    "LaunchConfig",
    "SizingModel",
    "balance",
    "collect_kernels",
    "done_kernels",
    "generate",
    "kernel_hash",
    "kernel_spec",
    "make_args",
    "read_kernels",
    "read_samples",
    "run_isolated",
    "sample_launches",
    "size_kernel",
]
