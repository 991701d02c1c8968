"""Figures of a coverage run on programs never run before (benchmarks/coverage_unseen.py report).

Per suite and language (HeCBench CUDA, HeCBench OpenMP, each outside suite), for the outside
suites together and overall: programs run, programs with requested kernels (the share's
denominator), programs covered and their share, requested kernels counted of those found
(launched without a usable count, never launched by a covered run, lost to a failed run),
misses by cause with examples, GPU-free folders apart, seconds per program (median, 95th
percentile). Each record is judged again by the definition as it is now
(:func:`coverage_unseen.judge`), so a change of definition needs no rerun.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ridgeline import __version__
from ridgeline.datasets.sealed import is_sealed

#: the coverage target of the defaults-only counting work
TARGET = 0.95
_EXAMPLES = 3


def group_of(rec: dict[str, Any]) -> str:
    """``suite-language`` of a record (``hecbench-cuda``, ``rodinia-omp``)."""
    lang = rec.get("language") or ""
    if not lang:
        name = rec["program"]
        lang = "omp" if name.endswith("-omp") or "/openmp/" in name else "cuda"
    return f"{rec['suite']}-{'omp' if 'omp' in lang else 'cuda'}"


def figures(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one group of program records."""
    gpu = [r for r in recs if r["outcome"] != "no-kernels"]
    covered = [r for r in gpu if r["outcome"] == "covered"]
    status = Counter(s for r in gpu for s in r["status"].values())
    misses: dict[str, dict[str, Any]] = {}
    for r in gpu:
        if r["outcome"] == "miss":
            m = misses.setdefault(r["cause"], {"programs": 0, "examples": []})
            m["programs"] += 1
            if len(m["examples"]) < _EXAMPLES:
                m["examples"].append(f"{r['program']}: {r['error_line'][:200]}")
    secs = np.array([r["seconds"] for r in recs], float)
    found = sum(status.values())
    return {
        "programs_run": len(recs), "programs_with_kernels": len(gpu),
        "covered": len(covered), "covered_share": _share(len(covered), len(gpu)),
        "covered_run_failed_after": sum(r["cause"] == "stopped-after-counting"
                                        for r in covered),
        "kernels_found": found, "kernels_counted": status["counted"],
        "kernels_counted_share": _share(status["counted"], found),
        "kernels_launched_uncounted": status["launched-uncounted"],
        "kernels_not_launched": status["not-launched"],
        "kernels_in_failed_runs": status["failed"],
        "misses_by_cause": dict(sorted(misses.items(), key=lambda kv: -kv[1]["programs"])),
        "no_gpu_kernels": sorted(r["program"] for r in recs if r["outcome"] == "no-kernels"),
        "seconds_median": _round(np.median(secs)) if len(secs) else None,
        "seconds_p95": _round(np.percentile(secs, 95)) if len(secs) else None,
    }


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _round(x: Any) -> float:
    return round(float(x), 1)


def sample_reached(results: dict[str, dict[str, Any]], order: list[str]) -> dict[str, Any]:
    """How far along the sample order the run got: the programs run form the prefix up to
    the first not run, whose rank is the fraction of the sample."""
    from coverage_unseen import rank

    prefix = 0
    while prefix < len(order) and order[prefix] in results:
        prefix += 1
    frac = rank(order[prefix]) if prefix < len(order) else 1.0
    return {"programs_in_benchmark": len(order), "programs_run": len(results),
            "prefix_run": prefix, "fraction": round(frac, 4),
            "rule": "programs whose rank sha256(SAMPLE_SALT:key)[:8]/2^32 is below the "
                    "fraction, key = suite/folder"}


def report(results: dict[str, dict[str, Any]], order: list[str], summary: str | None,
           any_order: bool = False) -> None:
    from coverage_unseen import SAMPLE_SALT, judge

    for r in results.values():
        judge(r)
    sample = sample_reached(results, order)
    # only the order's prefix is the salted-hash sample; later programs run out of order
    # (with --only) stay out of the figures
    inside = results if any_order else {k: results[k] for k in order[:sample["prefix_run"]]}
    by_group: dict[str, list[dict[str, Any]]] = {}
    for r in inside.values():
        by_group.setdefault(group_of(r), []).append(r)
    hec = [r for r in inside.values() if r["suite"] == "hecbench"]
    out = {
        "benchmark": "coverage on programs never run before, with the defaults",
        "target_covered_share": TARGET, "sample": {**sample, "salt": SAMPLE_SALT},
        "groups": {g: figures(rs) for g, rs in sorted(by_group.items())},
        "outside_suites": figures([r for r in inside.values() if r["suite"] != "hecbench"]),
        "hecbench": figures(hec),
        "hecbench_by_slice": {
            "development": figures([r for r in hec if not is_sealed(_name(r))]),
            "sealed": figures([r for r in hec if is_sealed(_name(r))])},
        "overall": figures(list(inside.values())),
        "provenance": _provenance(),
    }
    for r in out["hecbench_by_slice"].values():
        r.pop("misses_by_cause")
        r.pop("no_gpu_kernels")
    _print(out)
    print(markdown(out))
    if summary:
        Path(summary).write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {summary}")


def _name(rec: dict[str, Any]) -> str:
    return rec["program"].split("/", 1)[1]


def _provenance() -> dict[str, Any]:
    from coverage_unseen import GPUS, ROOT

    from ridgeline.limits import COUNT_TIMEOUT_S

    try:
        git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        git = ""
    return {"version": __version__, "git": git, "gpus": list(GPUS),
            "timeout_s": COUNT_TIMEOUT_S, "dataset": "HeCBench export (gpuFLOPBench src) "
            "folders without rows; Rodinia, PolyBench-ACC, Parboil, SHOC snapshots"}


def _print(out: dict[str, Any]) -> None:
    s = out["sample"]
    print(f"sample: {s['prefix_run']} of {s['programs_in_benchmark']} programs in rank "
          f"order (fraction {s['fraction']:.3f})")
    print(f"{'group':22} {'run':>4} {'gpu':>4} {'cov':>4} {'share':>6} {'kern':>9} "
          f"{'med s':>6} {'p95 s':>6}  misses")
    rows = {**out["groups"], "outside suites": out["outside_suites"],
            "overall": out["overall"]}
    for g, f in rows.items():
        share = "-" if f["covered_share"] is None else f"{f['covered_share']:.0%}"
        causes = ", ".join(f"{c} {m['programs']}" for c, m in f["misses_by_cause"].items())
        print(f"{g:22} {f['programs_run']:>4} {f['programs_with_kernels']:>4} "
              f"{f['covered']:>4} {share:>6} {f['kernels_counted']:>4}/{f['kernels_found']:<4} "
              f"{f['seconds_median'] or 0:>6} {f['seconds_p95'] or 0:>6}  {causes}")


def markdown(out: dict[str, Any]) -> str:
    """The figures as the Markdown table and cause list of docs/RESULTS.md."""
    lines = ["| suite | programs run | with kernels | covered (run failed after) | kernels "
             "counted / found (not launched) | s/program median / p95 |",
             "|---|---|---|---|---|---|"]
    rows = {**out["groups"], "outside suites": out["outside_suites"],
            "overall": out["overall"]}
    for g, f in rows.items():
        share = "-" if f["covered_share"] is None else f"{f['covered_share']:.1%}"
        lines.append(f"| {g} | {f['programs_run']} | {f['programs_with_kernels']} | "
                     f"{f['covered']} = {share} ({f['covered_run_failed_after']}) | "
                     f"{f['kernels_counted']}/{f['kernels_found']} "
                     f"({f['kernels_not_launched']}) | {f['seconds_median']} / "
                     f"{f['seconds_p95']} |")
    lines.append("")
    for g, f in rows.items():
        causes = ", ".join(f"{c} {m['programs']}" for c, m in f["misses_by_cause"].items())
        lines.append(f"- {g}: {causes or 'none'}")
    return "\n".join(lines)
