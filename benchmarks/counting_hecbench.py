"""Coverage, accuracy and cost of execution counting on HeCBench (kernel-performance.csv).

The results files were made program by program with settings the defaults do not have
(longer limits, definitions, reruns, hand-made inputs); their run phase is gone (see the
history). Counting with the defaults a user gets: benchmarks/counting_defaults.py.
Report phase (figures printed and written to --summary):
  python benchmarks/counting_hecbench.py report --model omp \
      --out benchmarks/results/counting_omp.jsonl [MORE.jsonl ...]
Kernel-code phase (stored CUDA results get what the compiled kernels say: code bytes, and
no local traffic where the SASS has none; files rewritten):
  python benchmarks/counting_hecbench.py kernel-code --model cuda \
      --out benchmarks/results/counting_*_cuda.jsonl

Needs the HeCBench sources in external/gpuFLOPBench/src and $RIDGELINE_DATA.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline.analysis.srcscan import TEMPLATE_FRAGMENT
from ridgeline.counting.omp import omp_device_int_ops
from ridgeline.datasets import load
from ridgeline.hardware import Counts, get_gpu, get_rule
from ridgeline.learning.counted import DEFAULT_BUILD, merge_launches, run_record
from ridgeline.learning.matching import (
    REGION_TAIL_MATCHES,
    by_instance,
    by_size_rank,
    launched_threads,
    match_kernel,
    shape_key,
)

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "external" / "gpuFLOPBench" / "src"
GPUS = {"3080": "rtx3080", "A10": "a10", "A100": "a100"}


def ground_truth(model: str, dataset: str = "hecbench") -> pd.DataFrame:
    df = load(dataset)
    return df[df["model_type"] == model]


_OMP_PREFIX = re.compile(r"^__omp_offloading_[0-9a-f]+_[0-9a-f]+_")
_LINE = re.compile(r"^(.*)_l(\d+)$")


def _omp_pairs(gt_kernels: list[str], ours: list[str],
               region_lines: frozenset[int] | set[int] = frozenset()) -> dict[str, str]:
    """Map profiled OpenMP region names to ours: same mangled tail and line; else same tail
    (or the same once unsigned parameter types read as signed) and the nearest line within 8,
    or within 16 when no other region is within twice that distance (the profiled sources
    differ by a few lines at places); else, when both sides have the same number of regions,
    pairing in line order. *region_lines*: the lines of the target regions in our sources;
    where another profiled name matched exactly (the two builds' lines agree), a profiled
    name at one of them is that region, not reached here, and takes no neighbour."""
    out: dict[str, str] = {}
    norm = {g: _OMP_PREFIX.sub("", g) for g in gt_kernels}
    for g, n in norm.items():
        exact = [o for o in ours if o.endswith(n)]
        if exact:
            out[g] = exact[0]
    # a region another profiled name pairs with exactly is not a near match (multimaterial:
    # the profiled l199 region was not reached here, and l212 is its own row's); nor is one
    # for a name whose own region is in our sources (sort-omp: l146 crashed, l130 ran)
    taken = set(out.values())
    unreached = {g for g in norm if g not in out and out and _line_of(g) in region_lines}
    for g, n in norm.items():
        if g in out or g in unreached:
            continue
        m = _LINE.match(n)
        if not m:
            continue
        for same in REGION_TAIL_MATCHES:
            cands = []
            for o in ours:
                mo = _LINE.match(o)
                if o in taken:
                    continue
                if mo and same(mo.group(1), m.group(1)):
                    cands.append((abs(int(mo.group(2)) - int(m.group(2))), o))
            cands.sort()
            # nearest within 8 lines; up to 16 when no other region is within twice that
            if cands and (cands[0][0] <= 8 or cands[0][0] <= 16 and (
                    len(cands) == 1 or cands[1][0] >= 2 * cands[0][0])):
                out[g] = cands[0][1]
                break
    rest_g = sorted((g for g in gt_kernels if g not in out and g not in unreached),
                    key=_line_of)
    rest_o = sorted((o for o in ours if o not in out.values()), key=_line_of)
    if rest_g and len(rest_g) == len(rest_o):
        out.update(zip(rest_g, rest_o, strict=True))
    return out


def _untemplated(mangled: str) -> str:
    """An Itanium-mangled region name without the template-argument lists of its function
    name: ``_Z5scaleIfEvPT_i_l41`` and ``_Z5scaleIdEvPT_i_l41`` read alike (a name that is
    not mangled comes back unchanged)."""
    i = mangled.find("_Z")
    if i < 0:
        return mangled
    out, i, n = [mangled[:i + 2]], i + 2, len(mangled)
    nested = i < n and mangled[i] == "N"
    if nested:
        out.append("N")
        i += 1
    while i < n and mangled[i].isdigit():
        j = i
        while j < n and mangled[j].isdigit():
            j += 1
        end = j + int(mangled[i:j])
        out.append(mangled[i:end])
        i = end
        if i < n and mangled[i] == "I":  # template arguments, up to the matching E
            depth, i = 1, i + 1
            while i < n and depth:
                c = mangled[i]
                if c == "L":  # a literal (Li16E): up to its E
                    i = mangled.find("E", i) + 1 or n
                    continue
                if c.isdigit():  # a source name: skip its characters
                    j = i
                    while j < n and mangled[j].isdigit():
                        j += 1
                    i = j + int(mangled[i:j])
                    continue
                depth += 1 if c in "INX" else -1 if c == "E" else 0
                i += 1
        if not nested:
            break
    return "".join(out) + mangled[i:]


def _line_of(name: str) -> int:
    m = _LINE.match(name)
    return int(m.group(2)) if m else 0


def _match(model: str, gt_kernel: str, launches: list[dict], gt_all: list[str],
           shapes: frozenset[str] | set[str] = frozenset(), src: str = "") -> list[dict]:
    """Launch records of a profiled kernel of program *src*; a template-fragment name
    (``int>``) takes the launches of every kernel whose sizes are among the profiled rows'
    *shapes*, another name the kernel it was renamed from (srcscan.renamed_kernel)."""
    if model == "omp":
        ours = sorted({r["kernel"] for r in launches})
        target = _omp_pairs(gt_all, ours, _region_lines(src)).get(gt_kernel)
        if target is None:
            return []
        # the region's other template instantiations (same line, same name once template
        # arguments are dropped) are candidates too when they compute in another precision
        # (float / double / none): _assign pairs rows with them by their SP and DP FLOPs;
        # instantiations alike in that respect cannot be told apart, the paired one serves
        # (or, when the profiled rows were launched with several sizes, another size: _assign
        # pairs rows and instantiations by the rank of their sizes, see by_size_rank)
        several = len({launched_threads(*k.split("|")) for k in shapes}) > 1

        def kind(kernel: str) -> tuple[bool, bool, float]:
            first = next(r for r in launches if r["kernel"] == kernel)
            size = launched_threads(first.get("grid"), first.get("block")) if several else 0
            return bool(first.get("flops_sp")), bool(first.get("flops_dp")), size or 0.0
        twins = {kind(target): target}
        for o in ours:
            if _untemplated(o) == _untemplated(target):
                twins.setdefault(kind(o), o)
        return [r for r in launches if r["kernel"] in twins.values()]
    # the name itself, or the kernel it was renamed from (the predictor's rule), unless that
    # kernel is profiled under its own name too
    k = match_kernel(gt_kernel, [r["kernel"] for r in launches], model)
    if k is not None:
        return [r for r in launches if r["kernel"] == k] if k == gt_kernel or \
            k not in gt_all else []
    if not TEMPLATE_FRAGMENT.match(gt_kernel):
        return []
    # every kernel launched with those sizes: each row then takes a variant launched with
    # its own grid and block (_assign), as the predictor's counted table picks a launch
    return [r for r in launches if shape_key(r.get("grid"), r.get("block")) in shapes]


_TARGET_REGION = re.compile(
    r"^\s*#\s*pragma\s+omp\s+target\b(?!\s+(?:data|update|enter|exit)\b)")


def _source_texts(src: str, suffixes: tuple[str, ...], deep: bool = False) -> Iterator[str]:
    """The text of each file of a program's export with one of *suffixes* (its top folder,
    or every folder when *deep*); nothing when the program was not exported."""
    d = SRC / src
    for p in sorted(d.rglob("*") if deep else d.iterdir()) if d.is_dir() else ():
        if p.suffix in suffixes and p.is_file():
            yield p.read_text(errors="replace")


@functools.cache
def _region_lines(src: str) -> frozenset[int]:
    """Lines of the OpenMP target regions in a program's exported sources (any file)."""
    return frozenset(i for text in _source_texts(src, (".cpp", ".c", ".h", ".hpp", ".cc"))
                     for i, ln in enumerate(text.split("\n"), 1) if _TARGET_REGION.match(ln))


def _spmd_source(src: str) -> bool:
    """For results recorded before the runtime flagged it: the program splits work by
    omp_get_team_num/omp_get_thread_num somewhere (regions then run as one thread here)."""
    return any(re.search(r"omp_get_(team|thread)_num", text)
               for text in _source_texts(src, (".cpp", ".c", ".h", ".hpp")))


def _absent_from_sources(src: str, kern: str) -> bool:
    """A CUDA kernel named by a plain identifier that no source file of the program's export
    mentions: the profiled version had it (damage-cuda's damage_of_node_optimized) or a
    library did (thrust's transform_kernel)."""
    if not re.fullmatch(r"[A-Za-z_]\w*", kern) or not (SRC / src).is_dir():
        return False
    word = re.compile(rf"\b{re.escape(kern)}\b")
    return not any(word.search(text) for text in _source_texts(
        src, (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".inc"), deep=True))


def _mean(xs: list[dict]) -> dict:
    out = {k: sum(x.get(k) or 0 for x in xs) / len(xs) for k in
           ("flops_sp", "flops_dp", "flops_hp", "int_ops", "sectors_read", "sectors_written")}
    names = set().union(*(x["dram_bytes_by_gpu"] for x in xs))
    out["dram"] = {n: sum(x["dram_bytes_by_gpu"].get(n, 0) for x in xs) / len(xs)
                   for n in names}
    kinds = set().union(*((x.get("int_detail") or {}) for x in xs))
    out["int_detail"] = {k: sum((x.get("int_detail") or {}).get(k, 0) for x in xs) / len(xs)
                         for k in kinds}
    loops = {x.get("omp_worksharing") for x in xs}
    out["omp_worksharing"] = True if True in loops else (False if loops == {False} else None)
    return out


def _assign(grp: pd.DataFrame, means: dict[tuple[str, int], dict],
            shapes: dict[tuple[str, int], set[str]],
            firsts: dict[tuple[str, int], dict]) -> list[tuple[str, int]]:
    """Template instantiations share a kernel name: pair each profiled row with a counted
    variant launched with the row's grid and block (as the predictor's counted table picks
    launches; one not yet paired first). The k-th of n rows with those sizes takes the k-th
    of the n variants launched with them in mangled-name order when their first launches
    (*firsts*) name their instantiations (``by_instance``, as in the counted table);
    otherwise, among those variants (or all, when none has the sizes), the one whose SP/DP
    FLOPs are closest (greedy; one variant serves all when alone)."""
    free = sorted(means)
    out = []
    row_shapes = [shape_key(gs, bs) for gs, bs in zip(grp["grid_size"], grp["block_size"],
                                                       strict=True)]
    seen: Counter[str] = Counter()
    for (_, g), row_shape in zip(grp.iterrows(), row_shapes, strict=True):
        k, n = seen[row_shape], row_shapes.count(row_shape)
        seen[row_shape] += 1
        # variants with the row's sizes
        same = [v for v in sorted(means) if row_shape in shapes[v]]
        picked = by_instance([firsts[v] for v in same], (k, n)) if len(same) == n > 1 else []
        if len(picked) == 1:
            best = next(v for v in same if firsts[v] is picked[0])
            if best in free:
                free.remove(best)
            out.append(best)
            continue

        def dist(v: tuple[str, int], g: pd.Series = g) -> float:
            mm = means[v]
            return float(abs(np.log10(1 + mm["flops_sp"]) - np.log10(1 + g["SP_FLOP"]))
                         + abs(np.log10(1 + mm["flops_dp"]) - np.log10(1 + g["DP_FLOP"])))

        # unused ones first
        pool = [v for v in same if v in free] or same or free or sorted(means)
        best = min(pool, key=dist)
        if best in free:
            free.remove(best)
        out.append(best)
    return out


def _omp_rank_shapes(grp: pd.DataFrame, by_var: dict[tuple[str, int], list[dict]]
                     ) -> dict[tuple[str, int], set[str]]:
    """The row shapes each OpenMP instantiation stands for on one device: those whose launch
    size ranks where its own does (by_size_rank); none when sizes do not pair one to one."""
    sizes = {v: launched_threads(xs[0].get("grid"), xs[0].get("block")) or 0.0
             for v, xs in by_var.items()}
    shapes = {shape_key(g, b) for g, b in zip(grp["grid_size"], grp["block_size"], strict=True)}
    row_size = {k: launched_threads(*k.split("|")) for k in shapes - {""}}
    row_sizes = [t for t in row_size.values() if t is not None]
    out: dict[tuple[str, int], set[str]] = {v: set() for v in by_var}
    for k, t in row_size.items():
        pick = by_size_rank(sizes, t, row_sizes)
        for v in by_var if pick is not None else ():
            if sizes[v] == sizes[pick]:  # its precision twins too
                out[v].add(k)
    return out


def _launched(g: pd.Series) -> float:
    t = launched_threads(g["grid_size"], g["block_size"])
    return float("nan") if t is None else t


def _row(model: str, src: str, kern: str, g: pd.Series, mean: dict, rule) -> dict:  # noqa: ANN001
    gpu = get_gpu(GPUS.get(str(g["device"]), str(g["device"])))
    gname = gpu.name
    dram = mean["dram"].get(gname, 0.0)
    # OpenMP: the GPU's OpenMP runtime adds integer work per launched thread (row's launch)
    threads = _launched(g)
    ints = mean["int_ops"] + (omp_device_int_ops(threads, mean["omp_worksharing"])
                              if model == "omp" else 0.0)
    row = {"source": src, "kernel": kern, "device": g["device"],
           "flops": mean["flops_sp"] + mean["flops_dp"], "flops_gt": g["SP_FLOP"] + g["DP_FLOP"],
           "flops_dp": mean["flops_dp"], "flops_dp_gt": g["DP_FLOP"],
           **{f"n_{k}": v for k, v in sorted(mean["int_detail"].items())},
           "sectors_read": mean["sectors_read"], "sectors_written": mean["sectors_written"],
           "int": ints, "int_cpu": mean["int_ops"], "int_gt": g["int_ops"], "dram": dram,
           "threads": threads, "omp_loop": mean["omp_worksharing"],
           "dram_gt": g["bytes_total"]}
    ours = Counts(mean["flops_sp"], mean["flops_dp"], 0.0, ints, dram)
    theirs = Counts(g["SP_FLOP"], g["DP_FLOP"], 0.0, g["int_ops"], g["bytes_total"])
    row["class"] = rule.classify(ours, gpu).value
    row["class_gt"] = rule.classify(theirs, gpu).value
    return row


def _within(a: float, b: float, rel: float, floor: float) -> bool:
    return abs(a - b) <= max(rel * abs(b), floor)


def report(args: argparse.Namespace) -> dict:
    gt = ground_truth(args.model)
    own = {s: str(a).strip() for s, a in gt.groupby("source")["exe_args"].first().items()}
    res: dict[str, dict] = {}
    # later files win, except that a failure never hides a success, a run with other
    # arguments (paper-a's) never hides one with the rows' own, and kernels a later run of
    # the same arguments did not reach keep their earlier counts; runs of another GPU build
    # (--gpu-compiler clang, for the paper-A rows) are not the build these rows measured
    for path in args.out:
        for line in Path(path).read_text().splitlines():
            if line:
                r = run_record(json.loads(line))[1]
                if r.get("build", DEFAULT_BUILD) != DEFAULT_BUILD:
                    continue
                prev = res.get(r["source"], {"error": 1})
                if "error" not in prev and (prev.get("args") or "").strip() == \
                        own.get(r["source"]) != (r.get("args") or "").strip():
                    continue
                if "error" not in r and "error" not in prev and \
                        (prev.get("args") or "").strip() == (r.get("args") or "").strip():
                    # a rerun stopped early keeps the kernels only the earlier run reached
                    r = {**r, "launches": merge_launches(prev["launches"], r["launches"])}
                if "error" not in r or "error" in prev:
                    res[r["source"]] = r
    pairs = gt.groupby(["source", "kernel"]).size().index.tolist()
    ran = [p for p in pairs if p[0] in res]
    causes: Counter[str] = Counter()
    counted = 0
    rows = []
    rule = get_rule("paper-a")
    missed: list[dict[str, str]] = []
    for src, kern in ran:
        r = res[src]
        if "error" in r:
            causes[r["error"]["cause"]] += 1
            missed.append({"source": src, "kernel": kern, "cause": r["error"]["cause"],
                           "detail": str(r["error"].get("detail", ""))[:300]})
            continue
        gt_all = sorted(set(gt[gt["source"] == src]["kernel"]))
        sel = gt[(gt["source"] == src) & (gt["kernel"] == kern)]
        shapes = {shape_key(g, b) for g, b in zip(sel["grid_size"], sel["block_size"],
                                                  strict=True)} - {""}
        m = _match(args.model, kern, r["launches"], gt_all, shapes, src)
        if not m:
            # a run that failed after counting other kernels: its failure's cause
            cause = str(r["stopped"]).partition(":")[0] if r.get("stopped") else \
                "kernel-not-in-sources" if args.model == "cuda" and _absent_from_sources(
                    src, kern) else "kernel-not-launched"
            causes[cause] += 1
            launched = sorted({str(x["kernel"]) for x in r["launches"]})
            missed.append({"source": src, "kernel": kern, "cause": cause,
                           "detail": (f"{r['stopped']}; " if r.get("stopped") else "")
                           + "launched: " + " ".join(launched)[:300]})
            continue
        if all(x.get("spmd_partial", False) for x in m) or (
                "spmd_partial" not in m[0] and _spmd_source(src)):
            causes["teams-split-by-id (host runs one thread)"] += 1
            missed.append({"source": src, "kernel": kern,
                           "cause": "teams-split-by-id (host runs one thread)", "detail": ""})
            continue
        counted += 1
        by_var: dict[tuple[str, int], list[dict]] = {}
        for x in m:
            by_var.setdefault((x["kernel"], int(x.get("variant", 0))), []).append(x)
        if args.launch == "first":
            by_var = {v: xs[:1] for v, xs in by_var.items()}
        means = {v: _mean(xs) for v, xs in by_var.items()}
        # (an OpenMP region's recorded sizes are the host emulation's, not the GPU's launch:
        # its instantiations pair with rows by the rank of their sizes)
        var_shapes = {v: {shape_key(x.get("grid"), x.get("block")) for x in xs}
                      if args.model == "cuda" else set() for v, xs in by_var.items()}
        firsts = {v: xs[0] for v, xs in by_var.items()}
        for _dev, grp in sel.groupby("device"):
            if args.model == "omp":
                var_shapes = _omp_rank_shapes(grp, by_var)
            for (_, g), var in zip(grp.iterrows(), _assign(grp, means, var_shapes, firsts),
                                   strict=True):
                rows.append(_row(args.model, src, kern, g, means[var], rule))
    df = pd.DataFrame(rows)
    secs = pd.Series([r["seconds"] for r in res.values()])
    summary = {
        "model": args.model, "programs_run": len(res), "pairs_profiled": len(pairs),
        "pairs_attempted": len(ran), "pairs_counted": counted,
        "coverage_of_attempted": counted / max(1, len(ran)),
        "coverage_of_exported": counted / max(1, len(ran) - causes.get("not-found", 0)),
        "misses_by_cause": dict(causes.most_common()),
        "seconds_median": float(secs.median()) if len(secs) else None,
        "seconds_p95": float(secs.quantile(0.95)) if len(secs) else None,
    }
    if len(df):
        fl_ok = [_within(a, b, 0.05, 1e3) for a, b in zip(df.flops, df.flops_gt, strict=True)]
        dr = df[df.dram_gt > 0]
        dr_ok = [(max(a, 1.0) / b <= 2 and b / max(a, 1.0) <= 2) for a, b in
                 zip(dr.dram, dr.dram_gt, strict=True)]
        it = df[df.int_gt > 0]
        cl = df.dropna(subset=["class", "class_gt"]) if "class" in df else df.iloc[:0]
        right = cl["class"] == cl["class_gt"]
        c3080 = cl["device"].astype(str) == "3080"
        summary.update({
            "rows_compared": len(df),
            "flops_within_5pct": sum(fl_ok) / len(df),
            "dram_within_2x": sum(dr_ok) / max(1, len(dr)),
            "int_ops_median_ratio": float((it["int"] / it["int_gt"]).median()),
            "int_ops_within_2x": float(((it["int"] / it["int_gt"]).between(0.5, 2)).mean()),
            "paper_a_class_accuracy_3080": float(right[c3080].mean()) if c3080.any() else None,
            "paper_a_rows": int(c3080.sum()),
            "paper_a_class_accuracy_by_gpu": {str(d): float(v) for d, v in
                                              right.groupby(cl["device"].astype(str)).mean().items()},
        })
        if args.rows:
            df.to_csv(args.rows, index=False)
    if args.misses:
        pd.DataFrame(missed, columns=["source", "kernel", "cause", "detail"]).to_csv(
            args.misses, index=False)
    print(json.dumps(summary, indent=2))
    if args.summary:
        Path(args.summary).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def kernel_code(args: argparse.Namespace) -> None:
    """Bring stored CUDA results to the DRAM figures count-run gives now: nvcc compiles each
    program's sources (with the definitions its run used); launch records get their
    kernel's machine-code bytes added, and lose the modelled local traffic where the
    compiled kernel has no local memory. Files are rewritten in place; records done before
    (``gpu_local_memory`` present) are left as they are."""
    from ridgeline.counting.codebytes import apply_kernel_code_to_record, program_functions

    sizes: dict[tuple[str, tuple[str, ...] | None], dict] = {}
    for path in map(Path, args.out):
        lines = path.read_text().splitlines()
        recs = [json.loads(x) for x in lines if x.strip()]
        todo = [r for r in recs if r.get("launches") and any(
            "gpu_local_memory" not in x and x.get("backend") == "cuda"
            for x in r["launches"])]
        print(f"{path.name}: {len(todo)} of {len(recs)} runs to update", flush=True)
        for i, r in enumerate(todo):
            defs = r.get("defines")
            key = (r["source"], None if defs is None else tuple(defs))
            if key not in sizes:
                t0 = time.monotonic()
                sizes[key], problems = program_functions(SRC / r["source"], defs)
                for pr in problems:
                    print(f"  {r['source']}: {pr}", flush=True)
                print(f"  [{i + 1}/{len(todo)}] {r['source']}: {len(sizes[key])} functions "
                      f"({time.monotonic() - t0:.1f} s)", flush=True)
            r["launches"] = [apply_kernel_code_to_record(x, sizes[key])
                             for x in r["launches"]]
        if todo:
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in recs))
            tmp.replace(path)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("phase", choices=["report", "kernel-code"],
                   help="report stored results against the measured rows, or add the "
                        "kernels' machine-code bytes to stored CUDA results that lack them")
    p.add_argument("--model", choices=["omp", "cuda"], required=True)
    p.add_argument("--out", required=True, nargs="+",
                   help="JSON lines, one per program (several files, later ones win "
                        "unless their run failed where an earlier one succeeded)")
    p.add_argument("--summary", help="write the summary JSON here")
    p.add_argument("--rows", help="write per-row comparison CSV here")
    p.add_argument("--misses", help="write the profiled (source, kernel) pairs not counted, "
                                    "with their cause and the kernels the run did launch, "
                                    "as CSV here")
    p.add_argument("--launch", choices=["mean", "first"], default="first",
                   help="compare the first counted launch of each kernel variant (what the "
                        "predictor's counted table takes; a row whose kernel changes its work "
                        "per launch, such as mixbench's iteration count, is its first launch), "
                        "or the mean of the counted launches")
    a = p.parse_args()
    {"report": report, "kernel-code": kernel_code}[a.phase](a)


if __name__ == "__main__":
    main()
