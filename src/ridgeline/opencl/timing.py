"""Build and time one kernel launch on an OpenCL device, the way profilers do: check the
output is deterministic, warm up, then time repeated launches with profiling events and
keep the median and spread."""

from __future__ import annotations

import hashlib
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ridgeline.errors import CompileError, ExecutionError, LaunchError
from ridgeline.opencl.device import cl, make_context
from ridgeline.profiles.oclgrind import Buffer, LocalBuffer, Scalar

__all__ = ["ArgValue", "TimingResult", "build_program", "time_kernel", "numpy_dtype"]

ArgValue = Buffer | LocalBuffer | Scalar

_NP = {"char": "int8", "uchar": "uint8", "bool": "uint8", "short": "int16", "ushort": "uint16",
       "half": "float16", "int": "int32", "uint": "uint32", "float": "float32",
       "long": "int64", "ulong": "uint64", "double": "float64", "size_t": "uint64"}


def numpy_dtype(ctype: str) -> tuple[str, int]:
    """(numpy dtype name, vector width) of an OpenCL C scalar or vector type."""
    t = ctype.replace("unsigned ", "u").replace("const", "").replace("volatile", "").strip()
    t = t.removeprefix("signed ").strip()
    width = 1
    for w in (16, 8, 4, 3, 2):
        if t.endswith(str(w)) and t[: -len(str(w))] in _NP:
            t, width = t[: -len(str(w))], w
            break
    return _NP.get(t, "uint8"), width


@dataclass
class TimingResult:
    """Event-timed runs of one launch (nanoseconds)."""

    times_ns: list[float]
    median_ns: float
    spread_ns: float  # inter-quartile range of the timed runs
    transfer_ns: float  # host->device writes plus device->host reads of all buffers
    transfer_bytes: int
    deterministic: bool
    output_digest: str
    wall_s: float  # whole call, build included
    build_s: float
    notes: list[str] = field(default_factory=list)


_BUILT: dict[tuple[int, str, str], Any] = {}


def build_program(ctx: Any, source: str, options: str = "") -> Any:
    """Build *source* for *ctx* (memoised per context, source and options)."""
    pcl = cl()
    key = (id(ctx), source, options)
    if key in _BUILT:
        return _BUILT[key]
    try:
        prog = pcl.Program(ctx, source).build(options=options)
    except pcl.RuntimeError as e:
        raise CompileError(f"OpenCL build failed: {str(e)[-1500:]}") from None
    if len(_BUILT) > 64:
        _BUILT.clear()
    _BUILT[key] = prog
    return prog


def _host_arrays(args: Sequence[ArgValue], ctypes: Sequence[str]) -> list[Any]:
    import numpy as np

    out: list[Any] = []
    for a, ct in zip(args, ctypes, strict=True):
        dt, width = numpy_dtype(ct)
        if isinstance(a, Buffer):
            n = max(1, a.nbytes // np.dtype(dt).itemsize)
            out.append(np.full(n, 0 if a.fill is None else a.fill, dtype=dt))
        elif isinstance(a, Scalar):
            arr = np.full(width, a.value, dtype=dt)
            out.append(arr[0] if width == 1 else arr)
        else:
            out.append(None)
    return out


def _run_once(pcl: Any, ctx: Any, queue: Any, kern: Any, args: Sequence[ArgValue],
              hosts: list[Any], gsize: tuple[int, ...], lsize: tuple[int, ...] | None
              ) -> tuple[str, float, int, list[Any]]:
    """Fresh buffers, one launch, read back everything: (digest, transfer ns, bytes,
    buffers). The caller keeps the buffers alive while the kernel may still run with them
    (PoCL does not retain memory objects set as kernel arguments)."""
    bufs: list[Any] = []
    transfer_ns, nbytes = 0.0, 0
    mf = pcl.mem_flags
    for i, (a, h) in enumerate(zip(args, hosts, strict=True)):
        if isinstance(a, Buffer):
            b = pcl.Buffer(ctx, mf.READ_WRITE, size=h.nbytes)
            ev = pcl.enqueue_copy(queue, b, h)
            ev.wait()
            transfer_ns += ev.profile.end - ev.profile.start
            nbytes += h.nbytes
            kern.set_arg(i, b)
            bufs.append(b)
        elif isinstance(a, LocalBuffer):
            kern.set_arg(i, pcl.LocalMemory(max(1, a.nbytes)))
            bufs.append(None)
        else:
            kern.set_arg(i, h)
            bufs.append(None)
    pcl.enqueue_nd_range_kernel(queue, kern, gsize, lsize).wait()
    digest = hashlib.sha1()
    for b, h in zip(bufs, hosts, strict=True):
        if b is None:
            continue
        out = h.copy()
        ev = pcl.enqueue_copy(queue, out, b)
        ev.wait()
        transfer_ns += ev.profile.end - ev.profile.start
        nbytes += out.nbytes
        digest.update(out.tobytes())
    return digest.hexdigest(), transfer_ns, nbytes, bufs


def time_kernel(
    source: str,
    kernel: str,
    device: str,
    args: Sequence[ArgValue],
    ctypes: Sequence[str],
    global_size: Sequence[int],
    local_size: Sequence[int] | None,
    *,
    warmup: int = 2,
    repeats: int = 7,
    build_options: str = "",
    context: tuple[Any, Any, Any] | None = None,
    burst: bool = False,
) -> TimingResult:
    """Time *kernel* on the OpenCL device named *device*; *ctypes* are the element types
    of the arguments (buffer pointee or scalar type), in order. With *burst* the warm-up and
    timed launches are queued back to back and waited for once, so the device never idles
    between them (a CPU runtime's worker threads stay awake); otherwise each launch is
    waited for before the next is queued."""
    if repeats < 1 or warmup < 0:
        raise LaunchError(f"repeats must be >= 1 and warmup >= 0, got {repeats}, {warmup}")
    pcl = cl()
    t0 = time.perf_counter()
    ctx, queue, _ = context or make_context(device)
    prog = build_program(ctx, source, build_options)
    build_s = time.perf_counter() - t0
    try:
        kern = getattr(prog, kernel)
    except (AttributeError, pcl.LogicError):
        raise LaunchError(f"kernel {kernel!r} is not in the program") from None
    hosts = _host_arrays(args, ctypes)
    gs, ls = tuple(int(x) for x in global_size), (
        tuple(int(x) for x in local_size) if local_size else None)
    try:
        d1, transfer_ns, nbytes, keep1 = _run_once(pcl, ctx, queue, kern, args, hosts, gs, ls)
        d2, _, _, keep2 = _run_once(pcl, ctx, queue, kern, args, hosts, gs, ls)
        del keep1  # the kernel's arguments now point at keep2
        events = []
        for i in range(warmup + repeats):
            ev = pcl.enqueue_nd_range_kernel(queue, kern, gs, ls)
            if not burst:
                ev.wait()
            if i >= warmup:
                events.append(ev)
        queue.finish()
        times = [float(ev.profile.end - ev.profile.start) for ev in events]
    except pcl.Error as e:
        raise ExecutionError(f"launch of {kernel!r} failed (global {gs}, local {ls}): {e}") \
            from None
    del keep2
    q = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
    return TimingResult(
        times_ns=times, median_ns=statistics.median(times), spread_ns=q[2] - q[0],
        transfer_ns=transfer_ns, transfer_bytes=nbytes, deterministic=d1 == d2,
        output_digest=d1, wall_s=time.perf_counter() - t0, build_s=build_s,
    )
