"""The OpenCL device layer on the real PoCL CPU device."""

from __future__ import annotations

import importlib.util

import pytest

from ridgeline.errors import CompileError, UnknownNameError
from ridgeline.profiles.oclgrind import Buffer, Scalar
from tests.conftest import require
from tests.opencl.kernels import BROKEN, NEEDS_FP16, SAXPY, VADD


def _pocl() -> None:
    require("pyopencl", "pyopencl")
    from ridgeline.opencl import list_devices

    require("the PoCL OpenCL device (pocl-opencl-icd)",
            any("portable" in d.platform.lower() for d in list_devices()))


def test_device_by_name_and_kind() -> None:
    _pocl()
    from ridgeline.opencl import get_device

    d = get_device("pocl")
    assert d.kind == "cpu" and d.compute_units >= 1 and d.max_work_group_size >= 64
    assert get_device("Portable").name == d.name
    with pytest.raises(UnknownNameError, match="Known OpenCL devices"):
        get_device("no-such-gpu-xyz")


def test_time_kernel_checks_output_and_keeps_median_and_spread() -> None:
    _pocl()
    from ridgeline.opencl import time_kernel

    n = 4096
    r = time_kernel(VADD, "vadd", "pocl", [Buffer(4 * n, 1), Buffer(4 * n, 2), Buffer(4 * n, 0),
                                           Scalar(n)], ["float", "float", "float", "int"],
                    [n], [64], warmup=1, repeats=5)
    assert len(r.times_ns) == 5 and r.median_ns > 0 and r.spread_ns >= 0
    assert r.deterministic and len(r.output_digest) == 40
    assert r.transfer_bytes == 2 * 3 * 4 * n  # every buffer written and read back


def test_burst_timing_measures_each_launch_not_the_queue_wait() -> None:
    """Queued back to back, a launch's events still span its own execution: the times stay
    those of one launch (not growing with its place in the queue), close to waited-for ones."""
    _pocl()
    from ridgeline.opencl import time_kernel

    n = 1 << 20
    args = [Buffer(4 * n, 1), Buffer(4 * n, 2), Buffer(4 * n, 0), Scalar(n)]
    types = ["float", "float", "float", "int"]
    each = time_kernel(VADD, "vadd", "pocl", args, types, [n], [64], warmup=1, repeats=5)
    burst = time_kernel(VADD, "vadd", "pocl", args, types, [n], [64], warmup=1, repeats=5,
                        burst=True)
    assert len(burst.times_ns) == 5 and min(burst.times_ns) > 0
    assert burst.times_ns[-1] < 3 * burst.times_ns[0]  # not the accumulated queue time
    # the lower bound against the fastest waited-for launch: the waits' median grows with
    # whatever else runs on the machine, a launch's own time does not
    assert min(each.times_ns) / 4 < burst.median_ns < 4 * each.median_ns
    assert burst.deterministic and burst.output_digest == each.output_digest


def test_saxpy_output_is_deterministic_across_runs() -> None:
    _pocl()
    from ridgeline.opencl import time_kernel

    n = 1024
    args = [Buffer(4 * n, 1), Buffer(4 * n, 3), Scalar(2.0, "float"), Scalar(n)]
    a = time_kernel(SAXPY, "saxpy", "pocl", args, ["float", "float", "float", "int"], [n], [32],
                    warmup=0, repeats=1)
    b = time_kernel(SAXPY, "saxpy", "pocl", args, ["float", "float", "float", "int"], [n], [32],
                    warmup=0, repeats=1)
    assert a.output_digest == b.output_digest


@pytest.mark.parametrize("src,name", [(BROKEN, "broken"), (NEEDS_FP16, "h")])
def test_build_failures_are_compile_errors(src: str, name: str) -> None:
    _pocl()
    from ridgeline.opencl import get_device, time_kernel

    if name == "h" and get_device("pocl").has_extension("cl_khr_fp16"):
        pytest.skip("this PoCL build has cl_khr_fp16")
    with pytest.raises(CompileError):
        time_kernel(src, name, "pocl", [Buffer(64)], ["float"], [16], [16])


def test_missing_pyopencl_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from ridgeline.errors import MissingDependencyError
    from ridgeline.opencl.device import cl

    real = builtins.__import__

    def fake(name: str, *a: object, **k: object) -> object:
        if name == "pyopencl":
            raise ImportError("No module named 'pyopencl'")
        return real(name, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MissingDependencyError, match=r"ridgeline\[opencl\]"):
        cl()
    assert importlib.util.find_spec("ridgeline.opencl") is not None
