"""OpenCL devices chosen by name, through pyopencl (``pip install 'ridgeline[opencl]'``).

PoCL (Debian ``pocl-opencl-icd`` or PyPI ``pocl-binary-distribution``) and Oclgrind both
report CPU devices, so a device is picked by a case-insensitive substring of
``"<platform name> / <device name>"`` (e.g. ``pocl``, ``Portable``, ``NVIDIA``, ``gfx90a``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ridgeline.errors import MissingDependencyError, UnknownNameError

__all__ = ["DeviceInfo", "cl", "list_devices", "get_device", "make_context"]

INSTALL = "pip install 'ridgeline[opencl]' (and an OpenCL driver: apt-get install pocl-opencl-icd)"


def cl() -> Any:
    """The pyopencl module, or a MissingDependencyError naming the install command."""
    try:
        import pyopencl
    except ImportError as e:
        raise MissingDependencyError("pyopencl", INSTALL, str(e)) from None
    return pyopencl


@dataclass(frozen=True)
class DeviceInfo:
    """What ridgeline needs to know about one OpenCL device."""

    platform: str
    name: str
    vendor: str
    kind: str  # "cpu", "gpu", "accelerator", "other"
    compute_units: int
    max_work_group_size: int
    max_work_item_sizes: tuple[int, ...]
    global_mem_bytes: int
    max_alloc_bytes: int
    local_mem_bytes: int
    extensions: tuple[str, ...]
    driver: str

    @property
    def label(self) -> str:
        return f"{self.platform} / {self.name}"

    def has_extension(self, ext: str) -> bool:
        return ext in self.extensions

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _kind(t: int) -> str:
    c = cl().device_type
    if t & c.GPU:
        return "gpu"
    if t & c.CPU:
        return "cpu"
    if t & c.ACCELERATOR:
        return "accelerator"
    return "other"


def _info(platform: Any, dev: Any) -> DeviceInfo:
    return DeviceInfo(
        platform=platform.name.strip(), name=dev.name.strip(), vendor=dev.vendor.strip(),
        kind=_kind(dev.type), compute_units=int(dev.max_compute_units),
        max_work_group_size=int(dev.max_work_group_size),
        max_work_item_sizes=tuple(int(x) for x in dev.max_work_item_sizes),
        global_mem_bytes=int(dev.global_mem_size), max_alloc_bytes=int(dev.max_mem_alloc_size),
        local_mem_bytes=int(dev.local_mem_size), extensions=tuple(dev.extensions.split()),
        driver=str(dev.driver_version),
    )


def _all() -> list[tuple[Any, Any]]:
    pcl = cl()
    try:
        platforms = pcl.get_platforms()
    except pcl.LogicError:  # no ICD installed: clGetPlatformIDs fails
        return []
    return [(p, d) for p in platforms for d in p.get_devices()]


def list_devices() -> list[DeviceInfo]:
    """Every OpenCL device the installed drivers offer."""
    return [_info(p, d) for p, d in _all()]


def _haystack(p: Any, d: Any) -> str:
    """Everything a device may be called by: platform name/vendor/version, device name."""
    return " / ".join([p.name, p.vendor, p.version, d.name, d.vendor]).lower()


def _select(name: str) -> tuple[Any, Any]:
    pairs = _all()
    key = name.lower().strip()
    hits = [(p, d) for p, d in pairs if key in _haystack(p, d) or key == _info(p, d).kind]
    if not hits:
        known = [_info(p, d).label for p, d in pairs] or ["(no OpenCL device installed)"]
        raise UnknownNameError("OpenCL device", name, known)
    return hits[0]


def get_device(name: str) -> DeviceInfo:
    """The first device whose ``platform / device`` label contains *name* (or whose kind is
    *name*: ``cpu``, ``gpu``)."""
    p, d = _select(name)
    return _info(p, d)


def make_context(name: str) -> tuple[Any, Any, Any]:
    """(context, profiling-enabled queue, device info) for the device named *name*."""
    pcl = cl()
    p, d = _select(name)
    ctx = pcl.Context([d])
    queue = pcl.CommandQueue(ctx, d, properties=pcl.command_queue_properties.PROFILING_ENABLE)
    return ctx, queue, _info(p, d)
