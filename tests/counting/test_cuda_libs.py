"""CUDA library features on the CPU layer (Thrust on the host, thrust::complex in kernels,
PTX trap, reversed ``__shared__ extern``), against counts computed by hand. Each program
launches a kernel named ``ok`` only when its own checks of the library results pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting import count_run
from ridgeline.counting.cuda_rewrite import rewrite_cuda, unsupported_features

pytestmark = pytest.mark.slow
N = 1000


def _by_kernel(recs: list) -> dict:
    out: dict = {}
    for r in recs:
        out.setdefault(r.kernel, []).append(r)
    return out


def test_thrust_host_algorithms_and_complex_kernel(toolchain: None, programs: Path) -> None:
    by = _by_kernel(count_run(programs / "thrustlib-cuda", str(N), skip_after=False,
                              timeout=120))
    assert "ok" in by, "a Thrust result checked by the program was wrong"
    s = by["scale"][0]
    assert s.flops_sp == N and s.global_load_bytes == 4 * N and s.global_store_bytes == 4 * N
    c = by["cmul"][0]
    # (a+bi)(c+di): 4 multiplies and 2 adds per element, two 8-byte loads, one 8-byte store
    assert c.flops_sp == 6 * N
    assert c.global_load_bytes == 16 * N and c.global_store_bytes == 8 * N
    assert c.grid == ((N + 255) // 256, 1, 1)


def test_thrust_headers_the_shim_lacks_stay_unsupported() -> None:
    assert unsupported_features("#include <thrust/sort.h>\n") == []
    assert unsupported_features("#include <thrust/iterator/zip_iterator.h>\n") == [
        "Thrust (thrust/iterator/zip_iterator.h)"]


def test_rewrites_trap_and_reversed_extern_shared() -> None:
    text = ('__shared__ extern float sdata[];\n'
            'void f() { if (x) asm("trap;"); asm volatile ( "trap;" ); }\n')
    out, _ = rewrite_cuda(text)
    assert "float *sdata = reinterpret_cast<float *>(__rl_dyn_shared);" in out
    assert out.count("__trap()") == 2 and "asm" not in out
    assert unsupported_features(text) == []
    assert unsupported_features('asm("mov.u32 %0, %%laneid;" : "=r"(r));') == [
        "inline PTX assembly"]


def test_cooperative_groups_and_function_pointer_launch(toolchain: None,
                                                        programs: Path) -> None:
    n = 1024
    by = _by_kernel(count_run(programs / "cgroups-cuda", str(n), skip_after=False,
                              timeout=120))
    assert "ok" in by, "a cooperative-groups result checked by the program was wrong"
    t = by["tilesum"][0]
    # cg::reduce over a 32-thread tile: 5 butterfly adds per thread; the last add is only
    # needed by the lane that stores it (the compiler sinks it there: 4 per thread + 1 per tile)
    assert n * 4 + n // 32 <= t.flops_sp <= 5 * n
    assert t.global_load_bytes == 4 * n and t.global_store_bytes == 4 * (n // 32)
    h = by["halfsum"][0]  # 16-thread tiles, 4 shift-down steps
    assert n * 3 + n // 16 <= h.flops_sp <= 4 * n
    assert h.global_store_bytes == 4 * (n // 16)
    c = by["compact"][0]  # coalesced group: one atomic per warp, one store per kept value
    kept = (n - 1) // 3
    assert c.atomics == n // 32 and c.global_store_bytes == 4 * kept
    # launched through a function pointer: named after the function it points to
    w = by["twice"][0]
    assert w.flops_sp == n and w.global_load_bytes == 4 * n and w.global_store_bytes == 4 * n


def test_cub_block_and_warp_reductions(toolchain: None, programs: Path) -> None:
    blocks = 8
    by = _by_kernel(count_run(programs / "cub-cuda", str(blocks), skip_after=False,
                              timeout=120))
    assert "ok" in by, "a CUB result checked by the program was wrong"
    # per full warp, shift-down by 1, 2, 4, 8, 16 with an add only where the partner lane
    # exists: 31 + 30 + 28 + 24 + 16 = 129 adds; thread 0 then adds the 3 other warps' sums
    b = by["blocksum"][0]
    assert b.flops_sp == blocks * (4 * 129 + 3)
    assert b.shared_accesses == blocks * (4 + 3)  # warp sums stored, three read back
    assert b.global_load_bytes == 4 * 128 * blocks and b.global_store_bytes == 4 * blocks
    w = by["warpsum"][0]
    assert w.flops_dp == blocks * 4 * 129 and w.flops_sp == 0
    p = by["blockmax_partial"][0]
    assert p.global_load_bytes == 4 * 50 and p.flops_sp == 0


def test_curand_device_and_host_api(toolchain: None, programs: Path) -> None:
    n, k = 1024, 16
    by = _by_kernel(count_run(programs / "curand-cuda", str(n), skip_after=False,
                              timeout=120))
    assert "ok" in by, "cuRAND draws not uniform on (0, 1], or Philox missed its known answer"
    d = by["draw"][0]
    # each uniform draw: one multiply-add on the 32 random bits, plus the program's add
    assert d.flops_sp == 3 * k * n and d.flops_dp == 0
    assert d.int_ops > 5 * k * n  # the xorwow steps are the program's integer work
    assert by["setup"][0].flops_sp == 0
    # Philox: four uniforms (a multiply-add each) and three adds per thread
    assert by["philox"][0].flops_sp == (4 * 2 + 3) * 256


def test_bfloat16_storage_and_arithmetic(toolchain: None, programs: Path) -> None:
    n = 1024
    by = _by_kernel(count_run(programs / "bf16-cuda", str(n), skip_after=False, timeout=120))
    assert "ok" in by, "a bfloat16 result (or its rounding) checked by the program was wrong"
    a = by["axpy_bf16"][0]
    # __hmul then __hadd on bfloat16: two half-precision FLOPs, no FP32 ones
    assert a.flops_hp == 2 * n and a.flops_sp == 0 and a.flops_dp == 0
    assert a.global_store_bytes == 2 * n
    w = by["widen"][0]  # bfloat162 -> float2, then one FP32 multiply-add
    assert w.flops_sp == 2 * n and w.flops_hp == 0
    assert w.global_load_bytes == 4 * n and w.global_store_bytes == 4 * n


def test_rewrites_launches_in_macros_and_through_pointers() -> None:
    text = ("#define LAUNCH(n) \\\n  kern<float, n> \\\n      <<<g, b>>>(x); \\\n"
            "  F<T, 2><<<g, b>>>(y);\n"
            "void h() { fp<<<1, 32>>>(z); kern<float, 1><<<1, 1>>>(w); }\n")
    out, names = rewrite_cuda(text, {"kern"})
    assert names == ["kern", "F", "fp", "kern"]
    assert '__rl_launch_call("kern", [&]() { kern<float, n>(x); }, g, b)' in out
    # a macro parameter and a function pointer: named by the runtime after the called symbol
    assert '__rl_launch_call_ptr(F<T, 2>, "F", [&]() { F<T, 2>(y); }, g, b)' in out
    assert '__rl_launch_call_ptr(fp, "fp", [&]() { fp(z); }, 1, 32)' in out
    assert '__rl_launch_call("kern", [&]() { kern<float, 1>(w); }, 1, 1)' in out


def test_simd_within_a_word_intrinsics(toolchain: None, programs: Path) -> None:
    by = _by_kernel(count_run(programs / "simd-cuda", "", skip_after=False, timeout=120))
    assert "ok" in by, "a __v* SIMD intrinsic gave a wrong result"
    assert by["lanes"][0].global_store_bytes == 13 * 4 and by["lanes"][0].flops_sp == 0


def test_headers_shared_with_a_sibling_port(toolchain: None, tmp_path: Path) -> None:
    # HeCBench ports share reference headers through links an export may drop: a header
    # only the -omp sibling has is found there (searched after the program's own folders)
    prog, sib = tmp_path / "refhdr-cuda", tmp_path / "refhdr-omp"
    prog.mkdir()
    sib.mkdir()
    (sib / "refvals.h").write_text("static const float kScale = 3.0f;\n")
    (prog / "main.cu").write_text(
        '#include "refvals.h"\n'
        "__global__ void scale(float *x) { x[threadIdx.x] *= kScale; }\n"
        "int main() { float *x; cudaMallocManaged(&x, 64 * sizeof(float));\n"
        "  for (int i = 0; i < 64; i++) x[i] = 1.0f;\n"
        "  scale<<<1, 64>>>(x); return x[5] == 3.0f ? 0 : 1; }\n")
    (r,) = count_run(prog, "", skip_after=False, timeout=120)
    assert r.kernel == "scale" and r.flops_sp == 64
