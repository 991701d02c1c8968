from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.sources import get_kernel, load_program, parse_opencl
from tests.sources.kernels_data import OPENCL

pytestmark = pytest.mark.usefixtures("clang")


def test_address_spaces_and_types() -> None:
    ks = {k.name: k for k in parse_opencl(OPENCL)}
    assert sorted(ks) == ["mm", "vec4"]  # helper() is not a kernel
    mm = ks["mm"]
    spaces = [(p.name, p.address_space, p.pointer) for p in mm.params]
    assert spaces == [("A", "global", True), ("B", "global", True), ("C", "global", True),
                      ("tile", "local", True), ("coef", "constant", True),
                      ("n", "private", False)]
    a = mm.params[0]
    assert a.const and a.element_type == "real" and a.element_size == 4
    assert not mm.params[2].const
    v = ks["vec4"].params
    assert v[0].element_type == "float4" and v[0].element_size == 16
    assert v[1].element_type == "uint" and not v[1].pointer
    assert mm.callees == ["helper"] and "float helper" in mm.extracted


def test_file_front_end(cl_file: Path) -> None:
    prog = load_program(cl_file)
    k = get_kernel(prog, "mm")
    assert k.language == "opencl" and k.line == 5 and k.file == str(cl_file.resolve())
    assert not prog.problems


def test_defines_reach_the_parser() -> None:
    src = "__kernel void k(__global float *a) { a[get_global_id(0)] = N; }"
    bad = parse_opencl(src)[0]
    assert bad.problems and "N" in bad.problems[0]
    good = parse_opencl(src, defines=["N=3.0f"])[0]
    assert not good.problems
