"""``ridgeline count-run``: run a program on the CPU and count its kernel launches."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ridgeline.cli._common import add_build_options, add_gpu_file, build_of, print_json, print_table
from ridgeline.counting.base import WARM_BLOCKS
from ridgeline.errors import UsageError
from ridgeline.limits import COUNT_MEMORY_GB, COUNT_TIMEOUT_S
from ridgeline.sources.regionname import region_short_name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count-run",
        help="run a CUDA/OpenMP/OpenCL program on the CPU and count its kernel launches",
        description="Build PROGRAM_DIR for the CPU with instrumentation, run it with ARGS and "
        "print per-launch counts: FLOPs by precision (FMA = 2), integer ops, global "
        "load/store bytes, shared accesses, atomics (and the most global atomics on one "
        "address, which the GPU performs one after another), distinct 32-byte sectors, and "
        "DRAM bytes modelled with the L2 of --gpu.",
        epilog="examples:\n"
        "  ridgeline count-run external/gpuFLOPBench/src/atan2-omp --args '10000000 100' "
        "--gpu rtx3080 --json\n"
        "  ridgeline count-run my-cuda-prog --args '1024' --kernel saxpy --launches 1\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("program_dir", metavar="PROGRAM_DIR", help="folder with the program sources")
    p.add_argument("--args", default=None,
                   help="program arguments as one string (default: the Makefile's run target, "
                   "else the first command of the folder's run or run.sh script that "
                   "starts ./PROGRAM)")
    p.add_argument("--kernel", help="count only kernels whose name contains this; the run "
                   "stops once a kernel of this name has its --launches counted")
    p.add_argument("--launches", type=int, default=2, help="launches counted per kernel")
    p.add_argument("--gpu", action="append", default=None,
                   help="GPU whose L2 models DRAM bytes (repeatable; default rtx3080)")
    p.add_argument("--backend", choices=["cuda", "omp", "opencl"],
                   help="force a backend (default: from the folder name or contents)")
    p.add_argument("--timeout", type=float, default=COUNT_TIMEOUT_S, help="seconds for the run")
    p.add_argument("--memory-gb", type=float, default=COUNT_MEMORY_GB,
                   help="memory the program may touch, GiB (its processes' resident memory; "
                   "device buffers up to the largest cataloged GPU's memory are reserved and "
                   "count only where touched)")
    p.add_argument("--sample-threshold", type=int, default=1 << 18, metavar="THREADS",
                   help="CUDA grids with more threads count their first and last blocks "
                   "and a systematic sample of the others (8 or more, until the sampled "
                   "work is known within 1%%, up to --sample-max blocks or about "
                   "--sample-budget seconds) and extrapolate")
    p.add_argument("--sample-min", type=int, default=8, metavar="BLOCKS",
                   help="sampled launches: blocks counted besides the first and last, at least")
    p.add_argument("--sample-max", type=int, default=1024, metavar="BLOCKS",
                   help="sampled launches: blocks counted besides the first and last, at most")
    p.add_argument("--sample-budget", type=float, default=4.0, metavar="SECONDS",
                   help="sampled launches: stop doubling the sample past about this time")
    p.add_argument("--warm-blocks", type=int, default=WARM_BLOCKS, metavar="BLOCKS",
                   help="sampled launches: blocks run before each sampled one, uncounted, "
                   "through the L2 model only, so the sample meets the lines its GPU "
                   f"neighbours bring (default {WARM_BLOCKS}; 0: isolated samples)")
    p.add_argument("--idle-stop", type=float, default=None, metavar="SECONDS",
                   help="end the program this long after its last counted launch")
    p.add_argument("--run-all", action="store_true",
                   help="keep executing kernels after their counted launches (slower, "
                   "keeps the program's results valid)")
    add_build_options(p)
    add_gpu_file(p)
    p.add_argument("--keep-constant-math", action="store_true",
                   help="count math calls on constants (cosf(0.5f)) per call instead of "
                   "letting the compiler evaluate them, as GPU builds through libdevice "
                   "(clang CUDA, OpenMP offload) do")
    p.add_argument("--gpu-compiler", choices=["nvcc", "clang"], default="nvcc",
                   help="how the GPU build to predict lowers math: nvcc (default; the "
                   "Makefile's build) or clang through libdevice (math calls on constants "
                   "kept as with --keep-constant-math, sqrtf approximate)")
    p.add_argument("--math-build", choices=["default", "fast"], default=None,
                   help="the nvcc build whose math functions are counted: default or fast "
                   "(-use_fast_math); default: fast when the Makefile or --compile-commands "
                   "builds with -use_fast_math")
    p.add_argument("--unroll-threshold", type=int, metavar="N",
                   help="the optimizer's loop-unrolling threshold (default: LLVM's for CUDA, "
                   "clang's -O3 one, 300, for OpenMP; 2000 unrolls constant-trip CUDA loops "
                   "as far as nvcc does: fewer integer ops, but arithmetic folded across "
                   "iterations can lose FLOPs the GPU executes)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ridgeline.counting import (
        build_options,
        compiler_options,
        count_run,
        l2_model_note,
        shipped_gpu,
        uncountable,
    )
    from ridgeline.counting.program import compile_commands_fast_math
    from ridgeline.hardware import load_catalog

    cat = load_catalog(args.gpu_file)
    gpus = [cat.get(g) for g in args.gpu or ["rtx3080"]]
    for g in gpus:
        why = uncountable(g)
        if why:
            raise UsageError(f"--gpu {g.name}: {why}")
        if not shipped_gpu(g):
            print(f"note: {l2_model_note(g)}", file=sys.stderr)
    build = build_options(build_of(args), Path(args.program_dir))
    math_build = args.math_build
    if math_build is None and args.compile_commands and compile_commands_fast_math(
            Path(args.compile_commands), Path(args.program_dir).resolve().name):
        math_build = "fast"
    recs = count_run(args.program_dir, args.args, kernel=args.kernel, launches=args.launches,
                     gpu=gpus if len(gpus) > 1 else gpus[0], timeout=args.timeout,
                     memory_gb=args.memory_gb, backend=args.backend,
                     skip_after=not args.run_all, sample_threshold=args.sample_threshold,
                     sample_blocks=args.sample_min, sample_max=args.sample_max,
                     sample_budget=args.sample_budget, idle_stop=args.idle_stop,
                     warm_blocks=args.warm_blocks, math_build=math_build, **build,
                     **compiler_options(args.gpu_compiler, args.keep_constant_math,
                                        args.unroll_threshold))
    stopped = getattr(recs, "stopped", None)
    if stopped:
        print(f"warning: the program failed after {len(recs)} counted launch(es) ({stopped}); "
              "kernels it would have launched later are not counted", file=sys.stderr)
    if args.json:  # each record's run_stopped says it
        print_json([_named(r.to_dict()) for r in recs])
        return 0
    print_table(
        ["kernel", "launch", "SP FLOP", "DP FLOP", "HP FLOP", "int ops", "load B", "store B",
         "DRAM B", "atomics", "on 1 addr int/fp", "longest thread", "warp issue", "blocks"],
        [[_named({"kernel": r.kernel, "backend": r.backend})["kernel"][-48:], r.launch,
          f"{r.flops_sp:.4g}", f"{r.flops_dp:.4g}",
          f"{r.flops_hp:.4g}", f"{r.int_ops:.4g}", f"{r.global_load_bytes:.4g}",
          f"{r.global_store_bytes:.4g}", f"{r.dram_bytes or 0:.4g}", f"{r.atomics:.4g}",
          "/".join("-" if h is None else f"{h:.4g}" for h in (r.atomics_hot,
                                                               r.atomics_hot_fp)),
          "-" if r.thread_work_max is None else f"{r.thread_work_max:.4g}",
          "-" if r.warp_issue_factor is None else f"{r.warp_issue_factor:.3g}x",
          f"{r.blocks_counted}/{r.blocks_total}"] for r in recs],
    )
    if stopped:  # beside the counts: they are what the run reached, not the whole program
        print(f"status: {stopped}")
    spec = gpus[0]
    if spec.l2_exit_kept_mib > 0 and any(r.global_store_bytes > 0 for r in recs):
        print(f"DRAM B leaves out up to {spec.l2_exit_kept_mib:g} MiB of each launch's writes, "
              f"which the {spec.name}'s L2 keeps dirty past the launch (catalog "
              "l2_exit_kept_mib)", file=sys.stderr)
    if any(r.backend == "cuda" for r in recs):
        coded = [r for r in recs if r.code_bytes is not None]
        if coded:
            lo, hi = (f(r.code_bytes or 0.0 for r in coded) for f in (min, max))
            span = f"{lo:.0f}" if lo == hi else f"{lo:.0f}-{hi:.0f}"
            print(f"DRAM B includes each kernel's machine code (nvcc sm_86 SASS, {span} "
                  "bytes), which a profiled launch reads after the cache flush",
                  file=sys.stderr)
        dropped = [r for r in recs if r.gpu_local_memory is False
                   and r.local_load_bytes + r.local_store_bytes > 0]
        if dropped:
            print(f"{len(dropped)} launch(es): the CPU's stack arrays are registers in the "
                  "compiled kernel (no local memory), so no local traffic is counted",
                  file=sys.stderr)
        if len(coded) < len(recs):
            print("kernels without a compiled form (nvcc missing or failed): DRAM B leaves "
                  "their code out", file=sys.stderr)
    return 0


def _named(rec: dict[str, Any]) -> dict[str, Any]:
    """A record with an OpenMP region under the name every command uses (``copy_l105``;
    the compiler's name kept as ``symbol``)."""
    if rec.get("backend") != "omp":
        return rec
    return {**rec, "kernel": region_short_name(rec["kernel"]), "symbol": rec["kernel"]}
