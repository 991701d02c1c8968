"""Counted numbers (CPU execution with instrumentation, :mod:`ridgeline.counting`) as
predictor inputs.

Two uses:
- a derived table of counted numbers for HeCBench rows, built from the counting results
  (JSON lines, one per program run) and matched to rows on source, arguments and kernel name;
  it ships in ``ridgeline/models`` (numbers only) and feeds :data:`COUNTED_COLUMNS`;
- ``ridgeline predict --count``: run :func:`ridgeline.counting.count_run` on the program
  (cached on disk, :mod:`ridgeline.learning.count_cache`) and turn its first launch into the
  same feature columns (:mod:`ridgeline.learning.counted_columns`).

Which counted launch a row means is decided in :mod:`ridgeline.learning.matching`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.analysis.srcscan import TEMPLATE_FRAGMENT
from ridgeline.counting.records import upgrade_record
from ridgeline.errors import RidgelineError
from ridgeline.hardware import get_gpu
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, launch_record_features
from ridgeline.learning.matching import as_dim3, launched_threads, pick_launch, shape_key

__all__ = ["COUNTED_FILE", "DATASET_BUILD", "DEFAULT_BUILD", "RUNS_FILE", "THREAD_FIELDS",
           "attach_counted", "build_count_runs", "build_counted_table", "load_count_runs",
           "load_counted_table", "merge_launches", "run_record", "with_thread_work"]

COUNTED_FILE = "hecbench-counted.csv"


#: every (source, exe_args) the counting benchmark ran, with its outcome (``counted``, or the
#: cause of the failure when no run counted a launch): a batch with ``--count auto`` does not
#: run them again (derived from benchmarks/results)
RUNS_FILE = "hecbench-count-runs.csv"


#: GPU build a counting run stood for (a stored run's ``build``; count-run --gpu-compiler)
DEFAULT_BUILD = "nvcc"


#: the build whose counts a dataset's rows take first (others fall back to the default): the
#: RTX 3080 profiling behind the paper-A set measured clang builds through libdevice (the
#: compile_commands.json beside gpuFLOPBench's profiling), whose constant math calls and
#: sqrtf differ from the build kernel-performance.csv measured
DATASET_BUILD = {"paper-a": "clang"}


_KEYS = ["source", "exe_args", "kernel", "gpu"]


#: launch sizes of a row (normalised ``256,1,1``), keyed on where the counted table has them
_SHAPE = ["grid", "block"]


def merge_launches(earlier: list[dict[str, Any]], later: list[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    """Launch records of two runs of one program: a kernel the later run counted takes its
    records from there; kernels only the earlier run reached keep theirs (a rerun stopped by
    its time budget before reaching them loses nothing)."""
    newer = {x["kernel"] for x in later}
    return [x for x in earlier if x["kernel"] not in newer] + list(later)


def _result_records(results: Iterable[Path]) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
    """((source, stripped args), record) of every program run in the JSON-lines *results*,
    launch records brought to the current DRAM model."""
    for path in results:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                yield run_record(json.loads(line))


def run_record(r: dict[str, Any]) -> tuple[tuple[str, str], dict[str, Any]]:
    """((source, stripped args), record) of one stored program run, its launch records
    brought to the current DRAM model (:func:`ridgeline.counting.records.upgrade_record`)."""
    if r.get("launches"):
        r = {**r, "launches": [upgrade_record(x) for x in r["launches"]]}
    return (r["source"], (r.get("args") or "").strip()), r


#: launch record fields a later run adds to the counted records without replacing them
THREAD_FIELDS = ("thread_work_max", "warp_issue_factor")


def _launch_runs(results: Iterable[Path]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """(source, args, build) -> the launch records of its runs, later runs' kernels first."""
    runs: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for key, r in _result_records(results):
        if r.get("launches"):
            bkey = (*key, str(r.get("build") or DEFAULT_BUILD))
            runs[bkey] = merge_launches(runs.get(bkey, []), r["launches"])
    return runs


def with_thread_work(rec: dict[str, Any], launches: list[dict[str, Any]] | None
                     ) -> dict[str, Any]:
    """*rec* with the :data:`THREAD_FIELDS` of the same launch (kernel, instantiation, launch
    sizes; the same launch number where there is one) among *launches*, a later run's, where
    *rec* lacks them. Counts stay those of *rec*."""
    if not launches or rec.get(THREAD_FIELDS[0]) is not None:
        return rec
    inst = rec.get("instance", "")

    def same(x: dict[str, Any]) -> bool:
        named = not inst or x.get("instance", "") == inst
        return (named and x.get("kernel") == rec.get("kernel")
                and x.get("grid") == rec.get("grid") and x.get("block") == rec.get("block")
                and x.get(THREAD_FIELDS[0]) is not None)
    alike = [x for x in launches if same(x)]
    # a record from before runs named the instantiation matches when the later run launched
    # only one instantiation of the kernel at these sizes
    if not alike or len({x.get("instance", "") for x in alike}) > 1:
        return rec
    pick = next((x for x in alike if x.get("launch") == rec.get("launch")), alike[0])
    return {**rec, **{f: pick.get(f) for f in THREAD_FIELDS}}


def build_counted_table(results: Iterable[Path], rows: pd.DataFrame,
                        thread_work: Iterable[Path] = ()) -> pd.DataFrame:
    """Counted feature columns for every (source, exe_args, kernel, gpu) of *rows* that a
    counting result covers. *results* are JSON-lines files with one record per program run
    (``source``, ``args``, ``launches`` or ``error``, and ``build`` when the run counted
    another GPU build than :data:`DEFAULT_BUILD`): one entry per build. *thread_work* are
    results of later runs that only add the per-thread fields (:data:`THREAD_FIELDS`) to
    the launches *results* counted."""
    runs = _launch_runs(results)
    tw_runs = _launch_runs(thread_work)
    builds = sorted({k[2] for k in runs})
    out = []
    uniq = rows[["source", "exe_args", "kernel", "model_type", "gpu"]].astype(str)
    sized = "grid_size" in rows and "block_size" in rows
    uniq["shape"] = [shape_key(g, b) for g, b in zip(rows["grid_size"], rows["block_size"],
                                                     strict=True)] if sized else ""
    uniq["signature"] = _signatures(rows)
    keys = list(uniq.columns)
    # the other kernels profiled by the same build: the rows of one program, GPU and dataset
    # (each GPU's and dataset's profile compiled its own copy of the sources, whose region
    # lines differ by a few)
    uniq["set"] = rows["dataset"].astype(str) if "dataset" in rows else ""
    kernels_of = uniq.groupby(["source", "exe_args", "gpu", "set"])["kernel"].agg(
        lambda k: sorted(set(k)))
    # the launch sizes of the rows of one kernel name there (they tell instantiations apart)
    uniq["threads"] = [launched_threads(*s.split("|")) if s else None for s in uniq["shape"]]
    sizes_of: dict[tuple[Any, ...], list[float]] = {}
    for group, t in uniq.groupby(["source", "exe_args", "gpu", "set", "kernel"])["threads"]:
        sizes_of[tuple(group)] = sorted({float(v) for v in t if v is not None and v == v})
    # rows alike in all of these (one kernel name's instantiations) are told apart by order
    uniq["dup"], uniq["dups"] = _alike_rank(uniq[keys + ["set"]])
    for source, exe_args, kernel, model_type, gpu, shape, sig, set_, k, n in \
            uniq.drop_duplicates(keys + ["dup"])[keys + ["set", "dup", "dups"]].itertuples(
                index=False):
        others = kernels_of[(source, exe_args, gpu, set_)]
        row_sizes = sizes_of[(source, exe_args, gpu, set_, kernel)]
        for build in builds:
            launches = runs.get((str(source), str(exe_args).strip(), build))
            if not launches:
                continue
            g, b = shape.split("|") if shape else (None, None)
            rec = pick_launch(launches, str(kernel), str(model_type), as_dim3(g), as_dim3(b),
                              others=others, row_sizes=row_sizes, dup=(int(k), int(n)),
                              signature=str(sig))
            if rec is None:
                continue
            rec = with_thread_work(rec, tw_runs.get((str(source), str(exe_args).strip(),
                                                     build)))
            out.append({"source": source, "exe_args": exe_args, "kernel": kernel, "gpu": gpu,
                        "grid": g or "", "block": b or "", "dup": int(k),
                        "signature": sig, "build": build,
                        "counted_kernel": rec["kernel"], "backend": rec.get("backend", ""),
                        **launch_record_features(rec, str(gpu))})
    return pd.DataFrame(out, columns=_KEYS + _SHAPE + ["dup", "signature", "build",
                                                      "counted_kernel", "backend"]
                        + COUNTED_COLUMNS)


def build_count_runs(results: Iterable[Path]) -> pd.DataFrame:
    """(source, exe_args, outcome) of every program run in *results*: ``counted`` when some
    run counted a launch, else the last failure's cause."""
    ok: set[tuple[str, str]] = set()
    failed: dict[tuple[str, str], str] = {}
    for key, r in _result_records(results):
        if r.get("launches"):
            ok.add(key)
        elif "error" in r:
            failed[key] = str((r["error"] or {}).get("cause", "unknown"))
    rows = [{"source": s_, "exe_args": a, "outcome": "counted" if (s_, a) in ok else
             failed[(s_, a)]} for s_, a in sorted(ok | set(failed))]
    return pd.DataFrame(rows, columns=["source", "exe_args", "outcome"])


def load_count_runs() -> dict[tuple[str, str], str]:
    """The shipped benchmark runs: (source, stripped exe_args) -> outcome (empty when
    absent)."""
    p = resources.files("ridgeline").joinpath("models", RUNS_FILE)
    try:
        with p.open("r") as fh:
            t = pd.read_csv(fh, dtype=str, keep_default_na=False)
    except (FileNotFoundError, OSError):
        return {}
    return {(str(src), str(args).strip()): str(out) for src, args, out in
            zip(t["source"], t["exe_args"], t["outcome"], strict=True)}


def load_counted_table(path: Path | None = None) -> pd.DataFrame:
    """The shipped counted table, or the one at *path* (an earlier copy, to compare with);
    empty when absent. Arguments stay text (``"10"`` is not the number 10)."""
    p = path or resources.files("ridgeline").joinpath("models", COUNTED_FILE)
    try:
        with p.open("r") as fh:
            return pd.read_csv(fh, dtype={"exe_args": str}, keep_default_na=False,
                               na_values=[""])
    except (FileNotFoundError, OSError):
        return pd.DataFrame(columns=_KEYS + COUNTED_COLUMNS)


def attach_counted(table: pd.DataFrame, counted: pd.DataFrame | None = None) -> pd.DataFrame:
    """*table* with :data:`COUNTED_COLUMNS` filled from *counted* (default: the shipped
    counted table) for rows whose source, exe_args and kernel match, in order of preference:
    the same GPU and launch sizes (``grid_size``/``block_size``, where both sides have them),
    the same GPU with other sizes, then the counted GPU whose L2 is nearest in size to the
    row's (FLOPs and integer ops do not depend on the GPU; DRAM bytes were modelled with that
    L2), with the same sizes first; a template-fragment row (``int>``) only with its own
    sizes. Rows of a dataset in :data:`DATASET_BUILD` take the
    counts of that GPU build where *counted* has them (its ``build`` column), the others and
    the rest the default build's. NaN where nothing matches."""
    if counted is None:
        counted = load_counted_table()
    base = table.drop(columns=[c for c in COUNTED_COLUMNS if c in table]).reset_index(drop=True)
    for name in COUNTED_COLUMNS:
        base[name] = float("nan")
    if len(counted) == 0 or len(base) == 0:
        return base
    left = base[_KEYS].copy()
    left["exe_args"] = left["exe_args"].fillna("")
    left = left.astype(str)
    cnt = counted.copy()
    cnt["exe_args"] = cnt["exe_args"].fillna("").astype(str)
    sized = all(c in cnt for c in _SHAPE) and all(c in base for c in ("grid_size",
                                                                      "block_size"))
    left["shape"] = [shape_key(g, b) for g, b in zip(base["grid_size"], base["block_size"],
                                                     strict=True)] if sized else ""
    cnt["shape"] = [shape_key(g, b) for g, b in zip(cnt["grid"], cnt["block"], strict=True)] \
        if sized else ""
    # the row's instantiation where the profile names it (build_counted_table's signature)
    left["signature"] = _signatures(base)
    cnt["signature"] = (cnt["signature"].fillna("").astype(str) if "signature" in cnt
                        else "")
    # the k-th of rows alike (build_counted_table's ``dup``)
    left["dup"] = _alike_rank(left.assign(
        _set=base["dataset"].astype(str) if "dataset" in base else ""))[0]
    cnt["dup"] = cnt["dup"].fillna(-1).astype(int) if "dup" in cnt else -1
    left["_row"] = np.arange(len(left))
    l2 = {g: _l2_of(g) for g in set(left["gpu"]) | set(cnt["gpu"].astype(str))}
    left["_l2"] = left["gpu"].map(l2)
    cnt["_l2"] = cnt["gpu"].astype(str).map(l2)
    cnt["build"] = (cnt["build"].fillna(DEFAULT_BUILD).astype(str) if "build" in cnt
                    else DEFAULT_BUILD)
    want = (base["dataset"].astype(str).map(DATASET_BUILD).fillna(DEFAULT_BUILD)
            if "dataset" in base else pd.Series(DEFAULT_BUILD, index=base.index))
    todo = left
    for build in dict.fromkeys([*sorted(set(want) - {DEFAULT_BUILD}), DEFAULT_BUILD]):
        rows = todo if build == DEFAULT_BUILD else todo[(want == build).to_numpy()[
            todo["_row"].to_numpy(int)]]
        done = _fill_counted(base, rows, cnt[cnt["build"] == build], sized)
        todo = todo[~todo["_row"].isin(done)]
    return base


def _signatures(rows: pd.DataFrame) -> np.ndarray:
    """Each row's full kernel name (the table's ``kernel_signature``; "" without one)."""
    if "kernel_signature" not in rows:
        return np.full(len(rows), "", dtype=object)
    return rows["kernel_signature"].fillna("").astype(str).to_numpy()


def _alike_rank(keys: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """For each row, its index among the rows equal to it in every column of *keys* (in
    table order), -1 for a row without such others, and how many they are."""
    alike = keys.groupby(list(keys.columns), sort=False)[keys.columns[0]]
    n = alike.transform("size")
    return alike.cumcount().where(n > 1, -1), n


def _fill_counted(base: pd.DataFrame, todo: pd.DataFrame, cnt: pd.DataFrame,
                  sized: bool) -> set[int]:
    """attach_counted's matching tiers for the rows *todo* against one build's entries
    *cnt*; fills *base* and returns the rows filled."""
    filled: set[int] = set()
    ident = ["source", "exe_args", "kernel"]
    tiers = [(ident + ["gpu", "shape", "dup", "signature"], False),
             (ident + ["gpu", "shape"], False),
             (ident + ["gpu"], False),
             (ident + ["shape"], True), (ident, True)]
    for keys, near in tiers:
        if not len(todo):
            break
        if "shape" in keys and not sized:
            continue
        # a template-fragment name is told apart by its sizes alone, so it takes only the
        # tiers with sizes: another row's entry of that name may be another kernel
        # (quicksort's ``int>`` is gqsort at 512 blocks and lqsort at 4000 and more)
        rows_in = todo if "shape" in keys else \
            todo[~todo["kernel"].str.match(TEMPLATE_FRAGMENT)]
        right = cnt[keys + ["_l2"] + COUNTED_COLUMNS].drop_duplicates(keys if not near else
                                                                       keys + ["_l2"])
        m = rows_in[keys + ["_row", "_l2"]].merge(right, on=keys, how="inner",
                                                   suffixes=("", "_c"))
        if not len(m):
            continue
        if near:
            dist = np.abs(np.log(m["_l2_c"].to_numpy(float) / m["_l2"].to_numpy(float)))
            m = m.assign(_d=np.nan_to_num(dist, nan=np.inf)).sort_values(["_row", "_d"])
        m = m.drop_duplicates("_row")
        rows = m["_row"].to_numpy(int)
        for name in COUNTED_COLUMNS:
            base.loc[rows, name] = m[name].to_numpy(float)
        filled |= set(rows.tolist())
        todo = todo[~todo["_row"].isin(filled)]
    return filled


def _l2_of(gpu: str) -> float:
    """L2 bytes of a cataloged GPU name (NaN when unknown)."""
    try:
        return float(get_gpu(gpu).l2_bytes)
    except RidgelineError:
        return float("nan")
