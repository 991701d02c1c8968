"""OpenCL device layer: devices chosen by name, kernels built and timed with events.

    dev = get_device("pocl")                         # or "NVIDIA", "gpu", "Oclgrind"
    res = time_kernel(source, "saxpy", "pocl", args, global_size=4096, local_size=64)
    res.median_ns, res.spread_ns, res.output_digest

A recorded launch's kernel time from its counts: :mod:`~ridgeline.opencl.launchcount`
(Oclgrind at the real arguments), :mod:`~ridgeline.opencl.peaks` (the device's measured
peaks), :mod:`~ridgeline.opencl.counted_model` (bounds and the learned correction).
"""

from ridgeline.opencl.device import DeviceInfo, get_device, list_devices, make_context
from ridgeline.opencl.timing import ArgValue, TimingResult, build_program, time_kernel

__all__ = [
    "ArgValue",
    "DeviceInfo",
    "TimingResult",
    "build_program",
    "get_device",
    "list_devices",
    "make_context",
    "time_kernel",
]
