from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.sources import get_kernel, load_program, match_omp_name, split_omp_name
from ridgeline.sources.openmp import parse_directive

pytestmark = pytest.mark.usefixtures("clang")


def test_regions(omp_file: Path) -> None:
    prog = load_program(omp_file.parent)
    names = sorted(k.name for k in prog.kernels)
    assert names == ["add_l6", "main_l17"]  # target data / update are not kernels
    r = get_kernel(prog, "main_l17")
    assert r.language == "omp" and r.region is not None
    assert r.region.constructs == ("target", "teams", "distribute", "parallel", "for")
    assert r.region.clauses["collapse"] == ("2",)
    assert r.region.clauses["reduction"] == ("+: sum",)
    assert r.region.function == "main"
    assert {p.name for p in r.params} == {"n", "m", "a", "sum"}
    a = get_kernel(prog, "add_l6")
    assert a.region and a.region.clauses["thread_limit"] == ("256",)
    assert a.region.clauses["map"] == ("to: b[0:n]", "tofrom: a[0:n]")
    assert a.mangled == "_Z3addPfPKfi"
    assert a.text.startswith("#pragma omp target") and "a[i] += b[i]" in a.text


def test_runtime_names_map_back(omp_file: Path) -> None:
    prog = load_program(omp_file)
    off = "__omp_offloading_10309_2fc5ad7__Z3addPfPKfi_l6"
    assert get_kernel(prog, off).name == "add_l6"
    assert get_kernel(prog, "Z3addPfPKfi_l6").name == "add_l6"
    assert get_kernel(prog, "fi_l6").name == "add_l6"  # fragments keep the line
    assert match_omp_name("main_l999", prog.kernels) is None
    assert split_omp_name(off) == ("_Z3addPfPKfi", 6)
    assert split_omp_name("main_l57") == ("main", 57)
    assert split_omp_name("saxpy") is None


def test_parse_directive() -> None:
    c, cl = parse_directive("#pragma omp target teams num_teams(n / 256) thread_limit(256) "
                            "map(to: x[0:n]) nowait")
    assert c == ("target", "teams")
    assert cl == {"num_teams": ("n / 256",), "thread_limit": ("256",),
                  "map": ("to: x[0:n]",), "nowait": ()}
