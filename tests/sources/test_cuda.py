from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.sources import get_kernel, load_program
from tests.sources.kernels_data import CUDA

pytestmark = pytest.mark.usefixtures("clang")


def test_kernels_params_and_templates(cuda_file: Path) -> None:
    prog = load_program(cuda_file.parent)
    names = sorted(k.name for k in prog.kernels)
    assert names == ["gather", "saxpy", "stencil"]
    saxpy = get_kernel(prog, "saxpy")
    want = 1 + CUDA[: CUDA.index("__global__ void saxpy")].count("\n")
    assert saxpy.language == "cuda" and saxpy.line == want and not saxpy.template
    assert [p.name for p in saxpy.params] == ["y", "x", "a", "n", "iters"]
    y, x, a = saxpy.params[:3]
    assert y.pointer and y.address_space == "global" and y.element_type == "float"
    assert y.element_size == 4 and not y.const
    assert x.const and x.pointer
    assert not a.pointer and a.address_space == "private" and a.element_size == 4
    assert saxpy.mangled == "_Z5saxpyPfPKffii"
    st = get_kernel(prog, "stencil")
    assert st.template and [p.name for p in st.params] == ["out", "in", "n"]
    g = get_kernel(prog, "gather")
    assert g.params[2].element_type == "int" and g.params[0].element_size == 8


def test_kernel_only_extraction(cuda_file: Path) -> None:
    k = get_kernel(load_program(cuda_file), "saxpy")
    assert k.callees == ["scale"]
    assert set(k.macros) == {"BS", "SQ"}
    assert "__device__ float scale" in k.extracted
    assert "#define SQ(x)" in k.extracted and "#define BS 256" in k.extracted
    assert "int main" not in k.extracted and "stencil" not in k.extracted
    assert k.text.startswith("__global__ void saxpy")


def test_launch_sites(cuda_file: Path) -> None:
    prog = load_program(cuda_file)
    s = get_kernel(prog, "saxpy").launches
    assert len(s) == 1
    assert (s[0].grid, s[0].block, s[0].function) == ("grid", "block", "main")
    assert s[0].args == ("y", "x", "2.0f", "n", "10")
    k = get_kernel(prog, "saxpy")
    assert k.bindings(s[0]) == {"y": "y", "x": "x", "a": "2.0f", "n": "n", "iters": "10"}
    assert k.to_dict()["launches"][0]["bindings"]["iters"] == "10"
    t = get_kernel(prog, "stencil").launches[0]
    assert t.template_args == "float, 2"
    assert (t.grid, t.block, t.shared_mem, t.stream) == ("(n + 127) / 128", "128", "0", "0")
    g = get_kernel(prog, "gather").launches[0]
    assert g.grid == "dim3(n / 64)" and g.args[-1] == "n"


def test_missing_macro_is_reported_then_fixed_by_define(tmp_path: Path) -> None:
    p = tmp_path / "k.cu"
    p.write_text("__global__ void MAYBE_INLINE lost(float *a) { a[threadIdx.x] = 1.0f; }\n"
                 "__global__ void fine(float *a) { a[threadIdx.x] = 2.0f; }\n")
    prog = load_program(p)
    lost = get_kernel(prog, "lost")
    assert not lost.has_body
    assert "lost its body" in lost.problems[0] and "-D" in lost.problems[0]
    assert get_kernel(prog, "fine").has_body
    fixed = get_kernel(load_program(p, defines=["MAYBE_INLINE="]), "lost")
    assert fixed.has_body and not fixed.problems


def test_kernel_in_header_and_prototype_merge(tmp_path: Path) -> None:
    (tmp_path / "k.cuh").write_text(
        "#pragma once\n__global__ void hk(int *a);\n"
        "__global__ void inl(int *a) { a[0] = 1; }\n")
    (tmp_path / "k.cu").write_text(
        '#include "k.cuh"\n__global__ void hk(int *a) { a[threadIdx.x] += 1; }\n'
        "int main() { hk<<<1, 32>>>(0); inl<<<1, 1>>>(0); }\n")
    prog = load_program(tmp_path)
    assert sorted(k.name for k in prog.kernels) == ["hk", "inl"]
    hk = get_kernel(prog, "hk")
    assert hk.has_body and hk.file.endswith("k.cu") and hk.launches[0].block == "32"
    assert get_kernel(prog, "inl").file.endswith("k.cuh")


def test_stale_precompiled_header_falls_back(tmp_path: Path, cuda_file: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from ridgeline.sources._clang import precompiled

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    precompiled.cache_clear()
    try:
        assert len(load_program(cuda_file).kernels) == 3  # builds the PCH in the new cache
        pchs = list((tmp_path / "cache" / "pch").glob("*.pch"))
        assert pchs
        for p in pchs:
            p.write_bytes(b"not a precompiled header")
        assert sorted(k.name for k in load_program(cuda_file).kernels) == [
            "gather", "saxpy", "stencil"]
    finally:
        precompiled.cache_clear()
