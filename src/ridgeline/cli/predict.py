"""``ridgeline predict``, ``predict-batch`` and ``train``."""

from __future__ import annotations

import argparse
import math
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ridgeline.cli._common import (
    add_build_options,
    add_data_dir,
    add_gpu_file,
    build_of,
    print_json,
    print_table,
)
from ridgeline.errors import InputFileError, UnknownNameError, UsageError
from ridgeline.limits import COUNT_TIMEOUT_S

SAMPLES: dict[str, tuple[str, str]] = {
    # name: (kernel, default arguments)
    "saxpy": ("saxpy", "16777216 10"),
    "polyeval": ("polyeval", "1048576 64 16"),
}


def sample_dir(name: str) -> Path:
    if name not in SAMPLES:
        raise UnknownNameError("sample", name, SAMPLES)
    return Path(str(resources.files("ridgeline").joinpath(f"data/samples/{name}")))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "predict",
        help="predict class, FLOPs, integer ops, DRAM bytes and time of a kernel on GPUs",
        description="Predict how a kernel launch performs on one or more cataloged GPUs, "
        "from source, without the GPU. Grid and block are taken from the program's launch "
        "site when not given (and the output says so).",
        epilog="examples:\n"
        "  ridgeline predict --sample saxpy --gpu rtx3080 --gpu a100\n"
        "  ridgeline predict prog/ --kernel saxpy --gpu h100 --args '1048576 10' --json\n"
        "  ridgeline predict main.cu --kernel k --gpu a10 --grid 4096 --block '(256, 1, 1)'\n"
        "  ridgeline predict --sample saxpy --gpu h100 --gpu a10 --measured A100=1.2ms\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("sources", nargs="*", metavar="SOURCE", help="source files or folder")
    p.add_argument("--kernel", help="kernel name (CUDA function, or OpenMP <func>_l<line>)")
    p.add_argument("--sample", help=f"a shipped sample program: {', '.join(SAMPLES)}")
    p.add_argument("--gpu", action="append", default=[], help="GPU name (repeatable)")
    p.add_argument("--grid", help="grid size: '(X, Y, Z)', 'X', 'X,Y,Z'")
    p.add_argument("--block", help="block size, same forms")
    p.add_argument("--args", default=None, help="the program's command-line arguments")
    p.add_argument("--predictor", default="learned",
                   help="learned (default), physical (the timing model over CPU counts), "
                   "analytic, or any registered predictor")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--count", choices=["auto", "never", "always"], default="never",
                   help="run the program on the CPU with instrumentation for exact FLOPs and "
                   "modelled DRAM bytes (cached): auto falls back to the learned path when "
                   "counting fails, always makes it an error (default: never; the output then "
                   "says its counts are learned from source analysis)")
    p.add_argument("--count-timeout", type=float, default=COUNT_TIMEOUT_S, metavar="S",
                   help=f"time limit of a counting run in seconds (default {COUNT_TIMEOUT_S:g})")
    p.add_argument("--measured", default=None, metavar="GPU=TIME",
                   help="the kernel's measured time on one cataloged GPU (A100=1.2ms, "
                   "a10=850us; ns when no unit): every time is then that measurement x the "
                   "model's predicted time ratio (target / measured GPU), with a range")
    add_gpu_file(p)
    add_build_options(p)
    p.set_defaults(func=run_predict)

    b = sub.add_parser(
        "predict-batch",
        help="predict every row of a CSV (kernel-performance.csv columns)",
        description="Predict each row of ROWS.csv (columns source, kernel, model_type, "
        "block_size, grid_size, exe_args, device; others ignored) with program folders under "
        "--sources DIR/<source>/. OUT.csv repeats every input row in order and adds "
        "pred_SP_FLOP, pred_DP_FLOP, pred_HP_FLOP, pred_int_ops, pred_bytes_total, "
        "pred_xtime_ns, pred_class_paper_a, pred_class_fp, error, pred_origin and "
        "count_status/count_error (why a row has no CPU-execution counts: the cause, "
        "compile, link, crash, timeout, memory, missing-input, no-launch, unsupported..., and "
        "the first error line; 'partial' when the run that counted it then stopped). The "
        "summary at the end groups the causes. Rows are checked "
        "first: a source outside --sources, a launch beyond CUDA's limits, an unknown "
        "model_type or over-long exe_args gives that row an error; a file whose rows do not "
        "all have the header's fields is refused. Finished rows go to OUT.csv.partial as "
        "they come: a rerun after a kill continues where it stopped. Optional columns "
        "measured_gpu and measured_ns (the kernel's time measured on one cataloged GPU; ns, "
        "or with a unit: 1.2ms) anchor the row's time on that measurement (pred_anchor says "
        "so).",
        epilog="example:\n  ridgeline predict-batch rows.csv --sources external/gpuFLOPBench/src "
        "--out preds.csv\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("rows", metavar="ROWS.csv")
    b.add_argument("--sources", required=True, metavar="DIR", help="folder of program folders")
    b.add_argument("--out", required=True, metavar="OUT.csv")
    b.add_argument("--predictor", default="learned",
                   help="learned (default), physical (the timing model over CPU counts) or "
                   "analytic")
    b.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    b.add_argument("--count", choices=["cached", "auto", "never"], default="auto",
                   help="CPU-execution counts: auto (default) takes them from the shipped "
                   "counted table and the local count cache and runs every other program once "
                   "per (source, arguments), in parallel, caching the result (programs whose "
                   "counting failed in the shipped benchmark runs are not run again); cached "
                   "runs nothing; never uses no counts. The pred_origin column says which rows "
                   "used counts")
    b.add_argument("--count-timeout", type=float, default=COUNT_TIMEOUT_S, metavar="S",
                   help=f"time limit of one program's counting run (default {COUNT_TIMEOUT_S:g})")
    b.add_argument("--chunk-rows", type=int, default=None, metavar="N",
                   help="rows predicted and written to OUT.csv.partial together, at least "
                   "(whole programs; default 256): a kill loses at most the chunk under way")
    add_gpu_file(b)
    add_build_options(b)
    b.set_defaults(func=run_batch)

    t = sub.add_parser(
        "train",
        help="rebuild the shipped learned model from sources + ground truth",
        description="Analyse every shared HeCBench row from its program sources, fit the "
        "boosted-tree count model, report program-grouped CV figures and save the model and "
        "the derived feature table.",
        epilog="examples:\n  ridgeline train --sources external/gpuFLOPBench/src "
        "--out src/ridgeline/models\n"
        "  ridgeline train --from-table   # refit after new counts, no re-analysis\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = t.add_mutually_exclusive_group(required=True)
    src.add_argument("--sources", metavar="DIR", help="HeCBench program folders (DIR/<source>/)")
    src.add_argument("--from-table", nargs="?", const="", default=None, metavar="PARQUET",
                     help="refit from a feature table built earlier (default: the shipped "
                          "one), with the counted table as it is now; no source analysis")
    t.add_argument("--out", default=None, metavar="DIR", help="where to write the model "
                   "(default: the installed package's models folder)")
    t.add_argument("--jobs", type=int, default=None)
    t.add_argument("--max-iter", type=int, default=None, metavar="N",
                   help="boosting iterations per target (default 200; fewer for a quick fit)")
    add_data_dir(t)
    t.set_defaults(func=run_train)


def _predictor(name: str) -> Any:
    import ridgeline.predictors.analytic  # noqa: F401 - registers
    import ridgeline.predictors.learned  # noqa: F401 - registers
    import ridgeline.predictors.physical_predictor  # noqa: F401 - registers
    from ridgeline.predictors import PREDICTORS

    return PREDICTORS.get(name)()


def run_predict(args: argparse.Namespace) -> int:
    from ridgeline.hardware import load_catalog
    from ridgeline.predictors import KernelRef, Launch, check_launch_limits

    if args.sample:
        kernel, default_args = SAMPLES.get(args.sample, (None, ""))
        sources = [sample_dir(args.sample)]
        kname = args.kernel or kernel
        pargs = default_args if args.args is None else args.args
    else:
        if not args.sources:
            raise UsageError("give SOURCE files/folder or --sample NAME "
                             f"(samples: {', '.join(SAMPLES)})")
        if not args.kernel:
            raise UsageError("--kernel NAME is required with SOURCE")
        sources, kname, pargs = [Path(s) for s in args.sources], args.kernel, args.args or ""
    if not args.gpu:
        raise UsageError("give at least one --gpu (see `ridgeline gpus`)")
    cat = load_catalog(args.gpu_file)
    gpus = [cat.get(g) for g in args.gpu]
    pred = _predictor(args.predictor)
    kref = KernelRef(str(kname), tuple(sources), build=build_of(args))
    launch = Launch.parse(args.grid, args.block, pargs)
    check_launch_limits(launch.grid, launch.block, "--grid", "--block")
    recs, notes = _attach_counts(args, pred, sources, kref, pargs, gpus)
    preds = []
    for g in gpus:
        # a GPU that could not be counted keeps the learned path; the others their counts
        pred.counted = recs if recs and any(r.get("dram_bytes_by_gpu", {}).get(g.name)
                                            is not None for r in recs) else None
        preds.append(pred.predict(kref, launch, g))
        preds[-1].notes.extend(notes.get(g.name, ()))
    if getattr(args, "measured", None):
        _anchor(args.measured, cat, preds, pred, kref, launch)
    if args.json:
        print_json([{**p.to_dict(), "args": pargs} for p in preds])
        return 0
    _print(preds, pargs)
    return 0


def _anchor(text: str, cat: Any, preds: list[Any], pred: Any, kref: Any, launch: Any) -> None:
    from ridgeline.predictors.anchored import anchor_predictions, parse_measured

    anchor = parse_measured(text, cat)
    on = next((p for p in preds if p.gpu == anchor.gpu.name), None)
    anchor_predictions(preds, anchor, on or pred.predict(kref, launch, anchor.gpu))


#: predictors that take CPU-execution counts (--count)
COUNTING_PREDICTORS = ("learned", "physical")


#: an OpenMP region's name (``copy_l105``, ``__omp_offloading_..._l105``): counted with the
#: OpenMP backend when a folder holds several
_REGION = re.compile(r"_l\d+$")


def _attach_counts(args: argparse.Namespace, pred: Any, sources: list[Path], kref: Any,
                   pargs: str, gpus: list[Any]) -> tuple[list[dict[str, Any]] | None,
                                                         dict[str, list[str]]]:
    """Run (or reuse cached) CPU-execution counts for --count auto|always: the records, and
    the notes of each GPU (with --count never, that the learned predictor's counts come
    from source analysis). A GPU whose DRAM bytes cannot be modelled gets its own note
    ("counting skipped ...") and the learned path; the other GPUs are counted."""
    mode = getattr(args, "count", "never")
    if mode == "never":
        if args.predictor not in COUNTING_PREDICTORS:
            return None, {}
        note = ("counts learned from source analysis, not CPU execution: --count auto runs "
                "the program once on the CPU (cached) for exact counts, the more accurate path")
        return None, {g.name: [note] for g in gpus}
    if args.predictor not in COUNTING_PREDICTORS:
        raise UsageError(f"--count {mode} needs --predictor learned or physical (got "
                         f"{args.predictor!r})")
    from ridgeline.counting import shipped_gpu
    from ridgeline.errors import RidgelineError

    def every(note: str) -> tuple[None, dict[str, list[str]]]:
        return None, {g.name: [note] for g in gpus}

    folder = sources[0] if len(sources) == 1 and sources[0].is_dir() else None
    if folder is None:
        why = "--count needs the program folder as the single SOURCE"
        if mode == "always":
            raise UsageError(why)
        return every(f"counting skipped: {why}; learned path used")
    countable, notes = _countable(gpus, mode)
    if not countable:
        return None, notes
    from ridgeline.learning.count_cache import run_counts

    try:
        recs, cached = run_counts(folder, pargs, kref.name,
                                  [g.name if shipped_gpu(g) else g for g in countable],
                                  args.count_timeout, build=kref.build,
                                  backend="omp" if _REGION.search(kref.name) else None)
    except (RidgelineError, OSError) as e:
        if mode == "always":
            raise
        return every(f"counting failed ({e}); learned path used")
    if not recs:
        why = f"the counting run launched no kernel named {kref.name!r}"
        if mode == "always":
            from ridgeline.errors import ExecutionError

            raise ExecutionError(why)
        return every(f"counting: {why}; learned path used")
    done = "counts from CPU execution" + (" (cached)" if cached else "")
    for g in countable:
        notes.setdefault(g.name, []).insert(0, done)
    return recs, notes


def _countable(gpus: list[Any], mode: str) -> tuple[list[Any], dict[str, list[str]]]:
    """The GPUs whose DRAM bytes the CPU run can model, and a note for each other one (and
    for each GPU of a user's file: its L2 and the model fields at their defaults)."""
    from ridgeline.counting import l2_model_note, shipped_gpu, uncountable

    notes: dict[str, list[str]] = {}
    countable = []
    for g in gpus:
        reason = uncountable(g)
        if reason and mode == "always":
            raise UsageError(f"--count always: {reason}")
        if reason:
            notes[g.name] = [f"counting skipped for this GPU: {reason}; learned path used"]
        else:
            countable.append(g)
            if not shipped_gpu(g):
                notes[g.name] = [l2_model_note(g)]
    return countable, notes


def _print(preds: list[Any], pargs: str) -> None:
    from ridgeline.learning.model import TIME_RANGE

    first = preds[0]
    print(f"kernel {first.kernel}  args {pargs!r}  predictor {first.predictor}")
    for k, v in first.origin.items():
        print(f"  {k}: {v}")
    for n in first.notes:
        print(f"  note: {n}")
    rows = []
    for p in preds:
        c = p.counts
        lab = p.labels.get("paper-a")
        ai = lab.intensity if lab and lab.intensity else {}
        rows.append([
            p.gpu, p.labels["paper-a"].value, p.labels["fp"].value,
            None if p.confidence is None else round(p.confidence, 2),
            f"{_g(ai.get('sp'))}/{_g(ai.get('dp'))}/{_g(ai.get('int'))}",
            c.flops_sp, c.flops_dp, c.flops_hp, c.int_ops, c.dram_bytes,
            None if p.time_s is None else p.time_s * 1e6,
            "-" if p.time_range_s is None else
            f"{_g(p.time_range_s[0] * 1e6)}-{_g(p.time_range_s[1] * 1e6)}",
        ])
    print_table(["GPU", "paper-a", "fp", "conf", "AI sp/dp/int", "SP FLOP", "DP FLOP",
                 "HP FLOP", "int ops", "DRAM B", "time us", f"{TIME_RANGE:.0%} range us"],
                rows)


def _g(v: float | None) -> str:
    if v is None:
        return "-"
    return "inf" if math.isinf(v) else f"{v:.3g}"


def run_batch(args: argparse.Namespace) -> int:
    from ridgeline.predictors.batch_stream import BatchRun, partial_path, run_batch

    src = Path(args.sources)
    if not src.is_dir():
        raise InputFileError(f"--sources {str(src)!r} is not a folder")
    try:
        s = run_batch(BatchRun.from_cli(args))
    except KeyboardInterrupt:
        print(f"the rows finished so far are kept in {partial_path(Path(args.out))}; the same "
              "command continues from there", file=sys.stderr)
        raise
    bad = sum(s.errors.values())
    resumed = f", {s.resumed} resumed from an interrupted run" if s.resumed else ""
    print(f"{s.rows} rows -> {args.out} ({bad} with errors, {s.origins['counted']} with "
          f"CPU-execution counts{resumed}) in {s.seconds:.1f} s", file=sys.stderr)
    for line in s.lines():
        print(f"  {line}", file=sys.stderr)
    if s.rows and bad == s.rows:
        print(f"ridgeline predict-batch: every row failed; see the error column of {args.out}",
              file=sys.stderr)
        return 1
    return 0


def run_train(args: argparse.Namespace) -> int:
    import json

    from ridgeline.learning.shipped import TABLE_FILE
    from ridgeline.workflows import train

    if args.from_table is not None:
        table, src, dest = train.read_feature_table(args.from_table or None, args.out)
        print(f"refitting from {src} ({len(table)} rows)")
    else:
        table, dest = train.build_feature_table(Path(args.sources), args.data_dir, args.out,
                                                args.jobs)
        n_err = int((table["error"].fillna("") != "").sum())
        print(f"analysed {len(table)} rows ({n_err} could not be analysed)")
    model_file, figs = train.fit_and_evaluate(table, dest, args.max_iter)
    print(f"wrote {model_file} and {dest / TABLE_FILE}")
    print("paper-A set (RTX 3080), program-grouped 5-fold CV:")
    print(json.dumps({k: v for k, v in figs.items() if not k.startswith("_")}, indent=2,
                     default=str))
    return 0
