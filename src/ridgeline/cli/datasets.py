"""``ridgeline datasets``: the named ground-truth datasets and whether they are present."""

from __future__ import annotations

import argparse

from ridgeline.cli._common import add_data_dir, print_json, print_table
from ridgeline.errors import RidgelineError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "datasets",
        help="list the ground-truth datasets",
        description="List the named datasets, their files and row counts in the data folder.",
        epilog="examples:\n  ridgeline datasets --data-dir ../shared/data\n"
        "  RIDGELINE_DATA=../shared/data ridgeline datasets --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_dir(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ridgeline.datasets import DATASETS, data_dir, load  # lazy: pandas is slow to import

    root = data_dir(args.data_dir)
    rows = []
    for name in DATASETS:
        ds = DATASETS.get(name)
        try:
            df = load(name, root)
            n, progs, status = len(df), df["program"].nunique(), "ok"
        except RidgelineError as e:
            n, progs, status = 0, 0, str(e)
        rows.append({"name": name, "file": ds.file, "rows": n, "programs": progs,
                     "status": status, "description": ds.description})
    if args.json:
        print_json(rows)
    else:
        print(f"data folder: {root}")
        print_table(["name", "file", "rows", "programs", "status"],
                    [[r["name"], r["file"], r["rows"], r["programs"], r["status"]] for r in rows])
    return 0
