"""Rebuild src/ridgeline/models/hecbench-counted.csv (derived numbers only) from the counting
results (benchmarks/results/counting_*.jsonl) matched to the shipped feature table's rows, and
hecbench-count-runs.csv (every program run, counted or the cause of its failure). Runs in
benchmarks/results/threadwork_*.jsonl (the same command's results, kept apart) only add the
per-thread work fields to the launches the counting results hold.

    python benchmarks/predict_counted_table.py [RESULTS.jsonl ...]
    python benchmarks/predict_counted_table.py --defaults runs/counting_defaults.jsonl

``--defaults FILE``: the table from that one results file alone (benchmarks/counting_defaults.py,
the counts a user gets with the defaults), without the thread-work files; the rows covered per
dataset are printed beside those of the table it replaces.

Refit the shipped model afterwards with `ridgeline train --from-table` (no source analysis)
so the counted columns are used."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import pandas as pd

from ridgeline.learning.counted import (
    COUNTED_FILE,
    RUNS_FILE,
    attach_counted,
    build_count_runs,
    build_counted_table,
)
from ridgeline.learning.counted_columns import has_counts
from ridgeline.learning.shipped import TABLE_FILE


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent
    defaults = argv[:1] == ["--defaults"]
    if defaults and len(argv) != 2:
        raise SystemExit("--defaults takes one results file (benchmarks/counting_defaults.py)")
    results = [Path(a) for a in argv[defaults:]] or sorted(
        (root / "results").glob("counting_*.jsonl"))
    models = Path(str(resources.files("ridgeline").joinpath("models")))
    rows = pd.read_parquet(models / TABLE_FILE)
    rows["exe_args"] = rows["exe_args"].fillna("")
    before = rows[has_counts(attach_counted(rows))].groupby("dataset").size()
    thread_work = [] if defaults else sorted((root / "results").glob("threadwork_*.jsonl"))
    table = build_counted_table(results, rows, thread_work)
    table.to_csv(models / COUNTED_FILE, index=False, float_format="%.6g")
    runs = build_count_runs(results)
    runs.to_csv(models / RUNS_FILE, index=False)
    has = has_counts(attach_counted(rows, table))
    n = rows[has].groupby("dataset").size()
    print(f"{len(table)} (row key, GPU) entries, {len(runs)} program runs "
          f"({int((runs['outcome'] != 'counted').sum())} failed) from {len(results)} result "
          "files; "
          f"rows covered per dataset: {n.to_dict()} of {rows.groupby('dataset').size().to_dict()}"
          f" (the table replaced: {before.to_dict()})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
