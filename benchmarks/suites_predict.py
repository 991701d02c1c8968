"""LLMPerf's public-suite test on our device: the suite kernels timed by
``benchmarks/suites_pocl.py`` predicted by a time regressor trained only on CLgen kernels
timed with ``ridgeline datagen`` on the same device, scored per suite beside LLMPerf's 46.1%.

Kernel time only: each row's measured time is the launch's device START..END; the run's
host-device transfers are timed apart (OUT's ``transfers``) and not in the target, as the
datagen rows the model learned from (kernel time, no transfers).

Each row is one distinct launch configuration of one kernel as the model sees it (same
text, build options, global/local sizes and argument sizes; launches that differ only in
scalar values, e.g. a solver's step, are one row whose time is the median of theirs), given
to ``ridgeline regress-batch`` exactly as a user would: ``src`` is the program text the host
passed to clCreateProgramWithSource, ``kernel`` the launched kernel's name,
``build_options`` the clBuildProgram options string, ``dataset`` the global size (product of
the dimensions), ``wgsize`` the local size (product; a launch without one takes PoCL's rule
approximated as the largest power-of-two divisor per dimension up to 4096 work-items),
``transfer`` twice the bytes of the buffers passed (datagen's definition). Relative ``-I``
folders of the options are the host's working folder's, where the runtime resolved them. A
launch of 0 work-items (its input was empty) is no kernel run: counted, not a row.

Figures: per row (configuration) and kernel-grouped (each kernel once: its median APE over
its configurations, and the median of its predicted/measured ratios for within 2x).

    python benchmarks/suites_predict.py --runs runs/suites --model runs/pocl-model \\
        --model runs/pocl-counted [--json benchmarks/results/suites_pocl.json]

Each ``--model`` is scored on the same rows (a GBM or LLM folder, a counted-model folder, or
``counted``: the bound at the measured PoCL peaks alone). The counted model counts each
row's middle launch in issue order at its recorded arguments (``global_dims``,
``local_dims``, ``args`` columns): a row whose launches differ in scalar values (a solver's
step) is predicted at its middle step, against the median of its launches' times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from ridgeline.evaluation.provenance import provenance
from ridgeline.opencl.trace import read_trace

LLMPERF_SUITES_MAPE = 0.461
POCL_MAX_WG = 4096


def _prod(v: list[int]) -> int:
    out = 1
    for x in v:
        out *= int(x)
    return out


def default_local(glob: list[int]) -> int:
    """PoCL's choice for a launch without a local size (approximated; see the doc)."""
    total = 1
    for g in glob:
        d = 1
        while g % (d * 2) == 0 and total * d * 2 <= POCL_MAX_WG:
            d *= 2
        total *= d
    return total


def absolute_includes(options: str, folder: Path) -> str:
    """*options* with each relative -I folder made absolute from *folder*."""
    words = shlex.split(options)
    out = []
    for i, w in enumerate(words):
        if w.startswith("-I") and len(w) > 2 and not os.path.isabs(w[2:]):
            w = "-I" + str((folder / w[2:]).resolve())
        elif i > 0 and words[i - 1] == "-I" and not os.path.isabs(w):
            w = str((folder / w).resolve())
        out.append(shlex.quote(w))
    return " ".join(out)


def programs(runs: Path) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for line in (runs / "programs.jsonl").read_text().splitlines():
        r = json.loads(line)
        out[(r["suite"], r["program"])] = r
    return out


def launch_rows(runs: Path, progs: dict[tuple[str, str], dict[str, Any]]
                ) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """Distinct launch configurations of every traced program, the per-suite transfer
    and kernel totals, and the kernels whose every launch had 0 work-items."""
    groups: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    recorded: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    meta: dict[tuple[Any, ...], dict[str, Any]] = {}
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    empty: set[tuple[str, str, str]] = set()
    for (suite, prog), rec in progs.items():
        f = runs / suite / f"{prog}.trace.jsonl"
        if rec.get("program") == "*" or not f.exists():
            continue
        t = read_trace(f)
        tot = totals[suite]
        for r in t.transfers:
            if "end" in r:
                tot["transfer_ns"] += r["end"] - r["start"]
                tot["transfer_bytes"] += r["bytes"]
                tot["transfer_calls"] += 1
        for r in t.launches:
            if "end" not in r:
                continue
            if _prod(r["global"]) == 0:
                tot["empty_launches"] += 1
                empty.add((suite, prog, r["kernel"]))
                continue
            tot["kernel_ns"] += r["end"] - r["start"]  # every launch, not per configuration
            tot["launches"] += 1
            src = t.sources.get(r["program"])
            opts = absolute_includes(t.build_options.get(r["program"], ""), runs / rec["folder"])
            args = tuple((a["kind"], a["bytes"]) for a in r["args"])
            key = (suite, prog, r["kernel"], hashlib.sha1((src or "").encode()).hexdigest(),
                   opts, tuple(r["global"]), tuple(r["local"] or ()), args)
            groups[key].append(float(r["end"] - r["start"]))
            recorded[key].append(r)
            if key not in meta:
                buf = sum(a["bytes"] for a in r["args"] if a["kind"] in ("buffer", "image"))
                given = bool(r["local"]) and _prod(r["local"]) > 0
                local = _prod(r["local"]) if given else default_local(r["global"])
                meta[key] = {"suite": suite, "program": prog, "kernel": r["kernel"],
                             "src": src or "", "build_options": opts,
                             "dataset": _prod(r["global"]), "wgsize": local,
                             "local_given": given, "transfer": 2 * buf,
                             "source_missing": src is None}
    rows = []
    for key, times in groups.items():
        mid = recorded[key][(len(recorded[key]) - 1) // 2]  # middle launch in issue order
        rows.append({**meta[key], "launches": len(times),
                     "measured_ms": statistics.median(times) / 1e6,
                     "global_dims": ",".join(map(str, mid["global"])),
                     "local_dims": ",".join(map(str, mid["local"])) if meta[key]["local_given"]
                     else "", "args": json.dumps(mid["args"])})
    seen = {(r["suite"], r["program"], r["kernel"]) for r in rows}
    only_empty = [{"suite": s, "program": p, "kernel": k, "status": "no kernel run",
                   "why": "every launch had 0 work-items (its input in the snapshot is empty)"}
                  for s, p, k in sorted(empty - seen)]
    return rows, {s: dict(v) for s, v in totals.items()}, only_empty


def predict(rows: list[dict[str, Any]], model: str, work: Path) -> list[dict[str, Any]]:
    """Run ``ridgeline regress-batch`` on the rows that have a source (as a user would)."""
    import pandas as pd

    work.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    have = frame[~frame["source_missing"]].reset_index(drop=True)
    inp, out = work / "rows.csv", work / "pred.csv"
    have[["suite", "program", "kernel", "src", "build_options", "wgsize", "transfer", "dataset",
          "launches", "measured_ms", "local_given", "global_dims", "local_dims",
          "args"]].to_csv(inp, index=False)
    cmd = [sys.executable, "-m", "ridgeline", "regress-batch", str(inp), "--model", model,
           "--out", str(out)]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    seconds = time.monotonic() - t0
    pred = pd.read_csv(out, keep_default_na=False, dtype={"error": str})
    done = pred.to_dict("records")
    for r in done:
        r["batch_seconds_per_row"] = seconds / max(1, len(done))
    missing = frame[frame["source_missing"]].to_dict("records")
    for r in missing:
        r.update(pred_runtime_ms="", error="the program was built from a binary: no source "
                 "recorded", counts_note="")
    return done + missing


def _figures(ape: list[float], ratio: list[float]) -> dict[str, Any]:
    if not ape:
        return {"n": 0}
    return {"n": len(ape), "mape": statistics.fmean(ape), "median_ape": statistics.median(ape),
            "within_2x": sum(0.5 <= q <= 2.0 for q in ratio) / len(ratio),
            "median_ratio": statistics.median(ratio),
            "over_2x": sum(q > 2.0 for q in ratio) / len(ratio),
            "under_half": sum(q < 0.5 for q in ratio) / len(ratio)}


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in rows if str(r.get("error", "")) == "" and r["pred_runtime_ms"] != ""]
    row_ape = [abs(float(r["pred_runtime_ms"]) - r["measured_ms"]) / r["measured_ms"]
               for r in ok]
    row_ratio = [float(r["pred_runtime_ms"]) / r["measured_ms"] for r in ok]
    by_kernel: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(ok):
        by_kernel[(r["program"], r["kernel"])].append(i)
    k_ape = [statistics.median(row_ape[i] for i in ix) for ix in by_kernel.values()]
    k_ratio = [statistics.median(row_ratio[i] for i in ix) for ix in by_kernel.values()]
    kernels = {(r["program"], r["kernel"]) for r in rows}
    return {"rows": _figures(row_ape, row_ratio), "kernel_grouped": _figures(k_ape, k_ratio),
            "kernels_launched": len(kernels), "kernels_predicted": len(by_kernel),
            "rows_total": len(rows), "rows_predicted": len(ok)}


def misses(progs: dict[tuple[str, str], dict[str, Any]], rows: list[dict[str, Any]],
           only_empty: list[dict[str, Any]]) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = defaultdict(list)
    for e in only_empty:
        out[e["suite"]].append({k: e[k] for k in ("program", "kernel", "status", "why")})
    for (suite, prog), r in sorted(progs.items()):
        if r.get("status") in ("ran", "cut at the time limit") or str(r.get("status", "")
                                                                     ).startswith("ran ("):
            continue
        why = str(r.get("why", ""))[:240]
        if r.get("status") == "no launch" and r.get("returncode") == 0:
            why = "ran to the end (exit 0) without a kernel launch"
        out[suite].append({"program": prog, "status": r.get("status", ""), "why": why})
    seen = set()
    for r in rows:
        err = str(r.get("error", ""))
        key = (r["suite"], r["program"], r["kernel"])
        if err and key not in seen:
            seen.add(key)
            out[r["suite"]].append({"program": r["program"], "kernel": r["kernel"],
                                    "status": "not predicted", "why": err[:240]})
    return dict(out)


def _model_meta(model: str) -> dict[str, Any]:
    f = Path(model) / "meta.json"
    if not f.exists():
        return {"model": model, "includes": "kernel only",
                "target": "the counted bound at the measured PoCL peaks, no correction"}
    meta = json.loads(f.read_text())
    return {k: meta.get(k) for k in ("model", "device", "includes", "target", "rows", "kernels",
                                     "held_out", "split", "peaks")}


def _label(model: str) -> str:
    meta = _model_meta(model)
    return f"{meta.get('model') or 'gbm'} ({model})"


def score_model(rows: list[dict[str, Any]], progs: dict[tuple[str, str], dict[str, Any]],
                only_empty: list[dict[str, Any]], model: str) -> dict[str, Any]:
    suites = sorted({r["suite"] for r in rows} | {s for s, _ in progs})
    out: dict[str, Any] = {"model": _model_meta(model), "overall": score(rows), "suites": {},
                           "misses": misses(progs, rows, only_empty)}
    per_row = [float(r.get("batch_seconds_per_row", 0) or 0) for r in rows]
    out["seconds_per_row"] = max(per_row) if per_row else None
    counted = [float(r["count_s"]) for r in rows if str(r.get("count_s", "")) not in ("", "nan")]
    if counted:
        out["count_seconds"] = {"median": statistics.median(counted), "max": max(counted),
                                "over_2s": sum(c > 2 for c in counted) / len(counted)}
    for s in suites:
        out["suites"][s] = score([r for r in rows if r["suite"] == s])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default="runs/suites")
    ap.add_argument("--model", required=True, action="append",
                    help="a train-regressor folder or 'counted' (repeatable: each is scored)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    runs = Path(a.runs)
    progs = programs(runs)
    rows, totals, only_empty = launch_rows(runs, progs)
    report: dict[str, Any] = {
        "protocol": "LLMPerf public-suite test on the local device: train on CLgen kernels "
                    "timed by ridgeline datagen only, predict the suites' kernels",
        "device": "PoCL CPU device (pthread)", "includes": "kernel time only (START..END "
        "of each launch); transfers timed apart", "llmperf_suites_mape": LLMPERF_SUITES_MAPE,
        "run_limits": {"wall_s": 120, "cpu_s": "121 (SHOC, PolyBench) and 241 (Rodinia)"},
        "provenance": provenance(dataset=f"suite traces in {runs}", seed=None),
        "suites": {}, "models": {}, "rows": []}
    for s in sorted({r["suite"] for r in rows} | {s for s, _ in progs}):
        srows = [r for r in rows if r["suite"] == s]
        sp = {k: v for k, v in progs.items() if k[0] == s}
        report["suites"][s] = {
            "programs": len(sp), "rows": len(srows),
            "kernels_without_work": sum(1 for e in only_empty if e["suite"] == s),
            "programs_with_launches": sum(1 for v in sp.values() if v.get("timed_launches")),
            "rows_without_local_size": sum(1 for r in srows if not r["local_given"]),
            "time": totals.get(s, {})}
    per_row: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i, model in enumerate(a.model):
        pred = predict(rows, model, runs / f"predict-{i}")
        label = _label(model)
        report["models"][label] = score_model(pred, progs, only_empty, model)
        for r in pred:
            key = (r["suite"], r["program"], r["kernel"], r.get("global_dims"), r.get("args"),
                   r["measured_ms"])
            row = per_row.setdefault(key, {k: r.get(k) for k in (
                "suite", "program", "kernel", "global_dims", "local_dims", "measured_ms",
                "launches")})
            row[f"pred_ms {label}"] = r.get("pred_runtime_ms")
            if r.get("error"):
                row[f"error {label}"] = str(r["error"])[:160]
            for k in ("pred_bound_ms", "pred_transfer_ms", "count_s", "counts_note"):
                if str(r.get(k, "")) not in ("", "nan"):
                    row[k] = r[k] if k != "counts_note" else str(r[k])[:200]
    head = json.dumps({**report, "rows": "ROWS"}, indent=2, default=str)
    print(head.replace('"ROWS"', f"[{len(per_row)} rows]"))
    if a.json:  # one line a row
        rows_text = ",\n".join("    " + json.dumps(r, default=str) for r in per_row.values())
        Path(a.json).write_text(head.replace('"ROWS"', "[\n" + rows_text + "\n  ]") + "\n")


if __name__ == "__main__":
    main()
