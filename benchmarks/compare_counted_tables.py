"""What a change of the counted table does to the counts the HeCBench rows get, against the
measured counts: for the rows whose attached counts differ between an earlier table and the
shipped one (or a second file), the median |log10 error| and the share within 2x before and
after, and how many rows got better or worse, per quantity.

    python benchmarks/compare_counted_tables.py OLD.csv [NEW.csv] [--list-worse]

Make OLD.csv by copying src/ridgeline/models/hecbench-counted.csv before rebuilding it with
benchmarks/predict_counted_table.py (or take it from git: `git show REV:src/ridgeline/models/
hecbench-counted.csv > old.csv`). Development programs' HeCBench rows only: the sealed
programs (:mod:`ridgeline.datasets.sealed`) are never looked at while a change is chosen, and
the paper-a set is left out (the profiled build differs from the Makefiles'). A row counts as
better or worse when its error moved by more than 0.02 decades (5%)."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline.datasets import sealed_mask
from ridgeline.learning.counted import attach_counted, load_counted_table
from ridgeline.learning.shipped import TABLE_FILE

#: measured column of the feature table -> counted column (both log10(1 + x) once compared)
QUANTITIES = {"int_ops": "c_int", "flops_sp": "c_sp", "flops_dp": "c_dp",
              "dram_bytes": "c_dram"}
MOVED = 0.02


def compare(old: pd.DataFrame, new: pd.DataFrame, rows: pd.DataFrame
            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-quantity summary, per-row errors and whether any got worse) over the *rows* whose
    attached counts differ."""
    a, b = attach_counted(rows, old), attach_counted(rows, new)
    cols = list(QUANTITIES.values())
    va, vb = a[cols].to_numpy(float), b[cols].to_numpy(float)
    changed = ~np.isclose(va, vb, equal_nan=True).all(axis=1)
    per_row = rows.loc[changed, ["source", "kernel", "gpu"]].reset_index(drop=True)
    per_row["worse"] = False
    summary = []
    for measured, counted in QUANTITIES.items():
        truth = np.log10(1.0 + rows.loc[changed, measured].to_numpy(float))
        ea = np.abs(a.loc[changed, counted].to_numpy(float) - truth)
        eb = np.abs(b.loc[changed, counted].to_numpy(float) - truth)
        per_row[f"{measured}_err_old"], per_row[f"{measured}_err_new"] = ea, eb
        ok = np.isfinite(ea) & np.isfinite(eb)
        per_row["worse"] |= eb > ea + MOVED
        summary.append({
            "quantity": measured, "rows": int(ok.sum()),
            "median_err_old": float(np.median(ea[ok])) if ok.any() else np.nan,
            "median_err_new": float(np.median(eb[ok])) if ok.any() else np.nan,
            "within_2x_old": float((ea[ok] <= np.log10(2)).mean()) if ok.any() else np.nan,
            "within_2x_new": float((eb[ok] <= np.log10(2)).mean()) if ok.any() else np.nan,
            "better": int((eb[ok] < ea[ok] - MOVED).sum()),
            "worse": int((eb[ok] > ea[ok] + MOVED).sum()),
        })
    return pd.DataFrame(summary), per_row


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", type=Path, help="the earlier counted table (CSV)")
    p.add_argument("new", type=Path, nargs="?", default=None,
                   help="the later one (default: the shipped table)")
    p.add_argument("--list-worse", action="store_true",
                   help="list the rows that got worse in some quantity")
    args = p.parse_args(argv)
    models = Path(str(resources.files("ridgeline").joinpath("models")))
    for f in (args.old, args.new):
        if f is not None and not f.is_file():
            raise SystemExit(f"compare_counted_tables: {f} does not exist")
    old, new = load_counted_table(args.old), load_counted_table(args.new)
    rows = pd.read_parquet(models / TABLE_FILE)
    rows = rows[(rows["dataset"] == "hecbench").to_numpy() & ~sealed_mask(rows)]
    summary, per_row = compare(old, new, rows.reset_index(drop=True))
    print(f"{len(per_row)} HeCBench rows of development programs get other counts")
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.list_worse:
        worse = per_row.pop("worse")
        print(per_row[worse].to_string(index=False, float_format=lambda v: f"{v:.2f}")
              if worse.any() else "no row got worse")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
