"""Rebuild src/ridgeline/models/hecbench-counted.csv (derived numbers only) and
hecbench-count-runs.csv (every program run, counted or the cause of its failure) from the
results of one defaults-only counting run (benchmarks/counting_defaults.py: the counts a user
gets with ``predict-batch --count auto``), matched to the shipped feature table's rows. Rows
the run did not count stay uncounted: the predictor learns their counts from the source.

    python benchmarks/predict_counted_table.py --defaults runs/counting_defaults.jsonl

The rows covered per dataset are printed beside those of the table it replaces. Refit the
shipped model afterwards with `ridgeline train --from-table` (no source analysis) so the
counted columns are used."""

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

USAGE = ("usage: python benchmarks/predict_counted_table.py --defaults RESULTS.jsonl (the "
         "results file of benchmarks/counting_defaults.py run)")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--defaults":
        raise SystemExit(f"{USAGE}; got {' '.join(argv) or 'no arguments'}")
    results = Path(argv[1])
    if not results.is_file():
        raise SystemExit(f"predict_counted_table: results file {str(results)!r} does not "
                         f"exist; {USAGE}")
    models = Path(str(resources.files("ridgeline").joinpath("models")))
    rows = pd.read_parquet(models / TABLE_FILE)
    rows["exe_args"] = rows["exe_args"].fillna("")
    before = rows[has_counts(attach_counted(rows))].groupby("dataset").size()
    table = build_counted_table([results], rows)
    table.to_csv(models / COUNTED_FILE, index=False, float_format="%.6g")
    runs = build_count_runs([results])
    runs.to_csv(models / RUNS_FILE, index=False)
    has = has_counts(attach_counted(rows, table))
    n = rows[has].groupby("dataset").size()
    print(f"{len(table)} (row key, GPU) entries, {len(runs)} program runs "
          f"({int((runs['outcome'] != 'counted').sum())} failed) from {results}; "
          f"rows covered per dataset: {n.to_dict()} of {rows.groupby('dataset').size().to_dict()}"
          f" (the table replaced: {before.to_dict()})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
