"""OpenCL device layer: devices chosen by name, kernels built and timed with events.

    dev = get_device("pocl")                         # or "NVIDIA", "gpu", "Oclgrind"
    res = time_kernel(source, "saxpy", "pocl", args, global_size=4096, local_size=64)
    res.median_ns, res.spread_ns, res.output_digest
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
