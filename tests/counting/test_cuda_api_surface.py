"""The documented CUDA surface (``data/cuda_api``): every entry is declared by the CPU runtime,
compiles through the counting toolchain and gives its documented value on its sample. One
program per group, all entries in it; a program's own definition of a name the runtime also
provides is the one it calls."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ridgeline.counting import count_run
from ridgeline.counting._exec import program_output
from ridgeline.counting.api_surface import ApiEntry, check_group, load_groups, render_program

GROUPS = load_groups()


def test_the_documented_lists_are_data_with_a_sample_for_each_callable() -> None:
    names = {g.name for g in GROUPS}
    assert {"type_casting", "integer", "sync_vote", "atomics", "runtime_memory",
            "fp8"} <= names
    keys = {e.key for g in GROUPS for e in g.entries}
    for want in ("__double2int_rd(double)", "__syncthreads_and(int)",
                 "atomicMax_system(long long int*, long long int)",
                 "atomicAdd_block(double*, double)",
                 "cudaMallocAsync(void**, size_t, cudaStream_t)", "cudaHostRegisterReadOnly",
                 "__nv_fp8_e4m3", "__nv_cvt_float_to_fp8(float, __nv_saturation_t, "
                 "__nv_fp8_interpretation_t)"):
        assert want in keys
    for g in GROUPS:
        for e in g.entries:
            assert e.tested or not e.covered, f"{e.key}: no sample to check"
            if e.kind == "function" and e.covered:
                assert e.returns and len(e.args) == len(e.params), e.key


@pytest.mark.slow
def test_a_wrong_value_and_an_undeclared_name_are_reported(toolchain: None) -> None:
    g = next(g for g in GROUPS if g.name == "integer")
    popc = next(e for e in g.entries if e.name == "__popc")
    bad = ApiEntry(name="__no_such_intrinsic", group="integer", returns="int", params=("int",),
                   args=("1",), expected="1")
    res = check_group(replace(g, entries=(popc, replace(popc, expected="9"), bad)))
    assert [(r.compiles, r.correct) for r in res] == [(True, True), (True, False),
                                                      (False, False)]
    assert "got 8" in res[1].detail and "__no_such_intrinsic" in res[2].detail


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS, ids=[g.name for g in GROUPS])
def test_every_entry_compiles_and_gives_its_documented_value(toolchain: None, group) -> None:
    res = check_group(group)
    wrong = [f"{r.entry.key}: {'wrong value, ' if r.compiles else 'does not compile: '}"
             f"{r.detail}" for r in res if not r.correct]
    assert not wrong, "\n".join(wrong)
    assert len(res) == sum(e.covered for e in group.entries)


_OWN = """
#include <cstdio>
/* the program's own versions of names the runtime provides (an old program's double
 * atomicMax, its own __popc): they are the ones called */
__device__ double atomicMax(double *a, double v) { double o = *a; *a = v > o ? v : o; return -1.0; }
__device__ __forceinline__ int __popc(unsigned x) { return 100 + (int)x; }
__device__ unsigned long long atomicAdd_system(unsigned long long *a, unsigned long long v) {
  *a += 2 * v; return 7; }
__global__ void own(double *d, int *o, unsigned long long *u) {
  o[0] = (int)atomicMax(d, 5.0);
  o[1] = __popc(3u);
  o[2] = (int)atomicAdd_system(u, 1ull);
  o[3] = (int)atomicMax(o + 4, 9);  /* an overload the program did not define: the runtime's */
}
int main(int argc, char **argv) {
  double *d; int *o; unsigned long long *u;
  cudaMallocManaged(&d, sizeof(double)); cudaMallocManaged(&o, 8 * sizeof(int));
  cudaMallocManaged(&u, sizeof *u);
  *d = 1.0; *u = 1; o[4] = 2;
  own<<<1, 1>>>(d, o, u);
  cudaDeviceSynchronize();
  FILE *f = fopen(argv[1], "w");
  fprintf(f, "%d %d %d %d %g %d %llu\\n", o[0], o[1], o[2], o[3], *d, o[4], *u);
  fclose(f);
  return 0;
}
"""


@pytest.mark.slow
def test_a_programs_own_definition_wins(toolchain: None, tmp_path: Path) -> None:
    prog = tmp_path / "own-cuda"
    prog.mkdir()
    (prog / "main.cu").write_text(_OWN)
    (rec,) = count_run(prog, ["out.txt"], skip_after=False, code_size=False, timeout=120,
                       workdir=tmp_path / "work")
    assert rec.kernel == "own"
    out = program_output(tmp_path / "work", prog, "out.txt")
    assert out.read_text().split() == ["-1", "103", "7", "2", "5", "9", "3"]


def test_the_program_names_each_entry_in_its_block() -> None:
    g = next(g for g in GROUPS if g.name == "atomics")
    text, starts = render_program(g)
    lines = text.splitlines()
    assert len(starts) == sum(e.covered for e in g.entries)
    for i, e in enumerate(e for e in g.entries if e.covered):
        assert lines[starts[i] - 1].endswith(f"/* {i}: {e.key} */")
