"""``ridgeline label``: add a Compute/Bandwidth column to profile rows by a named rule."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ridgeline.cli._common import add_gpu_file
from ridgeline.hardware import get_rule, load_catalog, rule_names

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "label",
        help="label profile rows Compute or Bandwidth by a roofline rule",
        description="Read Nsight Compute rows (the rtx3080-profiling or kernel-performance "
        "schema, detected from the columns) and write them back with a `label` column "
        "(Compute/Bandwidth) and a `label_note` column saying why a row has no label.",
        epilog="examples:\n"
        "  ridgeline label rtx3080-profiling.csv --gpu rtx3080 --rule paper-a --out out.csv\n"
        "  ridgeline label kernel-performance.csv --rule fp --out out.csv   "
        "# GPU from each row's device\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("profiles", metavar="PROFILES.csv")
    p.add_argument("--gpu", help="GPU for every row (default: each row's device column)")
    p.add_argument("--rule", default="paper-a",
                   help=f"label rule: {', '.join(rule_names())} (default paper-a)")
    p.add_argument("--rule-file", metavar="FILE", help="TOML file with extra label rules")
    p.add_argument("--out", "-o", help="output CSV (default: standard output)")
    add_gpu_file(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ridgeline.datasets import read_csv  # lazy: pandas is slow to import
    from ridgeline.profiles import label_table

    rule = get_rule(args.rule, args.rule_file)
    gpu = load_catalog(args.gpu_file).get(args.gpu) if args.gpu else None
    df = read_csv(args.profiles)
    res = label_table(df, rule, gpu, where=args.profiles)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        res.table.to_csv(args.out, index=False)
    else:
        res.table.to_csv(sys.stdout, index=False)
    counts = res.table["label"].value_counts().to_dict()
    summary = ", ".join(f"{k or 'unlabelled'}: {v}" for k, v in counts.items())
    print(f"{len(res.table)} rows ({res.schema} schema), rule {rule.name}: {summary}",
          file=sys.stderr)
    if res.n_unlabelled:
        bad = res.table[res.table["label"] == ""]
        unlabelled = (res.table["label"] == "").to_numpy().nonzero()[0]
        for pos in unlabelled[:10]:
            note = res.table["label_note"].iloc[pos]
            print(f"  row {pos + 2} (line in the file) has no label: {note}", file=sys.stderr)
        if len(bad) > 10:
            print(f"  ... and {len(bad) - 10} more (see the label_note column)", file=sys.stderr)
    return 0
