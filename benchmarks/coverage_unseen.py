"""Coverage with the defaults on programs never run before: HeCBench folders without profiled
rows and suites outside HeCBench.

Each program is counted as a user counts a program of their own: ``ridgeline kernels`` (the
source front ends, :func:`ridgeline.sources.load_program`) lists its kernels, and one
:func:`ridgeline.counting.count_run` call runs it as ``predict-batch --count auto`` does
(:func:`ridgeline.learning.count_cache.run_program_counts`: one counted launch per kernel,
waiting for the listed kernels, the shared rows' three GPUs, the default time limit, the
program's own build files) with the arguments ``count-run`` takes when none are given (the
Makefile's run target, else the folder's run script). Nothing differs per program. A fresh
count cache (``--cache``, through $RIDGELINE_CACHE) keeps other runs' entries out.

Definition. The *requested* kernels of a program are every kernel the front end finds in its
folder (CUDA ``__global__`` functions, OpenMP target regions as ``<function>_l<line>``). A
program is *covered* when at least one requested kernel is counted, every requested kernel
the run launched has a usable counted launch
(:func:`~ridgeline.learning.matching.record_for`), and its run ends without failure (it
exits, or is stopped on purpose once every requested kernel has a counted launch) or fails
only after every requested kernel was counted (reported apart as
``stopped-after-counting``). Requested kernels the run never launches
(other code paths, other arguments) are reported apart. Anything else is a miss with one
cause: the run's own (``compile``, ``crash``, ``timeout``, ``memory``, ``missing-input``,
``no-launch``, ...), ``link`` or ``unsupported-library`` when a failed build's first error
or an unsupported run names a library, ``no-gpu-code-found`` when the counting path finds no
kernel in a folder where the front end finds some, ``no-run-command`` when the program found
no arguments (no run target, no run script) and its run failed or launched nothing, ``usage``
when a run with the arguments found fails printing its usage,
``partial-count`` when a launched kernel has no usable count, or ``stopped:<cause>`` when the
run failed after counting some launches.
A failed run whose arguments name a path the export lacks (a path with a folder in it) and
whose error says a file could not be opened or read is ``missing-input`` too.
A folder where the front end finds no kernel is still run: if the run counts launches, it is
a miss (``front-end``); if the build finds no GPU code or the run launches nothing, it is not
a GPU program in its default build and is listed apart, outside the share.

Programs. HeCBench: every ``*-cuda`` and ``*-omp`` folder of the export (``--src``) whose
name no shared dataset's ``source`` column holds. Outside suites: every folder under
``--suites`` (one suite per subfolder) that holds a file with ``__global__`` or ``#pragma omp
target``, taken at the nearest folder at or above it with a Makefile (else itself), below the
suite's top folder. Programs run in the order of a salted hash of their names
(:func:`rank`); ``--fraction F`` keeps those whose rank is below F, so every prefix of a run,
and every fraction, is the same deterministic sample.

Export the sources first (git-ignored, never committed):
  scripts/export-snapshot.sh /work/.mirror/Scientific-Computing-Lab+gpuFLOPBench/repo src \
      external/gpuFLOPBench
  scripts/export-snapshot.sh /work/.mirror/yuhc+gpu-rodinia/repo cuda external/suites/rodinia
  (likewise rodinia openmp and common; PolyBench-ACC CUDA, OpenMP and common; Parboil
  benchmarks, common and datasets; SHOC src, data and config; each into
  external/suites/<suite>). Rodinia's data: that snapshot has none, so ``data`` comes from
  github:Munksgaard/rodinia (the copy the OpenCL suites benchmark uses), with its git-annex
  links (text files naming ``.git/annex/objects``, whose content no snapshot has) removed.
Run (resumable; programs already in --out are skipped):
  nice -n 10 python benchmarks/coverage_unseen.py run --out runs/coverage_unseen.jsonl
Report:
  python benchmarks/coverage_unseen.py report --out runs/coverage_unseen.jsonl \\
      --summary benchmarks/results/coverage_unseen.summary.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from counting_defaults import GPUS, ROOT, SRC, fresh_cache, latest_records, miss_cause

from ridgeline.errors import RidgelineError
from ridgeline.limits import COUNT_TIMEOUT_S

SUITES = ROOT / "external" / "suites"
#: the salt of the sample order; fixed before any program was run
SAMPLE_SALT = "ridgeline-unseen-v1-2026-11-28"
#: datasets whose ``source`` column names the profiled HeCBench folders
PROFILED = ("hecbench", "paper-a", "rtx3080-profiling", "ncu-imix", "sass-imix")
#: what marks a file as holding GPU code, by extension (CUDA kernels in CUDA files, OpenMP
#: target regions in C and C++ files; OpenCL's ``__global`` is another language)
_KERNEL_TEXT = {ext: re.compile(rb"\b__global__\b") for ext in (".cu", ".cuh")} | {
    ext: re.compile(rb"#\s*pragma\s+omp\s+target\b")
    for ext in (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp")}
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
#: a failed run's words for an input it could not read
_READ_FAILED = re.compile(r"(could not|cannot|can't|unable to|failed to) (be )?(open|read|find)"
                          r"|no such file|not found", re.I)
_LINK = re.compile(r"undefined reference|undefined symbol|\bld(\.lld)?:|linker command failed")
_LIBRARY = re.compile(r"\b(cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvrtc|nvjpeg|npp|"
                      r"thrust|cub|mpi|hipblas|oneapi|mkl|tbb|opencv|boost)\w*", re.I)


def rank(key: str) -> float:
    """Where *key* (``suite/folder``) falls in the sample order, in [0, 1): the first eight
    hex digits of ``sha256(SAMPLE_SALT + ":" + key)`` over 2^32."""
    return int(hashlib.sha256(f"{SAMPLE_SALT}:{key}".encode()).hexdigest()[:8], 16) / 2**32


def profiled_sources() -> set[str]:
    """Folder names the shared datasets hold rows of (their ``source`` column only)."""
    from ridgeline.datasets import load

    return {str(s) for ds in PROFILED for s in load(ds)["source"].unique()}


def hecbench_programs(src: Path) -> list[tuple[str, Path]]:
    seen = profiled_sources()
    return [(f"hecbench/{d.name}", d) for d in sorted(src.iterdir())
            if d.is_dir() and d.name.endswith(("-cuda", "-omp")) and d.name not in seen]


def suite_programs(root: Path) -> list[tuple[str, Path]]:
    """The program folders of each suite under *root* (see the module's docstring)."""
    out: dict[str, Path] = {}
    for suite in sorted(p for p in root.iterdir() if p.is_dir()):
        for f in sorted(suite.rglob("*")):
            marker = _KERNEL_TEXT.get(f.suffix.lower())
            if marker is None or not f.is_file() or f.stat().st_size > 4 << 20 or \
                    not marker.search(f.read_bytes()):
                continue
            d = f.parent
            while d != suite and not any((d / m).is_file() for m in _MAKEFILES):
                d = d.parent
            d = f.parent if d == suite else d
            out.setdefault(f"{suite.name}/{d.relative_to(suite)}", d)
    return sorted(out.items())


def all_programs(src: Path, suites: Path) -> list[tuple[str, Path]]:
    """Every program of the benchmark, in sample order."""
    progs = hecbench_programs(src) + (suite_programs(suites) if suites.is_dir() else [])
    return sorted(progs, key=lambda kv: (rank(kv[0]), kv[0]))


def requested_kernels(program_dir: Path) -> tuple[list[str], str, list[str]]:
    """(kernel names the front ends find, their language, the front ends' problems)."""
    from ridgeline.sources import load_program

    prog = load_program([program_dir])
    names = list(dict.fromkeys(k.name for k in prog.kernels))
    langs = sorted({k.language for k in prog.kernels})
    return names, "+".join(langs), [str(p) for p in prog.problems][:5]


def refine(cause: str, detail: str, args_from: str) -> str:
    """A finer cause than the run's own, from its error text and where its arguments came
    from (see the module's docstring)."""
    if cause == "compile":
        if _LINK.search(detail):
            m = _LIBRARY.search(detail)
            return "unsupported-library" if m else "link"
        first = next((ln for ln in detail.splitlines() if "error" in ln.lower()), "")
        if re.search(r"fatal error: .*(cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|"
                     r"thrust|cub/|mpi\.h|mkl|tbb|opencv|boost)", first, re.I):
            return "unsupported-library"
    if cause == "unsupported" and "no CUDA kernels, OpenMP target regions" in detail:
        return "no-gpu-code-found"
    if cause == "unsupported" and _LIBRARY.search(detail):
        return "unsupported-library"
    if args_from == "none" and cause in ("crash", "no-launch", "missing-input"):
        return "no-run-command"
    if cause in ("crash", "no-launch") and re.search(r"\busage\b", detail[:300], re.I):
        return "usage"
    return cause


def args_found(program_dir: Path) -> tuple[list[str], str]:
    """The arguments ``count-run`` runs *program_dir* with when given none, and where they
    come from (``makefile``, ``run-script`` or ``none``)."""
    from ridgeline.counting.program import makefile_run_command, run_script_args

    mk = makefile_run_command(program_dir)
    if mk is not None:
        return mk, "makefile"
    script = run_script_args(program_dir)
    return (script, "run-script") if script is not None else ([], "none")


def count_one(key: str, program_dir: Path, timeout: float) -> dict[str, Any]:
    """One program counted as the batch counts it, and each requested kernel's outcome."""
    rec: dict[str, Any] = {"program": key, "suite": key.split("/", 1)[0],
                           "rank": round(rank(key), 6)}
    t0 = time.monotonic()
    argv, rec["args_from"] = args_found(program_dir)
    rec["args"] = " ".join(argv)
    recs: list[dict[str, Any]] = []
    stopped = None
    try:
        names, rec["language"], rec["front_end_problems"] = requested_kernels(program_dir)
        rec["kernels"] = names
        recs, stopped = _run(program_dir, names, timeout)
    except Exception as e:  # noqa: BLE001 - one program's failure never stops the batch
        cause = getattr(e, "cause", None) or (
            type(e).__name__ if isinstance(e, RidgelineError) else f"internal-{type(e).__name__}")
        detail = str(getattr(e, "detail", "") or e)
        rec["failure"] = {"run_cause": cause, "detail": detail[:2000]}
    rec.setdefault("kernels", [])
    rec.setdefault("language", "")
    rec["seconds"] = round(time.monotonic() - t0, 2)
    rec["records"], rec["stopped"] = recs[:200], stopped
    classify(rec, program_dir)
    judge(rec)
    return rec


#: failures of a run (not of its build), which an absent input can explain
_RUN_CAUSES = ("crash", "no-launch", "missing-input", "timeout", "memory")


def classify(rec: dict[str, Any], program_dir: Path) -> None:
    """The cause and first error line of a failed program (module docstring): a run that
    failed for want of an input the export lacks is ``missing-input``, whatever it died of
    (:func:`counting_defaults.miss_cause`, or its error saying a file could not be read
    while its arguments name a path the export lacks); then :func:`refine`."""
    f = rec.get("failure")
    if not f:
        return
    cause, detail = f["run_cause"], f["detail"]
    why, note = cause, ""
    if cause in _RUN_CAUSES:
        why, note = miss_cause(program_dir, rec["args"], cause, detail)
        if why == cause != "missing-input" and _READ_FAILED.search(detail):
            gone = [a for a in rec["args"].split()
                    if "/" in a and not (program_dir / a).exists()]
            if gone:
                why, note = "missing-input", ("arguments name files the export lacks: "
                                              f"{' '.join(gone)}; ")
    f["cause"] = refine(why, detail, rec["args_from"])
    f["error_line"] = note + _first_error(detail)


def _run(program_dir: Path, names: list[str], timeout: float
         ) -> tuple[list[dict[str, Any]], str | None]:
    """The counted launches of one run with ``run_program_counts``'s settings, and how the
    run stopped when it failed after counting some (None: it ended as it should)."""
    from ridgeline.counting import count_run
    from ridgeline.learning.count_wait import expected_kernels

    res = count_run(program_dir, None, kernel=None, launches=1, gpu=list(GPUS),
                    timeout=timeout, expect=expected_kernels(program_dir, names))
    return [r.to_dict() for r in res], getattr(res, "stopped", None)


def _first_error(detail: str) -> str:
    """The first error line, a link's first missing symbol rather than the linker's summary."""
    from ridgeline.predictors.batch_predict import first_error_line

    m = re.search(r"undefined (reference to|symbol:?) .*$", detail, re.M)
    return first_error_line(m.group(0) if m else detail)


def judge(rec: dict[str, Any]) -> None:
    """Each requested kernel's status and the program's outcome, cause and first error line
    (module docstring), from the record's run (``failure``, ``records``, ``stopped``)."""
    from ridgeline.counting._exec import expect_matches
    from ridgeline.learning.matching import record_for
    from ridgeline.sources.regionname import region_short_name, same_region

    recs, stopped, failure = rec["records"], rec["stopped"], rec.get("failure")
    # OpenMP regions under the name every command gives them (copy_l105, not
    # _ZN9OMPStreamIdE4copyEv_l105), as the front end lists them
    named = [{**r, "kernel": region_short_name(str(r["kernel"]))}
             if r.get("backend") == "omp" else r for r in recs]
    status = {}
    for k in rec["kernels"]:
        model = "omp" if re.search(r"_l\d+$", k) and "omp" in rec["language"] else "cuda"
        if recs and (record_for(named, k, model) or record_for(recs, k, model)):
            status[k] = "counted"
        elif any(expect_matches(str(r.get("kernel", "")), k) or
                 same_region(str(r.get("kernel", "")), k) for r in recs):
            status[k] = "launched-uncounted"
        else:
            status[k] = "failed" if failure or stopped else "not-launched"
    rec["status"] = status
    rec["launches"] = len(recs)
    rec["launched_kernels"] = sorted({str(r.get("kernel")) for r in recs})
    rec.update(outcome="miss", cause="", error_line="")
    if failure:
        gpu_free = not rec["kernels"] and failure["run_cause"] in ("unsupported", "no-launch")
        rec.update(outcome="no-kernels" if gpu_free else "miss", cause=failure["cause"],
                   error_line=failure["error_line"])
    elif not rec["kernels"]:
        rec.update(outcome="miss" if recs else "no-kernels",
                   cause="front-end" if recs else "no-launch",
                   error_line=f"the front end found no kernel; the run counted {len(recs)} "
                              "launch(es)")
    elif stopped and set(status.values()) == {"counted"}:
        # it failed after its last requested kernel (a check of results the sampled
        # launches left partial, a later crash): nothing it was asked for is lost
        rec.update(outcome="covered", cause="stopped-after-counting", error_line=stopped)
    elif stopped:
        rec.update(cause="stopped:" + stopped.split(":", 1)[0], error_line=stopped)
    elif "launched-uncounted" in status.values():
        rec.update(cause="partial-count", error_line="no usable count of " + ", ".join(
            k for k, s in status.items() if s == "launched-uncounted"))
    elif "counted" not in status.values():
        rec.update(cause="no-run-command" if rec["args_from"] == "none" else "no-launch",
                   error_line="the run ended without launching a requested kernel "
                              f"({len(recs)} other launch(es))")
    else:
        rec["outcome"] = "covered"


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """The latest record of each program in *path* (a rerun's replaces)."""
    return latest_records(path, lambda r: r["program"])


def run(a: argparse.Namespace) -> None:
    out = Path(a.out)
    fresh_cache(out, Path(a.cache), a.keep_cache)
    done = read_results(out)
    progs = [(k, d) for k, d in all_programs(Path(a.src), Path(a.suites))
             if rank(k) < a.fraction and (not a.only or re.search(a.only, k))]
    # a program whose default arguments changed since its record (a counting-path rule)
    # runs again
    todo = [(k, d) for k, d in progs if k not in done or (
        a.rerun_changed_args and done[k]["args"] != " ".join(args_found(d)[0]))]
    todo = todo[:a.limit or None]
    print(f"{len(progs)} programs at fraction {a.fraction:g}, {len(todo)} to run "
          f"({len(done)} recorded); timeout {a.timeout:g} s", flush=True)
    tally: dict[str, int] = {}
    for i, (key, d) in enumerate(todo):
        rec = count_one(key, d, a.timeout)
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        tally[rec["outcome"]] = tally.get(rec["outcome"], 0) + 1
        said = rec["outcome"] if rec["outcome"] == "covered" else \
            f"{rec['outcome']} {rec.get('cause', '')}: {rec.get('error_line', '')[:110]}"
        n = sum(s == "counted" for s in rec["status"].values())
        print(f"[{i + 1}/{len(todo)} rank {rec['rank']:.3f}] {key}: {n}/{len(rec['kernels'])} "
              f"kernels, {said} ({rec['seconds']} s) | {tally}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("phase", choices=["run", "report", "list"])
    p.add_argument("--out", default=str(ROOT / "runs" / "coverage_unseen.jsonl"),
                   help="results, one JSON line per program")
    p.add_argument("--src", default=str(SRC), help="the HeCBench export's src folder")
    p.add_argument("--suites", default=str(SUITES), help="folder of the outside suites")
    p.add_argument("--cache", default=str(ROOT / "runs" / "count-cache-unseen"),
                   help="count cache of these runs (emptied when --out is new)")
    p.add_argument("--keep-cache", action="store_true", help="do not empty --cache")
    p.add_argument("--timeout", type=float, default=COUNT_TIMEOUT_S,
                   help=f"time limit of a run (the default: {COUNT_TIMEOUT_S:g} s)")
    p.add_argument("--fraction", type=float, default=1.0,
                   help="run the programs whose sample rank is below this (1: all)")
    p.add_argument("--only", help="run only programs whose key matches this regex (testing)")
    p.add_argument("--limit", type=int, help="run at most this many programs now")
    p.add_argument("--rerun-changed-args", action="store_true",
                   help="run again the recorded programs whose default arguments differ now")
    p.add_argument("--summary", help="report: write the summary JSON here")
    p.add_argument("--any-order", action="store_true",
                   help="report: every recorded program, not only the sample order's prefix")
    a = p.parse_args()
    if a.phase == "run":
        run(a)
    elif a.phase == "list":
        for k, _ in all_programs(Path(a.src), Path(a.suites)):
            print(f"{rank(k):.4f} {k}")
    else:
        from coverage_unseen_report import report

        programs = all_programs(Path(a.src), Path(a.suites))
        results = read_results(Path(a.out))
        for k, d in programs:
            if k in results:
                classify(results[k], d)
        report(results, [k for k, _ in programs], a.summary, a.any_order)


if __name__ == "__main__":
    sys.exit(main())
