"""``ridgeline gpus``: the catalog."""

from __future__ import annotations

import argparse

from ridgeline.cli._common import add_gpu_file, print_json, print_table
from ridgeline.hardware import GPU, get_rule, load_catalog


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gpus",
        help="list the GPU catalog",
        description="List the GPUs ridgeline knows, with peaks, bandwidth and ridge points.",
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
            g.name, g.architecture, g.sm_count, g.peak_fp32_tflops, g.peak_fp64_tflops,
            g.peak_fp16_tflops, g.peak_int32_tops, g.dram_bandwidth_gbps,
            _achv(g, "dram_bandwidth"), f"{_achv(g, 'fp32')}/{_achv(g, 'fp64')}", g.l2_mb,
            f"{r['sp']:.3g}/{r['dp']:.3g}/{r['int']:.3g}",
        ])
    print_table(
        ["name", "arch", "SMs", "FP32 TF", "FP64 TF", "FP16 TF", "INT32 TOPS", "GB/s",
         "achv GB/s", "achv FP32/FP64 TF", "L2 MiB", "paper-a ridges SP/DP/INT"],
        rows,
    )
    print("achv: achievable (measured) figures, sources in --json; ~ estimated as theoretical x "
          "the median measured share of the GPUs with a figure; - no public figure")
    return 0


def _achv(g: GPU, kind: str) -> str:
    r = g.achievable(kind)
    if r.value is None:
        return "-"
    return ("~" if r.estimated else "") + f"{r.value:.4g}"
