"""Build flags read in one place: Makefile and backend make fragment, compile_commands.json,
command line; sources of one backend in a folder holding several."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from ridgeline.errors import UsageError
from ridgeline.sources.build import (
    BuildFlags,
    ProgramBuild,
    backend_of,
    backend_sources,
    make_fragment,
)
from ridgeline.sources.regionname import region_short_name, same_region
from tests.counting.stream_tree import write_stream

UNITS = (".cu", ".cpp")


def _units(d: Path) -> list[Path]:
    return sorted(p for p in d.iterdir() if p.suffix in UNITS)


def test_each_backend_takes_its_sources_and_its_make_fragment(tmp_path: Path) -> None:
    d = write_stream(tmp_path / "stream")
    assert backend_of((d / "CUDAStream.cu").read_text()) == "cuda"
    assert backend_of((d / "OMPStream.cpp").read_text()) == "omp"
    assert backend_of((d / "SYCLStream.cpp").read_text()) == "sycl"
    assert backend_of((d / "ACCStream.cpp").read_text()) == "acc"
    assert backend_of((d / "main.cpp").read_text()) is None  # the shared driver
    assert make_fragment(d, "cuda") == d / "CUDA.make"
    assert make_fragment(d, "omp") == d / "OpenMP.make"
    names = {m: [p.name for p in backend_sources(d, _units(d), m)] for m in ("cuda", "omp")}
    assert names == {"cuda": ["main.cpp", "CUDAStream.cu"], "omp": ["main.cpp", "OMPStream.cpp"]}
    cuda, omp = BuildFlags.from_makefile(d, "cuda"), BuildFlags.from_makefile(d, "omp")
    assert (cuda.defines, cuda.std, cuda.origin) == (("CUDA",), "c++11", ("CUDA.make",))
    assert (omp.defines, omp.origin) == (("OMP",), ("OpenMP.make",))


def test_without_fragments_the_shared_files_and_the_models_own_are_kept(
        tmp_path: Path) -> None:
    d = write_stream(tmp_path / "stream")
    for f in d.glob("*.make"):
        f.unlink()
    got = [p.name for p in backend_sources(d, _units(d), "omp")]
    assert sorted(got) == ["OMPStream.cpp", "main.cpp"]
    # one model (with its HIP port's files) is no multi-backend folder: nothing dropped
    one = tmp_path / "one"
    one.mkdir()
    (one / "a.cu").write_text("__global__ void k() {}\n")
    (one / "b.cu").write_text("#include <hip/hip_runtime.h>\n")
    assert backend_sources(one, _units(one), "cuda") == _units(one)


def test_command_line_flags_are_checked_and_merged(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    cli = BuildFlags.from_cli(["N=4", "FAST"], [inc])
    assert cli.includes == (inc.resolve(),)
    base = BuildFlags(("N=2", "OTHER"), (), "c++14")
    merged = base.merge(cli)
    assert merged.defines == ("OTHER", "N=4", "FAST") and merged.std == "c++14"
    with pytest.raises(UsageError, match="is not NAME or NAME=VALUE"):
        BuildFlags.from_cli(["2BAD"])
    with pytest.raises(UsageError, match="is not a folder"):
        BuildFlags.from_cli([], [tmp_path / "missing"])


def test_compile_commands_entry_of_each_source_first_one_wins(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    d = write_stream(tmp_path / "stream")
    cc = tmp_path / "compile_commands.json"
    cc.write_text(json.dumps([
        {"directory": str(tmp_path / "build"), "file": str(d / "CUDAStream.cu"),
         "command": f"nvcc -DCUDA -DTBSIZE=256 -I{d} -std=c++17 -x cu -c CUDAStream.cu"},
        {"directory": str(tmp_path / "build"), "file": str(d / "CUDAStream.cu"),
         "arguments": ["nvcc", "-DSECOND", "-c", "CUDAStream.cu"]},
        # a build made on another machine: found by the folder's name
        {"directory": "/elsewhere", "file": "/elsewhere/src/stream/main.cpp",
         "arguments": ["c++", "-D", "CUDA", "-D__NVCC__", "-c", "main.cpp"]},
    ]))
    with caplog.at_level(logging.INFO, logger="ridgeline.sources.build"):
        got = BuildFlags.from_compile_commands(cc, d, [d / "main.cpp", d / "CUDAStream.cu"])
    assert got is not None
    assert got.defines == ("CUDA", "TBSIZE=256") and got.std == "c++17"
    assert got.includes == (d.resolve(),) and got.lang == "cu"
    assert "2 entries for CUDAStream.cu; the first is used" in caplog.text
    # the command line adds to the measured build; the Makefile is not read then
    build = ProgramBuild.from_cli(["EXTRA"], None, cc)
    assert build.for_model(d, "cuda", [d / "CUDAStream.cu"]).defines == (
        "CUDA", "TBSIZE=256", "EXTRA")
    other = tmp_path / "other"
    other.mkdir()
    assert BuildFlags.from_compile_commands(cc, other, []) is None
    cc.write_text("[1]")
    with pytest.raises(UsageError, match="entry 0 has no 'file'"):
        ProgramBuild.from_cli(None, None, cc)


@pytest.mark.parametrize(("name", "short"), [
    ("_ZN9OMPStreamIdE4copyEv_l105", "copy_l105"),
    ("__omp_offloading_fe00_512885__ZN9OMPStreamIdE4copyEv_l105", "copy_l105"),
    ("_Z9compute_fiPKfS0_Pf_l269", "compute_f_l269"),
    ("_ZN2ns3FooI6MyTypeE3barIiEEvT__l12", "bar_l12"),
    ("_ZNK3Foo3getEv_l3", "get_l3"),
    ("_ZN9OMPStreamIdEC2Ei_l9", "OMPStream_l9"),
    ("main_l57", "main_l57"),
    ("saxpy", "saxpy"),
])
def test_region_names_have_one_short_form(name: str, short: str) -> None:
    assert region_short_name(name) == short
    assert same_region(name, short)
