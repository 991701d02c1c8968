"""The IR instrumenter on hand-written LLVM IR snippets."""

from __future__ import annotations

import re

from ridgeline.counting.instrument import (
    classify_call,
    instrument_ir,
    local_arrays,
    reduction_flops,
    split_top,
    type_size,
    wrap_omp_regions,
)
from ridgeline.counting.mathops import (
    FAST_MATH_FLOPS,
    FAST_SIN_COS_SHARED,
    MATH_FLOPS,
    SIN_COS_REDUCTION,
)

IR = """define dso_local void @k(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %vx = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %vy = load float, ptr %py, align 4
  %m = call float @llvm.fmuladd.f32(float %vx, float 2.0, float %vy)
  %d = fdiv double 1.0, 3.0
  %s = call float @sqrtf(float %m)
  store float %s, ptr %py, align 4
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
declare float @llvm.fmuladd.f32(float, float, float)
declare float @sqrtf(float)
"""


def test_split_top_respects_nesting() -> None:
    assert split_top("float %a, ptr getelementptr (i8, ptr @g, i64 4), align 4") == [
        "float %a", "ptr getelementptr (i8, ptr @g, i64 4)", "align 4"]


def test_type_sizes() -> None:
    assert type_size("float") == 4
    assert type_size("<4 x double>") == 32
    assert type_size("[3 x i16]") == 6


def test_block_histograms_and_hooks() -> None:
    res = instrument_ir(IR, first_id=10)
    assert sorted(res.blocks) == [10, 11, 12]
    loop = res.blocks[11]
    # fmuladd = 2 SP, sqrtf = its GPU sequence, a double reciprocal = 1 DP (+ its shorter
    # refinement later)
    assert loop["sp"] == 2 + MATH_FLOPS["sqrtf"][1]
    assert loop["dp"] == 1 and loop["rcp_dp"] == 1 and "div_dp" not in loop
    assert loop["int_arith"] == 1 and loop["int_cmp"] == 1 and loop["int_gep"] == 2
    text = res.text
    assert text.count("call void @__rl_ld(ptr %px, i64 4)") == 1
    assert text.count("call void @__rl_st(ptr %py, i64 4)") == 1
    # the counter increment comes after the phi, never before it
    loop_body = text.split("loop:")[1]
    assert loop_body.index("phi i64") < loop_body.index("@__rl_bbc, i64 11")


def test_math_call_precision_from_intrinsic_suffix() -> None:
    h: dict[str, float] = {}
    classify_call("llvm.sqrt.f32", h)
    classify_call("llvm.sqrt.f64", h)
    classify_call("llvm.fma.v4f64", h)
    classify_call("llvm.fabs.f32", h)
    # sqrt f32 / f64 take sqrtf's / sqrt's GPU sequences; a 4-lane FMA is 8 DP
    assert h["sp"] == MATH_FLOPS["sqrtf"][1] and h["dp"] == MATH_FLOPS["sqrt"][1] + 8



def test_runtime_dot_products_count_one_integer_op() -> None:
    h: dict[str, float] = {}
    assert classify_call("__rl_dp4a", h) is None
    classify_call("__rl_dp2a", h)
    assert h == {"int_arith": 2}  # IDP4A / IDP2A: one instruction each, no FLOP


SIN_COS_IR = """define dso_local void @rot(float %a, float %b, double %c, ptr %o) {
entry:
  %s = call float @sinf(float %a)
  %k = call float @cosf(float %a)
  %t = call float @cosf(float %b)
  %ds = call double @llvm.sin.f64(double %c)
  %dk = call double @llvm.cos.f64(double %c)
  store float %s, ptr %o, align 4
  ret void
}
"""


def test_sine_and_cosine_of_one_value_share_their_range_reduction() -> None:
    # nvcc reduces %a once for its sine and cosine; the cosine of %b has its own reduction,
    # and so has each of the double-precision pair
    h = instrument_ir(SIN_COS_IR).blocks[0]
    assert h["sp"] == MATH_FLOPS["sinf"][1] + 2 * MATH_FLOPS["cosf"][1] - SIN_COS_REDUCTION["sp"]
    assert SIN_COS_REDUCTION["dp"] == 0
    assert h["dp"] == MATH_FLOPS["sin"][1] + MATH_FLOPS["cos"][1]


INTRINSIC_SIN_COS_IR = """define dso_local void @f(float %a, float %b, ptr %o) {
entry:
  %s = call float @__rl_sinf_fast(float %a)
  %c = call float @__rl_cosf_fast(float %a)
  %d = call float @__rl_cosf_fast(float %b)
  %e = fadd float %s, %c
  %f = fadd float %e, %d
  store float %f, ptr %o, align 4
  ret void
}
"""


def test_approximate_sine_and_cosine_of_one_value_share_their_multiply() -> None:
    # __sinf(a) and __cosf(a): one FMUL.RZ by 1/(2 pi) feeds MUFU.SIN and MUFU.COS (fhd);
    # __cosf(b) keeps its own; two adds
    h = instrument_ir(INTRINSIC_SIN_COS_IR).blocks[0]
    assert FAST_SIN_COS_SHARED["sp"] == 1
    assert h["sp"] == 3 * MATH_FLOPS["__rl_sinf_fast"][1] - 1 + 2


FAST_IR = """define dso_local void @f(float %a, float %b, double %c, ptr %o) {
entry:
  %p = call float @powf(float %a, float %b)
  %s = call float @sinf(float %a)
  %k = call float @cosf(float %a)
  %q = fdiv float %a, %b
  %d = fdiv double %c, 3.0
  %e = call double @exp(double %c)
  store float %p, ptr %o, align 4
  ret void
}
"""


def test_fast_math_counts_the_approximate_single_precision_sequences() -> None:
    default = instrument_ir(FAST_IR).blocks[0]
    fast = instrument_ir(FAST_IR, fast_math=True).blocks[0]
    # powf, sinf and cosf become one MUFU and a multiply or so (the sine and cosine of %a
    # share their multiply); the float division no longer refines (no div_sp to add
    # DIV_EXTRA to); double precision keeps its full sequences
    assert fast["sp"] == (FAST_MATH_FLOPS["powf"] + FAST_MATH_FLOPS["sinf"]
                          + FAST_MATH_FLOPS["cosf"] - FAST_SIN_COS_SHARED["sp"] + 1)
    assert "div_sp" not in fast and default["div_sp"] == 1
    assert default["sp"] == (MATH_FLOPS["powf"][1] + MATH_FLOPS["sinf"][1]
                             + MATH_FLOPS["cosf"][1] - SIN_COS_REDUCTION["sp"] + 1)
    assert fast["dp"] == default["dp"] == 1 + MATH_FLOPS["exp"][1] and fast["div_dp"] == 1


def test_omp_region_wrapper() -> None:
    ir = ("define internal void @__omp_offloading_10_2a_main_l7(ptr noundef %0, i64 %1) #3 {\n"
          "  ret void\n}\n")
    text, names = wrap_omp_regions(ir)
    assert names == ["__omp_offloading_10_2a_main_l7"]
    assert "@__omp_offloading_10_2a_main_l7.rl_body(ptr noundef %0, i64 %1) noinline {" in text
    assert "call i32 @__rl_omp_begin(ptr @__rl_kn0)" in text
    assert "call void @__omp_offloading_10_2a_main_l7.rl_body(ptr %a0, i64 %a1)" in text


ARRAYS_IR = """define dso_local void @h(ptr %keys, i64 %k) {
entry:
  %hist = alloca [64 x i32], align 16
  %pair = alloca [2 x i32], align 4
  %lb = alloca i32, align 4
  call void @llvm.memset.p0.i64(ptr %hist, i8 0, i64 256, i1 false)
  store i32 0, ptr %lb, align 4
  %row = getelementptr inbounds [64 x i32], ptr %hist, i64 0, i64 %k
  %v = load i32, ptr %row, align 4
  %next = getelementptr inbounds i32, ptr %row, i64 1
  store i32 %v, ptr %next, align 4
  %p1 = getelementptr inbounds [2 x i32], ptr %pair, i64 0, i64 1
  store i32 %v, ptr %p1, align 4
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
"""


def test_stack_arrays_indexed_at_run_time_are_local_memory() -> None:
    # %hist is indexed by %k: it and every pointer derived from it are local memory (the
    # memset too); %pair only by constants and %lb a scalar slot: registers on a GPU
    body = ARRAYS_IR.split("{\n", 1)[1].split("\n}")[0].split("\n")
    assert local_arrays(body) == {"%hist", "%row", "%next"}
    # loop strength reduction steps a pointer through the array: a phi of the array and its
    # increment, defined below it; the array is indexed at run time all the same
    swept = ["  %buf = alloca [16 x i32], align 16", "  br label %loop", "loop:",
             "  %lsr.iv = phi ptr [ %scevgep, %loop ], [ %buf, %entry ]",
             "  store i32 0, ptr %lsr.iv, align 4",
             "  %scevgep = getelementptr i8, ptr %lsr.iv, i64 4", "  br label %loop"]
    assert local_arrays(swept) == {"%buf", "%lsr.iv", "%scevgep"}
    assert local_arrays(swept[:1] + swept[4:5]) == set()  # the alloca alone: a scalar slot
    text = instrument_ir(ARRAYS_IR).text
    assert "call void @__rl_sta(ptr %hist, i64 256)" in text
    assert "call void @__rl_lda(ptr %row, i64 4)" in text
    assert "call void @__rl_sta(ptr %next, i64 4)" in text
    assert "call void @__rl_st(ptr %p1, i64 4)" in text
    assert "call void @__rl_st(ptr %lb, i64 4)" in text


RED_IR = """define internal void @.omp.reduction.reduction_func(ptr %0, ptr %1) {
  %a = load ptr, ptr %0, align 8
  %b = load ptr, ptr %1, align 8
  %x = load float, ptr %a, align 4
  %y = load float, ptr %b, align 4
  %s = fadd float %x, %y
  store float %s, ptr %a, align 4
  %a2 = getelementptr inbounds ptr, ptr %0, i64 1
  %p2 = load ptr, ptr %a2, align 8
  %u = load double, ptr %p2, align 8
  %v = fmul double %u, %u
  store double %v, ptr %p2, align 8
  ret void
}
define internal void @.omp.reduction.reduction_func.3(ptr %0, ptr %1) {
  %a = load ptr, ptr %0, align 8
  %x = load double, ptr %a, align 8
  %c = fcmp ogt double %x, 0.0
  %m = select i1 %c, double %x, double 0.0
  store double %m, ptr %a, align 8
  ret void
}
define internal void @.omp.reduction.reduction_func.5(ptr %0, ptr %1) {
  %a = load ptr, ptr %0, align 8
  %b = load ptr, ptr %1, align 8
  %x = load i32, ptr %a, align 4
  %y = load i32, ptr %b, align 4
  %s = add nsw i32 %x, %y
  store i32 %s, ptr %a, align 4
  ret void
}
define void @outlined(ptr %list) {
""" + ("  %r = call i32 @__kmpc_reduce_nowait(ptr nonnull @1, i32 0, i32 2, i64 16, "
       "ptr nonnull %list, ptr nonnull @.omp.reduction.reduction_func, ptr nonnull @lock)\n"
       "  %q = call i32 @__kmpc_reduce(ptr @1, i32 0, i32 1, i64 8, ptr %list, "
       "ptr @.omp.reduction.reduction_func.3, ptr @lock)\n"
       "  %c = call i32 @__kmpc_reduce(ptr @1, i32 0, i32 1, i64 8, ptr %list, "
       "ptr @.omp.reduction.reduction_func.5, ptr @lock)\n"
       "  ret void\n}\n")


def test_reduction_combine_flops_reach_the_runtime() -> None:
    # a + reduction on a float and a * one on a double: one FLOP each per combine; max: none
    # integer sum: one integer op
    assert reduction_flops(RED_IR) == {".omp.reduction.reduction_func": (1, 1, 0, 0),
                                       ".omp.reduction.reduction_func.3": (0, 0, 0, 0),
                                       ".omp.reduction.reduction_func.5": (0, 0, 0, 1)}
    text = instrument_ir(RED_IR, omp=True).text
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if "@__rl_kmpc_reduce_nowait(" in ln)
    assert lines[at - 1].strip() == \
        "call void @__rl_omp_red_flops(i32 1, i32 1, i32 0, i32 0)"
    # the max reduction costs no FLOP, but the runtime still counts its own integer work
    ats = [i for i, ln in enumerate(lines) if "@__rl_kmpc_reduce(" in ln]
    assert [lines[i - 1].strip() for i in ats] == [
        "call void @__rl_omp_red_flops(i32 0, i32 0, i32 0, i32 0)",
        "call void @__rl_omp_red_flops(i32 0, i32 0, i32 0, i32 1)"]


RCP_IR = """define dso_local void @r(float %a, float %b, double %c, ptr %o) {
entry:
  %r = fdiv float 1.000000e+00, %a
  %m = fdiv float -1.000000e+00, %a
  %t = fdiv float 2.000000e+00, %b
  %q = fdiv float %a, %b
  %d = fdiv double 1.000000e+00, %c
  %e = fdiv double 0x3FF0000000000000, %c
  %f = fdiv double %c, 1.000000e+01
  store float %r, ptr %o, align 4
  ret void
}
"""


def test_reciprocals_are_counted_apart_from_divisions() -> None:
    # nvcc compiles 1/x as a reciprocal (FFMA, FADD, FFMA in single precision: 5 counted
    # FLOPs; five DFMA in double) and any other quotient, -1/x included, as a division (five
    # FFMA: 10; seven DFMA and a DMUL: 15, plus the FFMA that checks a double quotient)
    h = instrument_ir(RCP_IR).blocks[0]
    assert h["rcp_sp"] == 1 and h["div_sp"] == 3 and h["sp"] == 4
    assert h["rcp_dp"] == 2 and h["div_dp"] == 1 and h["dp"] == 3
    fast = instrument_ir(RCP_IR, fast_math=True).blocks[0]
    # with fast math a float reciprocal is one MUFU (no counted FLOP), a quotient a MUFU and
    # a multiply
    assert fast["sp"] == 3 and "rcp_sp" not in fast and "div_sp" not in fast
    from ridgeline.counting.mathops import DDIV_SP_CHECK, DIV_EXTRA, RCP_EXTRA

    assert (1 + RCP_EXTRA["sp"], 1 + DIV_EXTRA["sp"]) == (5, 10)
    assert (1 + RCP_EXTRA["dp"], 1 + DIV_EXTRA["dp"], DDIV_SP_CHECK) == (10, 15, 2)


HYP_IR = """define dso_local void @hyp(float %a, float %b, ptr %o) {
entry:
  %c = call float @coshf(float %a)
  %s = call float @sinhf(float %a)
  %t = call float @sinhf(float %b)
  %q = fdiv float %c, %s
  store float %q, ptr %o, align 4
  ret void
}
"""


def test_hyperbolic_sine_and_cosine_of_one_value_share_their_exponential() -> None:
    # langevin's coshf(x) / sinhf(x): nvcc computes exp(|x|) and its reciprocal once; the
    # sinhf of another value keeps its own
    from ridgeline.counting.mathops import SINH_COSH_SHARED

    h = instrument_ir(HYP_IR).blocks[0]
    assert SINH_COSH_SHARED["sp"] == 7
    assert h["sp"] == MATH_FLOPS["coshf"][1] + 2 * MATH_FLOPS["sinhf"][1] - 7 + 1


SPEC_IR = """define dso_local void @g(float %x, float %y, float %d, float %r, ptr %o) {
entry:
  %c = fcmp olt float %x, %r
  %m = fmul float %y, %d
  %s = select i1 %c, float %m, float %y
  %k = fcmp ogt float %x, 1.000000e+00
  %t = select i1 %k, float 1.000000e+00, float %d
  %u = fmul float %s, %t
  %a = fadd float %x, %y
  %b = select i1 %k, float %y, float %a
  %w = fadd float %a, %b
  store float %w, ptr %o, align 4
  %e = fadd float %x, 1.000000e+00
  %f = select i1 %c, float %e, float 1.000000e+00
  store float %f, ptr %o, align 4
  ret void
}
"""


def test_operations_speculated_into_selects_count_under_their_condition() -> None:
    # %m feeds only the select's true arm, the other arm being its operand %y (an update in
    # place): counted where %c holds; %u multiplies by 1 unless %k is false: counted where %k
    # is false; %a has a second use, %w none in a select, and %e's select chooses between it
    # and a constant (computed, then selected): all three counted always
    res = instrument_ir(SPEC_IR)
    assert res.blocks[0]["sp"] == 3
    text = res.text
    m = re.search(r"(%__rl_f\w+) = select i1 %c, i64 1, i64 0", text)
    assert m and re.search(r"%__rl_f\w+ = select i1 %k, i64 0, i64 1", text)
    assert text.count("call void @__rl_count_extra(i32 0,") == 2
    # the count for %m comes after the select that decides it
    assert text.index("%s = select") < text.index(m.group(1))
    assert "declare void @__rl_count_extra(i32, i64, i64)" in text


FMA_IR = """define dso_local void @h(float %p, float %q, float %r, float %s, ptr %o) {
entry:
  %a = fadd float %p, %q
  %b = fadd float %a, %r
  %sum = fadd float %b, %s
  %t = fmul float %sum, 5.000000e-01
  %p1 = fsub float %p, %t
  %q1 = fsub float %q, %t
  %r1 = fsub float %t, %r
  %s1 = fsub float %t, %s
  store float %p1, ptr %o, align 4
  store float %q1, ptr %o, align 4
  store float %r1, ptr %o, align 4
  store float %s1, ptr %o, align 4
  %u = fmul float %p, %q
  %v = fadd float %u, %r
  store float %u, ptr %o, align 4
  store float %v, ptr %o, align 4
  br label %next
next:
  %w = fadd float %u, %r
  store float %w, ptr %o, align 4
  ret void
}
"""


def test_products_fuse_into_every_sum_using_them_when_the_gpu_contracts() -> None:
    # rng-wallace's Hadamard step: t = (p + q + r + s) / 2 and four differences with t are
    # 3 FADDs and four FFMAs on the GPU (11), one multiply and seven adds here (8); %u is
    # also stored, so it stays an FMUL and %v an FADD (ldpc's R_temp in nvcc 13's SASS);
    # %w, in another block, does not fuse
    plain = instrument_ir(FMA_IR).blocks
    fused = instrument_ir(FMA_IR, contract=True).blocks
    assert plain[0]["sp"] == 10 and plain[1]["sp"] == 1
    assert fused[0]["sp"] == 3 + 4 * 2 + 2
    assert fused[1]["sp"] == 1


DIVREM_IR = """define void @k(i32 %a, i32 %b, i32 %c, ptr %o) {
entry:
  %q = udiv i32 %a, %b
  %r = urem i32 %a, %b
  %s = srem i32 %a, %b
  %t = sdiv i32 %c, %b
  %u = urem i32 %a, 12
  store i32 %q, ptr %o, align 4
  br label %next

next:
  %w = urem i32 %a, %b
  ret void
}
"""


def test_a_quotient_and_remainder_of_the_same_operands_are_one_division() -> None:
    # a / b and a % b: one division, the remainder a multiply and a subtract; a signed
    # remainder of the same operands, another dividend, and a constant divisor are not its
    # pair; in another basic block the remainder is a division of its own
    blocks = instrument_ir(DIVREM_IR).blocks
    entry, nxt = blocks[0], blocks[1]
    assert entry["int_div"] == 3  # udiv a,b; srem a,b; sdiv c,b
    assert entry["int_arith"] == 5 + 1  # five div/rem instructions, the multiply of a % b
    assert nxt["int_div"] == 1 and nxt["int_arith"] == 1
