from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgeline.compile import compile_cuda, compiled_features, parse_ptxas, parse_sass
from ridgeline.errors import CompileError, MissingDependencyError, UsageError
from tests.conftest import require
from tests.sources.kernels_data import CUDA

SASS = """
	code for sm_86
		Function : _Z5saxpyPfPKffii
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM86"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                  /* 0x00000a0000017a02 */
        /*0010*/                   S2R R0, SR_CTAID.X ;                    /* 0x0000000000007919 */
        /*0020*/               @P0 FFMA R2, R3, R4, R5 ;                   /* 0x0000000000007919 */
        /*0030*/              @!P1 FFMA.FTZ R2, R3, R4, R5 ;               /* 0x0000000000007919 */
        /*0040*/                   EXIT ;                                  /* 0x000000000000794d */
		Function : _Z3foov
        /*0000*/                   EXIT ;                                  /* 0x000000000000794d */
"""

PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5saxpyPfPKffii' for 'sm_86'
ptxas info    : Function properties for _Z5saxpyPfPKffii
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 39 registers, 1024 bytes smem, 380 bytes cmem[0]
"""


def test_parse_sass_and_ptxas_text() -> None:
    assert parse_sass(SASS) == {"_Z5saxpyPfPKffii": {"MOV": 1, "S2R": 1, "FFMA": 2, "EXIT": 1},
                                "_Z3foov": {"EXIT": 1}}
    r = parse_ptxas(PTXAS)["_Z5saxpyPfPKffii"]
    assert r == {"registers": 39, "shared_bytes": 1024, "stack_bytes": 8, "spill_stores": 4,
                 "spill_loads": 4}


def test_bad_arch() -> None:
    with pytest.raises(UsageError, match="sm_80"):
        compile_cuda("x.cu", arch="ampere")


def _tools() -> bool:
    from ridgeline.compile import find_tool

    try:
        find_tool("nvcc")
        find_tool("cuobjdump")
    except MissingDependencyError:
        return False
    return True


@pytest.mark.slow
def test_compile_real_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("nvcc and cuobjdump", _tools())
    from ridgeline.sources import clang_available, get_kernel, load_program

    require("libclang with a clang resource folder", clang_available())
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "main.cu"
    src.write_text(CUDA)
    prog = load_program(src)
    f = compiled_features(get_kernel(prog, "saxpy"), arch="sm_86")
    assert f["functions"] == ["_Z5saxpyPfPKffii"] and not f["cached"]
    ops = f["opcodes"]
    assert ops["FFMA"] >= 1 and ops["BAR"] >= 1 and ops["EXIT"] >= 1 and ops["STS"] >= 1
    assert f["resources"]["registers"] > 0 and f["resources"]["shared_bytes"] == 1024
    t = compiled_features(get_kernel(prog, "stencil"), arch="sm_86")
    assert t["functions"] == ["_Z7stencilIfLi2EEvPT_PKS0_i"] and t["cached"]
    again = compiled_features(get_kernel(prog, "saxpy"), arch="sm_86")
    assert again["cached"] and again["opcodes"] == ops
    src.write_text(CUDA.replace("sqrtf", "rsqrtf"))  # content changed: no stale cache hit
    assert not compile_cuda(src, arch="sm_86")["cached"]
    a80 = compiled_features(get_kernel(prog, "gather"), arch="sm_80")
    assert a80["arch"] == "sm_80" and a80["opcodes"].get("DMUL", 0) + a80["opcodes"].get(
        "DADD", 0) >= 1


@pytest.mark.slow
def test_compile_error_is_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("nvcc", shutil.which("nvcc") is not None or _tools())
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(float *a) { a[0] = undefined_name; }\n")
    with pytest.raises(CompileError, match="nvcc failed"):
        compile_cuda(bad, arch="sm_86")
    with pytest.raises(CompileError, match="cached result"):  # failures are cached too
        compile_cuda(bad, arch="sm_86")
    bad.write_text("__global__ void k(float *a) { a[0] = 1.0f; }\n")
    assert compile_cuda(bad, arch="sm_86")["functions"]["_Z1kPf"]["instructions"] > 0


@pytest.mark.slow
def test_nvcc_runs_in_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nvcc, ptxas and cuobjdump run under bubblewrap: the source's folder is readable, a
    private folder beside it (under /tmp, which the sandbox hides) is not."""
    from ridgeline import sandbox

    require("nvcc and cuobjdump", _tools())
    require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)
    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret.h").write_text("#define SECRET 42\n")
    src = tmp_path / "prog" / "main.cu"
    src.parent.mkdir()
    src.write_text("__global__ void k(float *a) { a[0] = 1.0f; }\n")
    data = compile_cuda(src, arch="sm_86")
    assert data["isolation"] == "bwrap" and data["functions"]["_Z1kPf"]["instructions"] > 0
    src.write_text('#include "../private/secret.h"\n'
                   "__global__ void k(float *a) { a[0] = SECRET; }\n")
    with pytest.raises(CompileError, match="secret.h"):
        compile_cuda(src, arch="sm_86", use_cache=False)
    monkeypatch.setenv(sandbox.ENV_VAR, "none")  # unsandboxed, the same source compiles
    assert compile_cuda(src, arch="sm_86", use_cache=False)["isolation"] == "none"


@pytest.mark.slow
def test_a_listing_longer_than_the_sandbox_keeps_by_default_is_read_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cuobjdump prints each function's header before its code: a listing cut to its tail
    # (the sandbox keeps 64 kB of a program's output) lost the kernels listed first
    from ridgeline import sandbox

    require("nvcc and cuobjdump", _tools())
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "big.cu"
    src.write_text("__global__ void big(float *a, float b) {\n  float x = a[threadIdx.x];\n"
                   "#pragma unroll\n  for (int i = 0; i < 3000; ++i) x = x * b + a[i];\n"
                   "  a[threadIdx.x] = x;\n}\n"
                   "__global__ void small(float *a) { a[0] = 1.0f; }\n")
    funcs = compile_cuda(src, arch="sm_86")["functions"]
    assert set(funcs) == {"_Z3bigPff", "_Z5smallPf"}
    assert 16 * funcs["_Z3bigPff"]["instructions"] > sandbox.KEEP_BYTES
