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
    assert [p.name for p in sources_of(d, "omp")] == ["main.cpp"]  # the folder alone
    assert [p.relative_to(d.resolve()).as_posix()
            for p in makefile_mentioned_sources(d, "omp")] == ["main.cpp", "util/scale.c"]
    assert makefile_cxx_driver(d)
    assert not makefile_cxx_driver(programs / "saxpy-omp")  # no CC line


def test_link_failure_rebuilt_with_the_makefiles_sources(libomp: None, programs: Path
                                                         ) -> None:
    # 1st build: main.cpp alone, scale() undefined; 2nd: + util/scale.c as C, the C++ call
    # still misses the mangled name; 3rd: .c compiled as C++ (clang++ does that): links
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
