"""Kernels that only compile with their host's build options (-D, -I, clBuildProgram
string): the libclang front end gets them, and a kernel that still does not parse is
described by what is undefined."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.errors import UsageError
from ridgeline.sources.clbuild import BuildOptions, describe_parse_errors, undefined_names
from tests.conftest import require

# Rodinia hotspot's shape: the element type and the tile come from the host's -D options
HOTSPOT = """
__kernel void hotspot(__global FPTYPE* power, __global FPTYPE* src, __global FPTYPE* dst,
                      int cols, FPTYPE step) {
  __local FPTYPE tile[BLOCK_SIZE][BLOCK_SIZE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int i = get_global_id(1) * cols + get_global_id(0);
  tile[ty][tx] = src[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  dst[i] = tile[ty][tx] + step * power[i];
}
"""

WITH_HEADER = """
#include "params.h"
__kernel void scale(__global float* a) { a[get_global_id(0)] *= SCALE; }
"""


def test_parse_options_string(tmp_path: Path) -> None:
    b = BuildOptions.parse("-DBLOCK=16 -D FPTYPE=float -I inc -cl-mad-enable -DFLAG",
                           base_dir=tmp_path)
    assert b.defines == ("BLOCK=16", "FPTYPE=float", "FLAG")
    assert b.include_dirs == (str(tmp_path / "inc"),)
    assert b.extra == ("-cl-mad-enable",)
    assert BuildOptions.parse(b.cl_string()) == b  # the string round-trips (cache key)
    assert b.clang_args() == ["-DBLOCK=16", "-DFPTYPE=float", "-DFLAG", "-I",
                              str(tmp_path / "inc")]
    assert not BuildOptions() and BuildOptions.parse("") == BuildOptions()
    both = BuildOptions.from_flags(["N=4"], [], "-DM=2 -cl-std=CL2.0")
    assert both.defines == ("N=4", "M=2") and both.cl_std() == "CL2.0"


@pytest.mark.parametrize("bad", ["-D", "-D 1X=2", "-DBLOCK='16"])
def test_bad_options_say_what(bad: str) -> None:
    with pytest.raises(UsageError, match="build options"):
        BuildOptions.parse(bad)


def test_undefined_names_from_diagnostics() -> None:
    errs = [(2, "unknown type name 'FPTYPE'"), (3, "unknown type name 'FPTYPE'"),
            (4, "use of undeclared identifier 'BLOCK_SIZE'"), (1, "'params.h' file not found")]
    assert undefined_names(errs) == [("FPTYPE", 2, "unknown type name"),
                                     ("BLOCK_SIZE", 4, "undeclared identifier"),
                                     ("params.h", 1, "missing include")]
    msg = describe_parse_errors(errs)
    assert "FPTYPE (unknown type name, line 2)" in msg and "-D NAME=VALUE" in msg
    assert "-I DIR" in msg
    assert describe_parse_errors([(5, "expected ';' after expression")]).startswith(
        "1 parse error(s), first: line 5")


def test_front_end_gets_defines_and_includes(tmp_path: Path) -> None:
    require("libclang", "clang")
    from ridgeline.datagen.args import kernel_spec
    from ridgeline.sources.opencl import check_opencl

    kernels, errors = check_opencl(HOTSPOT)
    names = [n for n, _, _ in undefined_names(errors)]
    assert names == ["FPTYPE", "BLOCK_SIZE"] and kernels[0].problems
    build = BuildOptions.parse("-DFPTYPE=double -DBLOCK_SIZE=16")
    kernels, errors = check_opencl(HOTSPOT, build=build)
    assert errors == [] and not kernels[0].problems
    spec = kernel_spec(HOTSPOT, build=build)
    assert [s.ctype for s in spec.slots[:3]] == ["double"] * 3
    assert spec.slots[0].elem_size == 8 and spec.build_options == build.cl_string()

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "params.h").write_text("#define SCALE 2.0f\n")
    _, errors = check_opencl(WITH_HEADER)
    assert undefined_names(errors)[0][:1] == ("params.h",)
    _, errors = check_opencl(WITH_HEADER, build=BuildOptions(include_dirs=(str(tmp_path /
                                                                             "inc"),)))
    assert errors == []
