"""The OpenCL backend adapts Oclgrind records (ridgeline.profiles.oclgrind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting import ProgramRunError, count_run
from ridgeline.counting.opencl import from_oclgrind_record
from ridgeline.profiles.oclgrind import OclgrindCounts


def test_record_adapter() -> None:
    rec = OclgrindCounts(kernel="vadd", global_size=(1024, 1, 1), local_size=(64, 1, 1),
                         flops_sp=1024, int_ops=3000, global_load_bytes=8192,
                         global_store_bytes=4096, sectors_read=256, sectors_written=128)
    lc = from_oclgrind_record(rec, 0, ["rtx3080"])
    assert lc.backend == "opencl" and lc.kernel == "vadd"
    assert lc.flops_sp == 1024 and lc.int_ops == 3000
    assert lc.grid == (16, 1, 1) and lc.block == (64, 1, 1)
    assert lc.dram_bytes == 32 * (256 + 128)
    assert lc.dram_bytes_by_gpu == {"GeForce RTX 3080": 12288.0}


def test_folder_without_executable(tmp_path: Path) -> None:
    (tmp_path / "k.cl").write_text("__kernel void k(__global float *a) { a[0] = 1.0f; }\n")
    with pytest.raises(ProgramRunError) as ei:
        count_run(tmp_path, "", backend="opencl")
    assert ei.value.cause == "not-found" and "executable" in str(ei.value)
