"""The CUDA Math API list and the measured table of counted FLOPs (data/math)."""

from __future__ import annotations

import csv
import logging
from importlib import resources

import pytest

from ridgeline.counting.instrument import classify_call, instrument_ir, keep_math_calls
from ridgeline.counting.mathops import (
    DEFAULT_ARCH,
    FAST_MATH_FLOPS,
    MATH_BUILDS,
    MATH_FLOPS,
    check_table,
    documented_functions,
    math_arch,
    math_table,
    non_flops,
    shipped_archs,
)
from ridgeline.errors import DataError
from ridgeline.hardware import load_catalog


def _flops_rows() -> list[dict[str, str]]:
    text = (resources.files("ridgeline") / "data" / "math" / "flops.csv").read_text()
    return list(csv.DictReader(ln for ln in text.splitlines() if not ln.startswith("#")))


def test_every_documented_function_has_a_value_for_each_shipped_arch_and_build() -> None:
    names = {n for n, _, _ in documented_functions()}
    assert len(names) == len(documented_functions()) > 230
    have: dict[tuple[str, str], set[str]] = {}
    for r in _flops_rows():
        have.setdefault((r["arch"], r["build"]), set()).add(r["name"])
    assert {"sm_80", "sm_86", "sm_90"} <= set(shipped_archs())
    assert set(have) == {(a, b) for a in shipped_archs() for b in MATH_BUILDS}
    for key, measured in have.items():
        assert measured == names, (key, sorted(names ^ measured))
        table = math_table(*key)
        assert names <= set(table)


def test_a_documented_function_missing_from_the_table_is_an_error() -> None:
    measured = {n: {"sp": 1.0} for n, _, _ in documented_functions() if n != "erfinvf"}
    with pytest.raises(DataError, match="erfinvf"):
        check_table(documented_functions(), measured, "sm_86 / default")
    # a named non-FLOP needs no measurement
    check_table(documented_functions(),
                {n: {} for n, _, _ in documented_functions() if n != "fabsf"}, "x")
    with pytest.raises(DataError, match="no math FLOPs for sm_52"):
        math_table("sm_52", "default")


@pytest.mark.parametrize("build", MATH_BUILDS)
def test_every_documented_call_counts_its_table_value_or_is_a_named_non_flop(
        build: str) -> None:
    # no documented function reaches the CPU's libm uncounted or counted some other way
    table = math_table(DEFAULT_ARCH, build)
    for name, prec, _ in documented_functions():
        h: dict[str, float] = {}
        key = classify_call(name, h, fast_math=build == "fast")
        if name in non_flops():
            assert key is None and h == {}, name
            continue
        assert key == name
        want = {p: v for p, v in table[name][1].items() if v}
        assert {p: v for p, v in h.items() if p in ("sp", "dp", "hp") and v} == want, name
        assert h["math_calls"] == 1
        assert prec in h


def test_calls_by_other_names_resolve_to_the_documented_function() -> None:
    t = math_table()
    for call, name in (("llvm.sin.f32", "sinf"), ("llvm.exp2.f64", "exp2"),
                       ("llvm.ldexp.f32.i32", "ldexpf"), ("_ZL8normcdfff", "normcdff"),
                       ("_Z6rsqrtff", "rsqrtf"), ("__rl_sinf_fast", "__sinf"),
                       ("_ZL10__fdividefff", "__fdividef")):
        h: dict[str, float] = {}
        classify_call(call, h)
        assert h.get("sp", 0) + h.get("dp", 0) == sum(t[name][1].values()), call
    h = {}
    for skip in ("llvm.fabs.f32", "fminf", "floor", "llvm.lround.i64.f64", "_ZL5roundf"):
        assert classify_call(skip, h) is None
    assert h == {}


def test_default_table_keeps_the_earlier_sm86_figures() -> None:
    # the hard-coded table before the measured one, where the measurement agrees
    earlier = {"sqrtf": 6, "expf": 10, "exp2f": 0, "exp10f": 10, "expm1f": 20, "logf": 24,
               "log2f": 26, "log10f": 25, "log1pf": 26, "asinf": 21, "acosf": 22,
               "atanf": 18, "atan2f": 31, "sinhf": 19, "coshf": 11, "tanhf": 13,
               "powf": 62, "cbrtf": 10, "erff": 15, "erfcf": 53, "hypotf": 13, "rsqrtf": 0,
               "sqrt": 13, "exp": 30, "exp2": 29, "exp10": 33, "expm1": 35, "log": 44,
               "log2": 47, "log10": 47, "sin": 23, "cos": 23, "tan": 55, "asin": 74,
               "acos": 73, "atan": 48, "atan2": 63, "sinh": 70, "cosh": 38, "tanh": 62,
               "pow": 123, "cbrt": 17, "erf": 79, "erfc": 113, "hypot": 17, "rsqrt": 8,
               "sincosf": 24, "sincos": 36, "fmodf": 6, "fmod": 10}
    assert {n: MATH_FLOPS[n][1] for n in earlier} == earlier
    # measured since: the slow argument reduction's DMUL no longer counts in sinf / cosf /
    # tanf (18 / 18 / 21 before), ldexp is four multiplies (1 before)
    assert (MATH_FLOPS["sinf"][1], MATH_FLOPS["tanf"][1], MATH_FLOPS["ldexpf"][1]) == (17, 20, 4)
    assert FAST_MATH_FLOPS["powf"] == FAST_MATH_FLOPS["sinf"] == 1
    assert "sqrt" not in FAST_MATH_FLOPS and "fabsf" not in MATH_FLOPS


def test_architectures_differ_where_nvcc_compiles_differently() -> None:
    # sinpif on sm_80 is 12 counted FLOPs, on sm_86 20 (nvcc 13)
    assert math_table("sm_80")["sinpif"][1] == {"sp": 12}
    assert math_table("sm_86")["sinpif"][1] == {"sp": 20}


def test_the_target_gpu_names_the_architecture(caplog: pytest.LogCaptureFixture) -> None:
    assert math_arch(["a100"]) == "sm_80"
    assert math_arch(["h100", "a100"]) == "sm_90"
    assert math_arch(["rtx3080"]) == math_arch(None) == math_arch([]) == DEFAULT_ARCH
    with caplog.at_level(logging.INFO, logger="ridgeline.counting.mathops"):
        assert math_arch(["gtx970"]) == DEFAULT_ARCH  # sm_52: nvcc 13 no longer builds it
    assert "no table for gtx970" in caplog.text
    for gpu in load_catalog():
        if gpu.sm_arch and gpu.sm_arch in {"sm_80", "sm_86", "sm_90"}:
            assert math_arch([gpu.name]) == gpu.sm_arch


def test_inline_math_definitions_stay_calls_and_are_not_counted() -> None:
    ir = "\n".join([
        "define internal float @_ZL8normcdfff(float %x) #3 {",
        "  %a = fmul float %x, 0x3FE6A09E60000000",
        "  %b = call float @erfcf(float %a)",
        "  ret float %b",
        "}",
        "define void @k(ptr %p) {",
        "  %v = load float, ptr %p",
        "  %r = call float @_ZL8normcdfff(float %v)",
        "  store float %r, ptr %p",
        "  ret void",
        "}",
        "declare float @erfcf(float)",
    ])
    kept = keep_math_calls(ir)
    assert "define internal float @_ZL8normcdfff(float %x) noinline #3 {" in kept
    assert "define void @k(ptr %p) {" in kept
    inst = instrument_ir(kept)
    total = sum(b.get("sp", 0) for b in inst.blocks.values())
    assert total == sum(math_table()["normcdff"][1].values())


def test_an_unknown_math_build_is_refused() -> None:
    from ridgeline.counting import count_run
    from ridgeline.errors import UsageError
    from tests.counting.conftest import PROGRAMS

    with pytest.raises(UsageError, match="--math-build must be one of default, fast"):
        count_run(PROGRAMS / "mathlib-cuda", "1", math_build="approx")


def test_a_programs_own_function_of_a_math_name_is_not_the_math_function() -> None:
    from ridgeline.counting.instrument import math_name

    assert math_name("_Z4normPfi") is None  # norm(float *, int): double norm's name
    assert math_name("_Z4normiPKd") == "norm"
    assert math_name("_ZL8normcdfff") == "normcdff"
    assert math_name("_Z3sinf") == "sinf"
    assert math_name("_Z6kernelPf") is None and math_name("_ZN3foo3sinEf") is None
    h: dict[str, float] = {}
    classify_call("llvm.sqrt.f16", h)
    assert h["hp"] == MATH_FLOPS["sqrt"][1] and "dp" not in h


def test_what_a_math_functions_cpu_body_calls_is_not_reached() -> None:
    from ridgeline.counting.instrument import function_refs, reachable

    ir = "\n".join([
        "define internal float @_ZL14cyl_bessel_i0ff(float %x) {",
        "  %r = call double @_ZNSt8__detail14__cyl_bessel_iIdEET_S1_S1_(double 0.0, double 1.0)",
        "  ret float 0.0",
        "}",
        "define void @k(float %x) {",
        "  %r = call float @_ZL14cyl_bessel_i0ff(float %x)",
        "  ret void",
        "}",
        "define double @_ZNSt8__detail14__cyl_bessel_iIdEET_S1_S1_(double %a, double %b) {",
        "  ret double 0.0",
        "}",
    ])
    assert reachable(function_refs(ir), (), {"k"}) == {"k", "_ZL14cyl_bessel_i0ff"}
