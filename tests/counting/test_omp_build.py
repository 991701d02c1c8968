"""OpenMP programs whose first build fails the way HeCBench Makefiles make it fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting import count_run
from ridgeline.counting.program import (
    makefile_cxx_driver,
    makefile_mentioned_sources,
    sources_of,
)

pytestmark = pytest.mark.slow


def test_sources_named_in_rules_and_c_as_cxx(programs: Path) -> None:
    d = programs / "mkfile-omp"
    # the objects of the link rule (make's default goal), through $(OBJS)
    assert [p.relative_to(d.resolve()).as_posix() for p in sources_of(d, "omp")] == [
        "main.cpp", "util/scale.c"]
    assert [p.relative_to(d.resolve()).as_posix()
            for p in makefile_mentioned_sources(d, "omp")] == ["main.cpp", "util/scale.c"]
    assert makefile_cxx_driver(d)
    assert not makefile_cxx_driver(programs / "saxpy-omp")  # no CC line


def test_link_failure_rebuilt_with_the_makefiles_sources(libomp: None, programs: Path
                                                         ) -> None:
    # 1st build: main.cpp and util/scale.c as C, the C++ call misses the mangled name;
    # 2nd: .c compiled as C++ (clang++ does that): links
    n = 1024
    (r,) = count_run(programs / "mkfile-omp", str(n))
    assert r.kernel.endswith("main_l11")
    assert r.flops_sp == 2 * n  # x * x + 1
    assert r.global_load_bytes == 4 * n and r.global_store_bytes == 4 * n


def test_region_with_exception_personality_builds(libomp: None, programs: Path) -> None:
    # the region calls a function that may throw: its IR has a personality, which must stay
    # after the wrapper's added function attributes (else opt rejects the IR)
    recs = count_run(programs / "eh-omp", "3")
    assert [r.kernel.endswith("main_l19") for r in recs] == [True, True]  # 2 of 3 counted
    assert recs[0].flops_dp == 3 and recs[0].flops_sp == 0  # a * b + c * d: mul + FMA
    assert recs[0].global_store_bytes == 8


def test_host_parallel_loop_with_many_captures(libomp: None, programs: Path) -> None:
    # the host loop's outlined function takes 11 arguments (more than the 8 once forwarded)
    (r,) = count_run(programs / "hostfork-omp", "1024")
    assert r.kernel.endswith("main_l16")
    assert r.flops_sp == 1024 and r.global_store_bytes == 4 * 1024


def _scale_program(prog: Path, include: str, array: str, op: str) -> None:
    """A program whose one target region applies *op* (``*= kScale``) to 64 ones."""
    (prog / "main.cpp").write_text(
        f"#include {include}\n"
        f"int main() {{ {array} x;\n"
        "  for (int i = 0; i < 64; i++) x[i] = 1.0f;\n"
        "  float *p = &x[0];\n"
        "  #pragma omp target teams distribute parallel for map(tofrom: p[0:64])\n"
        f"  for (int i = 0; i < 64; i++) p[i] {op};\n"
        "  return x[5] == 3.0f ? 0 : 1; }\n")


def test_headers_of_the_cuda_port_found_before_the_makefiles_folders(libomp: None,
                                                                     tmp_path: Path) -> None:
    # an export dropped the link reference.h -> ../x-cuda/reference.h; the Makefile's -I
    # names an unrelated port with its own reference.h: the build is retried with the CUDA
    # sibling searched first
    prog, sib, other = (tmp_path / n for n in ("refomp-omp", "refomp-cuda", "unrelated-cuda"))
    for d in (prog, sib, other):
        d.mkdir()
    (other / "reference.h").write_text("#error not this one\n")
    (sib / "reference.h").write_text("static const float kScale = 3.0f;\n")
    (prog / "Makefile").write_text("CFLAGS := -std=c++14 -I../unrelated-cuda\n")
    _scale_program(prog, '"reference.h"', "float x[64];", "*= kScale")
    (r,) = count_run(prog, "", timeout=120)
    assert r.flops_sp == 64


def test_standard_headers_the_program_forgot_are_included(libomp: None,
                                                         tmp_path: Path) -> None:
    # std::array through <tuple> alone: an incomplete type with current libstdc++
    prog = tmp_path / "stdarr-omp"
    prog.mkdir()
    _scale_program(prog, "<tuple>", "std::array<float, 64>", "+= 2.0f")
    (r,) = count_run(prog, "", timeout=120)
    assert r.flops_sp == 64


def test_a_forgotten_header_behind_using_namespace_std_is_included(libomp: None,
                                                                  tmp_path: Path) -> None:
    # langford-omp: ``array`` through ``using namespace std`` without <array>; its first
    # error ("no template named 'array'") scrolls off behind the errors about what is built
    # on it, and still decides the retry
    prog = tmp_path / "nsarr-omp"
    prog.mkdir()
    uses = "".join(f"float f{i}(const Row<64> &r) {{ return r[{i}]; }}\n" for i in range(8))
    _scale_program(prog, "<vector>\nusing namespace std;\n"
                   "template <int n> using Row = array<float, n>;\n" + uses,
                   "Row<64>", "+= 2.0f")
    (r,) = count_run(prog, "", timeout=120)
    assert r.flops_sp == 64
