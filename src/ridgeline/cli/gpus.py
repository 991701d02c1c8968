"""``ridgeline gpus``: the catalog."""

from __future__ import annotations

import argparse

from ridgeline.cli._common import add_gpu_file, print_json, print_table
from ridgeline.hardware import ACHIEVABLE_KINDS as KINDS
from ridgeline.hardware import GPU, get_rule, load_catalog


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gpus",
        help="list the GPU catalog",
        description="List the GPUs ridgeline knows: theoretical and achievable (measured) peaks, "
        "bandwidth, L2 and ridge points; --json gives every achievable figure with its source.",
        epilog="examples:\n  ridgeline gpus\n  ridgeline gpus --json\n"
        "  ridgeline gpus --gpu-file my-gpus.toml",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_gpu_file(p)
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cat = load_catalog(args.gpu_file)
    if args.json:
        print_json([g.to_dict() for g in cat])
        return 0
    rule = get_rule("paper-a")
    rows = []
    for g in cat:
        r = rule.ridges(g)
        rows.append([
            g.name, g.architecture, g.sm_count, _pair(g, "fp32"), _pair(g, "fp64"),
            g.peak_fp16_tflops, _pair(g, "int32"), _pair(g, "dram_bandwidth"), g.l2_mb,
            _achv(g, "l2_bandwidth"), f"{r['sp']:.3g}/{r['dp']:.3g}/{r['int']:.3g}",
        ])
    print_table(
        ["name", "arch", "SMs", "FP32 TF", "FP64 TF", "FP16 TF", "INT32 TOPS", "DRAM GB/s",
         "L2 MiB", "L2 GB/s", "paper-a ridges SP/DP/INT"],
        rows,
    )
    print("theoretical / achievable (measured by public micro-benchmarks; sources in --json); "
          "~ derived: theoretical x the median measured share of the same architecture's "
          "(else vendor's) cataloged GPUs; L2 GB/s achievable only; INT32 achievable is a "
          "32-bit multiply-add rate")
    return 0


def _achv(g: GPU, kind: str) -> str:
    r = g.achievable(kind)
    if r.value is None:
        return "-"
    v = f"{r.value:.4g}" if r.value < 1e4 else f"{r.value:.0f}"
    return ("~" if r.estimated else "") + v


def _pair(g: GPU, kind: str) -> str:
    theo = KINDS[kind][1]
    return f"{getattr(g, theo):.4g} / {_achv(g, kind)}" if theo else _achv(g, kind)
