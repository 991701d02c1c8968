"""kill -9 of ``predict-batch`` at random points of a real batch, then reruns: rows lost or
written twice.

    python benchmarks/batch_kill.py --programs 30 --trials 10 --seed 0 \
        --out benchmarks/results/batch_kill.json

The batch: the rows of ``$RIDGELINE_DATA/hecbench/kernel-performance.csv`` (launch columns
only) of --programs development programs (the sealed slice is left out before anything is
read) whose folders are in external/gpuFLOPBench/src, drawn with --seed. One uninterrupted run
gives the reference output. Then each trial starts the same command (continuing what the
killed runs left) and kills it with SIGKILL at a time drawn uniformly within the reference
run's duration; after each kill the partial output is checked for rows written twice, and
the next run's "resumed" count is compared with the complete rows the kill left. A last run
finishes the batch: its output must equal the reference byte for byte.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
HECBENCH = ROOT / "external" / "gpuFLOPBench" / "src"
if not HECBENCH.is_dir():
    HECBENCH = ROOT.parent.parent / "main" / "external" / "gpuFLOPBench" / "src"
COLUMNS = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device"]


def batch_rows(programs: int, seed: int) -> pd.DataFrame:
    """Launch columns of the rows of *programs* development programs (sealed ones dropped
    first), in the table's order."""
    from ridgeline.datasets.sealed import is_sealed

    data = Path(os.environ.get("RIDGELINE_DATA", ROOT.parent / "shared" / "data"))
    table = pd.read_csv(data / "hecbench" / "kernel-performance.csv", dtype=str,
                        keep_default_na=False, usecols=COLUMNS)
    table = table[[not is_sealed(s) for s in table["source"]]]
    have = sorted(s for s in set(table["source"]) if (HECBENCH / s).is_dir())
    chosen = set(random.Random(seed).sample(have, min(programs, len(have))))
    return table[table["source"].isin(chosen)].reset_index(drop=True)


def _cmd(rows: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "ridgeline", "predict-batch", str(rows), "--sources",
            str(HECBENCH), "--out", str(out), "--count", "never", "--jobs", "1",
            "--chunk-rows", "8"]


def _complete_rows(partial: Path) -> list[str]:
    """Row numbers on the complete lines of *partial* (its last line may be cut short)."""
    try:
        text = partial.read_text(errors="replace")
    except FileNotFoundError:
        return []
    text = text[:text.rfind("\n") + 1]
    try:
        recs = list(csv.reader(text.splitlines(keepends=True)[1:]))
    except csv.Error:
        return []
    return [r[0] for r in recs if r and r[0].isdigit()]


def _resumed(stderr: str) -> int:
    """Rows a run took over, from the warning it gives when it starts."""
    found = re.search(r"resuming: (\d+) of", stderr)
    return int(found.group(1)) if found else 0


def _whole_program_rows(done: list[str], df: pd.DataFrame) -> int:
    """Rows of *done* whose program has every row there (what a rerun takes over: a program
    the kill cut is predicted again whole)."""
    have = {int(i) for i in done}
    by_source = df.groupby("source").indices
    return sum(len(ix) for ix in by_source.values() if all(int(i) in have for i in ix))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=30)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="write the figures here (JSON)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = Path(tempfile.mkdtemp(prefix="rl-batch-kill-"))
    df = batch_rows(a.programs, a.seed)
    rows = work / "rows.csv"
    df.to_csv(rows, index=False)
    env = {**os.environ, "RIDGELINE_CACHE": str(work / "cache"), "OMP_NUM_THREADS": "1"}
    ref, out = work / "ref.csv", work / "out.csv"
    partial = out.with_name(out.name + ".partial")
    t0 = time.monotonic()
    subprocess.run(_cmd(rows, ref), env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    ref_seconds = time.monotonic() - t0
    print(f"{len(df)} rows of {df['source'].nunique()} programs; uninterrupted run "
          f"{ref_seconds:.1f} s", flush=True)
    trials, left = [], 0
    for k in range(a.trials):
        at = rng.uniform(0.05, 0.95) * ref_seconds
        proc = subprocess.Popen(_cmd(rows, out), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            proc.wait(timeout=at)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.wait()
        resumed = _resumed(err)
        done = _complete_rows(partial)
        finished = proc.returncode == 0
        trial = {"kill_at_s": round(at, 2), "finished_before_kill": finished,
                 "resumed_at_start": resumed, "whole_program_rows_left_by_previous_kill": left,
                 "complete_rows_after": len(done),
                 "written_twice": len(done) - len(set(done))}
        if finished:  # the whole batch was done: compare, and start the next trial afresh
            trial["equals_reference"] = out.read_bytes() == ref.read_bytes()
            out.unlink()
            left = 0
        else:
            left = _whole_program_rows(done, df)
        trials.append(trial)
        print(f"trial {k + 1}: {json.dumps(trial)}", flush=True)
    res = subprocess.run(_cmd(rows, out), env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    final = pd.read_csv(out, dtype=str, keep_default_na=False) if out.exists() else None
    figures = {
        "command": f"python benchmarks/batch_kill.py --programs {a.programs} "
                   f"--trials {a.trials} --seed {a.seed}",
        "rows": len(df), "programs": int(df["source"].nunique()),
        "uninterrupted_seconds": round(ref_seconds, 1),
        "kills": sum(not t["finished_before_kill"] for t in trials),
        "rows_written_twice": sum(t["written_twice"] for t in trials),
        # the rows of whole programs a kill leaves; the next run must take every one over
        # (rows of a program the kill cut are predicted again whole, not lost)
        "rows_left_not_resumed": sum(max(0, t["whole_program_rows_left_by_previous_kill"]
                                         - t["resumed_at_start"]) for t in trials),
        "final_rc": res.returncode,
        "final_resumed": _resumed(res.stderr),
        "final_rows": None if final is None else len(final),
        "final_equals_reference": out.exists() and out.read_bytes() == ref.read_bytes(),
        "partial_left": partial.exists(),
        "trials": trials,
    }
    print(json.dumps({k: v for k, v in figures.items() if k != "trials"}, indent=1))
    if a.out:
        a.out.write_text(json.dumps(figures, indent=1) + "\n")
    ok = (figures["final_equals_reference"] and not figures["rows_written_twice"]
          and not figures["rows_left_not_resumed"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
