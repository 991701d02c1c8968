"""Counting with the defaults a user gets: coverage, fidelity and cost on the shared rows.

Every (program, arguments) of the shared data (datasets hecbench and paper-a, CUDA and
OpenMP rows) is counted as ``predict-batch --count auto`` counts a program the shipped table
does not hold: one :func:`run_program_counts` call with the kernels its rows name, the three
GPUs, the default time limit and the program's own build; then :func:`record_for` per row.
Nothing differs per program. A fresh count cache (``--cache``, through $RIDGELINE_CACHE) keeps
entries made with other settings out. Development programs run first, sealed ones last
(:mod:`ridgeline.datasets.sealed`); the run prints no outcome of a sealed program.

Run (resumable: programs already in --out are skipped; ``--rerun-cause C`` runs again the
development programs whose latest record failed with cause C, after a general fix;
``--rerun-unwaited`` those whose run waits for no kernel name, after a change there):
  nice -n 10 python benchmarks/counting_defaults.py run --out runs/counting_defaults.jsonl
Report (dev and sealed side by side, CUDA / OpenMP / both):
  python benchmarks/counting_defaults.py report --out runs/counting_defaults.jsonl \
      --summary benchmarks/results/counting_defaults.summary.json

Needs a fresh export of the HeCBench sources (``--src``; scripts/export-snapshot.sh) and
$RIDGELINE_DATA.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.datasets import load
from ridgeline.datasets.sealed import is_sealed
from ridgeline.errors import RidgelineError
from ridgeline.hardware import get_gpu
from ridgeline.learning.count_wait import expected_kernels
from ridgeline.limits import COUNT_TIMEOUT_S

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "external" / "gpuFLOPBench" / "src"
DATASETS = ("hecbench", "paper-a")
MODELS = ("cuda", "omp")
#: the GPUs of the shared rows, as the batch names them
GPUS = sorted(get_gpu(g).name for g in ("3080", "A10", "A100"))


def shared_rows() -> pd.DataFrame:
    """The CUDA and OpenMP rows of the shared datasets, with the columns the runs need."""
    parts = []
    for ds in DATASETS:
        df = load(ds)
        df = df[df["model_type"].isin(MODELS)]
        parts.append(pd.DataFrame({
            "dataset": ds, "row": df.index.astype(int), "source": df["source"].astype(str),
            "exe_args": df["exe_args"].fillna("").astype(str).str.strip(),
            "kernel": df["kernel"].astype(str), "model_type": df["model_type"].astype(str),
            "grid_size": df["grid"].astype(str), "block_size": df["block"].astype(str),
            "gpu": [get_gpu(str(g)).name for g in df["gpu"]],
            "flops_gt": (df["flops_sp"] + df["flops_dp"]).to_numpy(float),
            "int_gt": df["int_ops"].to_numpy(float),
            "dram_gt": df["dram_bytes"].to_numpy(float)}))
    return pd.concat(parts, ignore_index=True)


def jobs(rows: pd.DataFrame) -> list[tuple[str, str]]:
    """(program, arguments) in run order: development programs first, then sealed."""
    keys = sorted(set(zip(rows["source"], rows["exe_args"], strict=True)))
    return sorted(keys, key=lambda k: (is_sealed(k[0]), k))


def latest_records(path: Path, key: Callable[[dict[str, Any]], Any]
                   ) -> dict[Any, dict[str, Any]]:
    """The latest record of each *key* in the JSON-lines file *path* (a rerun's replaces)."""
    out: dict[Any, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out[key(r)] = r
    return out


def read_results(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The latest record of each (program, arguments) in *path* (a rerun's replaces)."""
    return latest_records(path, lambda r: (r["source"], r["args"]))


def fresh_cache(out: Path, cache: Path, keep: bool) -> None:
    """Counting runs cache into *cache* (``RIDGELINE_CACHE``), emptied when the results file
    *out* is new unless *keep*; *out*'s folder made."""
    if not out.exists() and cache.exists() and not keep:
        shutil.rmtree(cache)  # a new results file starts from an empty cache
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["RIDGELINE_CACHE"] = str(cache.resolve())
    out.parent.mkdir(parents=True, exist_ok=True)


_FILE_ARG = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,4}$")


def absent_inputs(program_dir: Path, args: str, detail: str) -> list[str]:
    """Arguments of a failed run that name an input the export lacks: a path that is absent
    or left as a git-lfs pointer, and either in a folder the export lacks or named in the
    failure's text (an absent name the program writes, such as ``denoised.png``, is not an
    input)."""
    out = []
    for a in args.split():
        if not _FILE_ARG.search(a) or a.startswith("-") or re.fullmatch(r"[\d.eE+-]+", a):
            continue
        p = program_dir / a
        lfs = p.is_file() and p.stat().st_size < 512 and \
            p.read_bytes().startswith(b"version https://git-lfs")
        if (lfs or not p.exists()) and (not p.parent.is_dir() or lfs or Path(a).name in detail):
            out.append(a)
    return out


def miss_cause(program_dir: Path, args: str, cause: str, detail: str) -> tuple[str, str]:
    """(cause, note) of a failed run: ``missing-input`` when its arguments name an input the
    export lacks (:func:`absent_inputs`), else the run's own cause."""
    gone = absent_inputs(program_dir, args, detail) if program_dir.is_dir() else []
    if not gone:
        return cause, ""
    return "missing-input", f"arguments name files the export lacks: {' '.join(gone)}; "


def recheck(results: dict[tuple[str, str], dict[str, Any]], src_root: Path
            ) -> dict[tuple[str, str], dict[str, Any]]:
    """*results* with each failure's cause taken again by :func:`miss_cause` (the rule as it
    is now, on the run's own cause and error text)."""
    for (src, args), r in results.items():
        if r["outcome"] == "failed" and r.get("cause") != "missing-source":
            own = r.get("run_cause") or r["cause"]
            r["cause"] = miss_cause(src_root / src, args, own, r["error"]["detail"])[0]
    return results


def count_one(src: str, args: str, rows: pd.DataFrame, src_root: Path,
              timeout: float) -> dict[str, Any]:
    """One program run as the batch makes it, and each of its rows' outcome."""
    from ridgeline.learning.count_cache import run_program_counts
    from ridgeline.learning.matching import record_for
    from ridgeline.predictors.batch_predict import first_error_line

    rec: dict[str, Any] = {"source": src, "args": args, "sealed": is_sealed(src)}
    t0 = time.monotonic()
    recs: list[dict[str, Any]] = []
    program_dir = src_root / src
    try:
        if not program_dir.is_dir():
            raise _Miss("missing-source", f"{src}: no such folder in the export")
        recs, _ = run_program_counts(program_dir, args, list(rows["kernel"]), GPUS, timeout,
                                     run=True, build=None)
        rec["outcome"] = "ran"
    except (RidgelineError, _Miss) as e:
        cause = getattr(e, "cause", None) or type(e).__name__
        detail = str(getattr(e, "detail", "") or e)
        why, note = miss_cause(program_dir, args, cause, detail)
        rec.update(outcome="failed", cause=why, run_cause=cause,
                   error_line=note + first_error_line(detail))
        # as the counted table's builder reads a failed run
        rec["error"] = {"cause": why, "detail": detail[:600]}
    rec["seconds"] = round(time.monotonic() - t0, 2)
    rec["rows"] = [_row_outcome(r, recs, record_for) for r in rows.to_dict("records")]
    rec["launches"] = recs
    return rec


class _Miss(Exception):
    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(detail)
        self.cause, self.detail = cause, detail


def _row_outcome(r: dict[str, Any], recs: list[dict[str, Any]], record_for: Any
                 ) -> dict[str, Any]:
    out: dict[str, Any] = {"dataset": r["dataset"], "row": r["row"]}
    launch = record_for(recs, r["kernel"], r["model_type"], r["grid_size"], r["block_size"]) \
        if recs else None
    if launch is None:
        out["status"] = "no-launch" if recs else "failed"
        return out
    by_gpu = launch.get("dram_bytes_by_gpu") or {}
    out.update(status="counted", flops_sp=launch.get("flops_sp") or 0.0,
               flops_dp=launch.get("flops_dp") or 0.0, flops_hp=launch.get("flops_hp") or 0.0,
               int_ops=launch.get("int_ops") or 0.0,
               omp_worksharing=launch.get("omp_worksharing"),
               dram_bytes=by_gpu.get(r["gpu"], launch.get("dram_bytes")),
               counted_kernel=launch.get("kernel"))
    return out


def _waits_for_none(program_dir: Path, rows: pd.DataFrame, key: tuple[str, str]) -> bool:
    names = sorted({re.sub(r"^__omp_offloading_[0-9a-f]+_[0-9a-f]+_", "", k) for k in
                    rows[(rows["source"] == key[0]) & (rows["exe_args"] == key[1])]["kernel"]})
    return program_dir.is_dir() and not expected_kernels(program_dir, names)


def run(a: argparse.Namespace) -> None:
    out, cache = Path(a.out), Path(a.cache)
    fresh_cache(out, cache, a.keep_cache)
    rows = shared_rows()
    done = read_results(out)
    todo = [k for k in jobs(rows) if k not in done and (
        a.slice == "all" or is_sealed(k[0]) == (a.slice == "sealed"))]
    if a.rerun_cause or a.rerun_unwaited:
        todo = [k for k, r in done.items() if not r["sealed"] and (
            (a.rerun_cause and r.get("cause") == a.rerun_cause)
            or (a.rerun_unwaited and _waits_for_none(Path(a.src) / k[0], rows, k)))]
        for f in (cache / "counts").glob("*.failed.json"):
            f.unlink()  # a cached failure would answer the rerun
    print(f"{len(todo)} programs to run ({len(done)} recorded); timeout {a.timeout:g} s",
          flush=True)
    groups = rows.groupby(["source", "exe_args"])
    for i, (src, args) in enumerate(todo):
        rec = count_one(src, args, groups.get_group((src, args)), Path(a.src), a.timeout)
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        said = "sealed (not shown)" if rec["sealed"] else (
            f"{sum(x['status'] == 'counted' for x in rec['rows'])}/{len(rec['rows'])} rows"
            if rec["outcome"] == "ran" else f"{rec['cause']}: {rec['error_line'][:120]}")
        print(f"[{i + 1}/{len(todo)}] {src}: {said} ({rec['seconds']} s)", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("phase", choices=["run", "report"])
    p.add_argument("--out", default=str(ROOT / "runs" / "counting_defaults.jsonl"),
                   help="results, one JSON line per program run")
    p.add_argument("--src", default=str(SRC), help="the HeCBench export's src folder")
    p.add_argument("--cache", default=str(ROOT / "runs" / "count-cache-defaults"),
                   help="count cache of these runs (emptied when --out is new)")
    p.add_argument("--keep-cache", action="store_true", help="do not empty --cache")
    p.add_argument("--timeout", type=float, default=COUNT_TIMEOUT_S,
                   help=f"time limit of a run (the default: {COUNT_TIMEOUT_S:g} s)")
    p.add_argument("--slice", choices=["all", "development", "sealed"], default="all",
                   help="run only these programs (all: development ones first)")
    p.add_argument("--rerun-cause", help="run again the development programs whose latest "
                                         "record failed with this cause")
    p.add_argument("--rerun-unwaited", action="store_true",
                   help="run again the development programs whose run waits for no kernel "
                        "name (ridgeline.learning.count_wait), after a change there")
    p.add_argument("--summary", help="report: write the summary JSON here")
    p.add_argument("--dev-only", action="store_true",
                   help="report: development programs only (while developing)")
    a = p.parse_args()
    if a.phase == "run":
        run(a)
    else:
        from counting_defaults_report import report
        report(a, shared_rows(), recheck(read_results(Path(a.out)), Path(a.src)))


if __name__ == "__main__":
    main()
