"""Counted numbers (CPU execution with instrumentation, :mod:`ridgeline.counting`) as
predictor inputs.

Two uses:
- a derived table of counted numbers for HeCBench rows, built from the counting results
  (JSON lines, one per program run) and matched to rows on source, arguments and kernel name;
  it ships in ``ridgeline/models`` (numbers only) and feeds :data:`COUNTED_COLUMNS`;
- ``ridgeline predict --count``: run :func:`ridgeline.counting.count_run` on the program
  (cached on disk) and turn its first launch into the same feature columns.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ridgeline._atomic import write_text_atomic
from ridgeline.analysis.srcscan import OMP_LINE_SLACK, TEMPLATE_FRAGMENT, renamed_kernel
from ridgeline.counting.records import upgrade_record
from ridgeline.errors import LaunchError, RidgelineError
from ridgeline.hardware import GPU, get_gpu
from ridgeline.launch import Dim3, parse_dim3
from ridgeline.learning.count_wait import expected_kernels
from ridgeline.sources.build import ProgramBuild
from ridgeline.sources.regionname import same_region

__all__ = ["COUNTED_COLUMNS", "COUNTED_FILE", "match_kernel", "build_counted_table",
           "counted_features", "attach_counted", "launch_record_features", "run_counts",
           "load_counted_table", "run_program_counts", "record_for", "merge_launches",
           "pick_launch", "same_but_signedness", "same_but_integer_width", "same_parameters",
           "REGION_TAIL_MATCHES", "shape_key",
           "by_size_rank", "launched_threads", "nth_launched", "by_instance",
           "TEMPLATE_FRAGMENT",
           "build_count_runs", "load_count_runs", "RUNS_FILE", "DATASET_BUILD", "DEFAULT_BUILD"]

K = TypeVar("K", bound=Hashable)

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

#: log10(1 + x) of counted quantities; NaN where the row has no counts
COUNTED_COLUMNS = ["c_has", "c_sp", "c_dp", "c_hp", "c_int", "c_arith", "c_logic", "c_cmp",
                   "c_gep", "c_conv", "c_select", "c_load_b", "c_store_b", "c_loads",
                   "c_stores", "c_shared", "c_atomics", "c_dram", "c_ai_sp", "c_ai_dp",
                   "c_ai_int", "c_omp_loop", "c_atom_hot", "c_atom_hot_fp", "c_tw_max",
                   "c_warp_issue"]
_KEYS = ["source", "exe_args", "kernel", "gpu"]
#: launch sizes of a row (normalised ``256,1,1``), keyed on where the counted table has them
_SHAPE = ["grid", "block"]
_OMP_PREFIX = re.compile(r"^__omp_offloading_[0-9a-f]+_[0-9a-f]+_")
_REGION = re.compile(r"^(.*)_l(\d+)$")


def has_counts(frame: pd.DataFrame) -> np.ndarray:
    """Rows of *frame* with CPU-execution counts (``c_has`` 1); none when it has no counted
    columns."""
    if "c_has" not in frame:
        return np.zeros(len(frame), bool)
    return frame["c_has"].to_numpy(float) == 1.0


def _lg(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return math.log10(1.0 + max(v, 0.0)) if math.isfinite(v) else float("nan")


def match_kernel(name: str, counted: Iterable[str], model_type: str) -> str | None:
    """The counted kernel a data row's kernel name refers to, or None (absent or ambiguous).

    CUDA names match exactly, else the one counted kernel the name starts or ends with
    (:func:`ridgeline.analysis.srcscan.renamed_kernel`; not for template fragments). OpenMP
    rows carry either the full offloading symbol (device
    and file ids differ between builds, so they are dropped) or a truncated tail of the
    mangled region name (``Pf_l269`` for ``_Z9compute_fiPKfS0_Pf_l269``): a counted name
    matches when it ends with that tail; several matches (template instantiations) are
    ambiguous and left out. Without such a match, the counted region of the same function
    tail nearest in line, within OMP_LINE_SLACK lines (a profiled build of slightly other
    sources), unless two are equally near."""
    names = list(dict.fromkeys(counted))
    if model_type != "omp":
        if name in names:
            return name
        return None if TEMPLATE_FRAGMENT.match(name) else renamed_kernel(name, names)
    cands = omp_candidates(name, names)
    return cands[0] if len(cands) == 1 else None


def omp_exact(name: str, names: list[str]) -> list[str]:
    """The counted OpenMP regions a region name means without line slack: the same short name,
    else those ending with its mangled tail."""
    short = _OMP_PREFIX.sub("", name)
    if short in names:
        return [short]
    return [n for n in names if n.endswith(short)]


def omp_candidates(name: str, names: list[str],
                   taken: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The counted OpenMP regions (in *names*' order) a data row's region name can mean: the
    same short name; else those ending with its mangled tail; else those of the same function
    tail (else the same once unsigned parameter types read as signed,
    :func:`same_but_signedness`, else once every integer type reads as int,
    :func:`same_but_integer_width`) nearest in line, within OMP_LINE_SLACK lines, leaving out
    the regions in *taken*
    (those other rows of the program name exactly: a region of the profiled build that was
    not reached here must not take its neighbour's counts). Several are template
    instantiations."""
    hits = omp_exact(name, names)
    if hits:
        return hits
    short = _OMP_PREFIX.sub("", name)
    # the profiled build's region line a few lines off the counted one (same function tail)
    m = _REGION.match(short)
    if not m:
        return []
    near: dict[str, int] = {}
    for same in REGION_TAIL_MATCHES:
        for n in names:
            mn = _REGION.match(n)
            if mn and n not in taken and same(mn.group(1), m.group(1)) and \
                    abs(int(mn.group(2)) - int(m.group(2))) <= OMP_LINE_SLACK:
                near[n] = abs(int(mn.group(2)) - int(m.group(2)))
        if near:
            break
    best = min(near.values(), default=None)
    return [n for n, d in near.items() if d == best]


_UNSIGNED = str.maketrans("jmtyh", "ilsxa")  # Itanium: unsigned int/long/short/llong/char


def same_but_signedness(ours: str, profiled: str) -> bool:
    """The profiled (often truncated) name ends our mangled name once unsigned parameter
    types are read as signed ones: the profiled sources declared a few parameters
    ``int`` where the exported ones say ``unsigned`` (``..._S_iiiff`` / ``..._S_jjiff``)."""
    return ours.translate(_UNSIGNED).endswith(profiled.translate(_UNSIGNED))


_INTEGER = str.maketrans("jlmstxy", "iiiiiii")  # Itanium: every integer type but char


def same_but_integer_width(ours: str, profiled: str) -> bool:
    """As :func:`same_but_signedness`, with every integer parameter type read as ``int``: the
    profiled sources passed image sizes as ``size_t`` where the exported ones say ``int``
    (recursiveGaussian-omp: the profile's ``..._PjmmffffffffFF_l194``, ours ``..._Pjiiff...``).
    Tried last: it only separates regions at the same line by their integer widths."""
    return ours.translate(_INTEGER).endswith(profiled.translate(_INTEGER))


_PLAIN_MANGLED = re.compile(r"^_Z(\d+)")


def _parameters(tail: str) -> str | None:
    """The mangled parameter types of a plain (not nested, not templated) function's
    Itanium name, ``_Z<length><name><parameters>``; None for any other name."""
    m = _PLAIN_MANGLED.match(tail)
    if not m:
        return None
    params = tail[m.end() + int(m.group(1)):]
    return params if params and not params.startswith("I") else None


def same_parameters(ours: str, profiled: str) -> bool:
    """Both are whole mangled names of plain functions with the same parameter types: the
    function was renamed between the profiled sources and the exported ones (pointwise-omp:
    the profile's ``_Z11elementwiseiiPKfS0_S0_PfS1_S1_S0_S1__l53``, ours
    ``_Z14elementWise_fpiiPKfS0_S0_PfS1_S1_S0_S1__l58``). Needs the profile's name whole, not
    a truncated tail. Tried after every tier that keeps the name."""
    params = _parameters(profiled)
    return params is not None and _parameters(ours) == params


#: how a counted region's function tail may match a profiled one, tried in this order (the
#: table's and the counting benchmark's region matching both go through it)
REGION_TAIL_MATCHES: tuple[Callable[[str, str], bool], ...] = (
    str.endswith, same_but_signedness, same_but_integer_width, same_parameters)


def launch_record_features(rec: dict[str, Any], gpu: str | None) -> dict[str, float]:
    """Feature columns of one counted launch record (LaunchCount.to_dict()) for *gpu*."""
    det = rec.get("int_detail") or {}
    by_gpu = rec.get("dram_bytes_by_gpu") or {}
    dram = by_gpu.get(gpu) if gpu else None
    if dram is None:
        dram = rec.get("dram_bytes")
    f = {
        "c_has": 1.0, "c_sp": _lg(rec.get("flops_sp")), "c_dp": _lg(rec.get("flops_dp")),
        "c_hp": _lg(rec.get("flops_hp")), "c_int": _lg(rec.get("int_ops")),
        "c_arith": _lg(det.get("int_arith", 0)), "c_logic": _lg(det.get("int_logic", 0)),
        "c_cmp": _lg(det.get("int_cmp", 0)), "c_gep": _lg(det.get("int_gep", 0)),
        "c_conv": _lg(det.get("int_conv", 0)), "c_select": _lg(det.get("select", 0)),
        "c_load_b": _lg(rec.get("global_load_bytes")),
        "c_store_b": _lg(rec.get("global_store_bytes")),
        "c_loads": _lg(rec.get("global_loads")), "c_stores": _lg(rec.get("global_stores")),
        "c_shared": _lg(rec.get("shared_accesses")), "c_atomics": _lg(rec.get("atomics")),
        "c_dram": _lg(dram),
        # OpenMP: 1 when the region ran a worksharing loop, 0 when not, NaN unknown / CUDA
        "c_omp_loop": float("nan") if rec.get("omp_worksharing") is None
        else float(bool(rec["omp_worksharing"])),
        # CUDA: the longest thread's operations and the warps' issue factor (log10); NaN
        # where the run did not follow threads one by one
        "c_tw_max": _lg(rec.get("thread_work_max")),
        "c_warp_issue": math.log10(rec["warp_issue_factor"])
        if (rec.get("warp_issue_factor") or 0) > 0 else float("nan"),
    }
    # the most global integer / float atomics on one address; none without atomics, unknown
    # (NaN) where a record with atomics predates the count
    for col, key in (("c_atom_hot", "atomics_hot"), ("c_atom_hot_fp", "atomics_hot_fp")):
        hot = rec.get(key)
        f[col] = _lg(hot) if hot is not None else (
            0.0 if not rec.get("atomics") else float("nan"))
    for p, col in (("sp", "c_ai_sp"), ("dp", "c_ai_dp"), ("int", "c_ai_int")):
        f[col] = f[{"sp": "c_sp", "dp": "c_dp", "int": "c_int"}[p]] - f["c_dram"]
    return f


def shape_key(grid: Any, block: Any) -> str:
    """``"g1,g2,g3|b1,b2,b3"`` for a row's launch sizes in any accepted form; "" when either
    is missing or not understood."""
    try:
        g, b = parse_dim3(grid), parse_dim3(block)
    except LaunchError:
        return ""
    return ",".join(map(str, g)) + "|" + ",".join(map(str, b))


def _dim(v: Any) -> Dim3 | None:
    try:
        return parse_dim3(v) if v is not None else None
    except (LaunchError, TypeError):
        return None


def launched_threads(grid: Any, block: Any) -> float | None:
    """Threads a launch's *grid* and *block* (any accepted form) start; None when unknown."""
    g, b = _dim(grid), _dim(block)
    return float(math.prod(g) * math.prod(b)) if g is not None and b is not None else None


def by_size_rank(sizes: Mapping[K, float], row: float | None,
                 row_sizes: Iterable[float]) -> K | None:
    """The instantiation of an OpenMP region whose launch size ranks where the row's does.

    Template instantiations of one region share its short name; when they run loops of
    different lengths, the profile's rows of that name differ in their launch sizes too. The
    host's team count and the GPU's are not the same number (one team per 256 iterations
    here, per thread limit there) but both grow with the loop, so the k-th smallest of the
    rows' sizes is the k-th smallest of the instantiations'. *sizes*: launched threads of
    each candidate (its first launch); *row_sizes*: the distinct sizes of the rows sharing
    the name (same program, GPU and profile). The first candidate of the wanted size comes
    back; None when the two do not pair one to one."""
    ours = sorted(set(sizes.values()))
    theirs = sorted(set(row_sizes))
    if row is None or len(ours) < 2 or len(ours) != len(theirs) or row not in theirs:
        return None
    want = ours[theirs.index(row)]
    return next(n for n, v in sizes.items() if v == want)


@functools.lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """The C++ signature of a mangled name (``void k<int>(int*)``), through the C++
    runtime's demangler; the name itself when it is not mangled or no runtime is found.
    The CPU layer's ``__half`` is ``_Float16`` (``DF16_``), which older demanglers do not
    know: it reads as the ``__half`` of nvcc's names (the template arguments come out
    right; a parameter list's back-references may then name a neighbouring type)."""
    if not name.startswith("_Z"):
        return name
    out = _demangle(name)
    if out == name and "DF16_" in name:
        out = _demangle(name.replace("DF16_", "6__half"))
        return name if out.startswith("_Z") else out
    return out


@functools.cache
def _cxa_demangle() -> Any:
    """The C++ runtime's ``__cxa_demangle``, loaded once; None where no runtime is found."""
    try:
        fn = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6").__cxa_demangle
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                   ctypes.POINTER(ctypes.c_int)]
    return fn


def _demangle(name: str) -> str:
    fn = _cxa_demangle()
    if fn is None:
        return name
    status = ctypes.c_int(0)
    ptr = fn(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not ptr:
        return name
    try:
        return ctypes.string_at(ptr).decode(errors="replace")
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(ptr))


def fragment_in(fragment: str, instance: str) -> bool:
    """Whether a template-fragment row name (``char,``, ``int>``) is one of the template
    arguments of a launch's instantiation (its mangled name, :attr:`LaunchCount.instance`):
    ``char,`` is in ``void resize<char, 8ul>(...)``."""
    head = demangle(instance).split("(", 1)[0]
    return any(f"{c}{fragment}" in head for c in ("<", " "))


def template_args(signature: str, kernel: str) -> str | None:
    """The template argument list of *kernel* in a demangled *signature*, spaces removed
    (``float,int`` from ``void cross_kernel<float, int>(int, T1 *)``); None when the
    signature names no template arguments of it."""
    at = signature.find(kernel + "<")
    if at < 0:
        return None
    depth, start = 0, at + len(kernel)
    for i in range(start, len(signature)):
        c = signature[i]
        depth += (c == "<") - (c == ">")
        if depth == 0:
            return re.sub(r"\s+", "", signature[start + 1:i])
    return None


def by_signature(pool: list[dict[str, Any]], kernel: str, signature: str
                 ) -> list[dict[str, Any]]:
    """The launches of the instantiation a profiled row's full kernel name (paper-a's
    ``Kernel Name``: ``void reduce_cross_term<float>(T1 *, ...)``) names, where the launches
    name theirs; the whole *pool* when the name has no template arguments or no launch
    matches them."""
    want = template_args(signature, kernel) if signature else None
    if want is None:
        return pool
    hit = [x for x in pool if x.get("instance")
           and template_args(demangle(str(x["instance"])), kernel) == want]
    return hit or pool


def nth_launched(launched: list[str], dup: tuple[int, int]) -> str | None:
    """The instantiation the *k*-th of *n* rows alike (``dup`` = (k, n)) stands for, among
    instantiations given in the order a run first launched them: the *k*-th in mangled-name
    order of the first *n* launched. Profiles list the kernels of one name, sizes and
    arguments in mangled-name order (extrema's ``relextrema_1D`` rows: double, float, int,
    long, launched int, long, float, double; aligned-types-omp's 13 ``runTest<T>`` regions).
    Where a run launched more than *n*, the profile's *n* are the first *n* launched (a
    profiled run that ended before the rest: langford's ``dfs_gpu<n>`` for n = 7, 8, 11, 12
    and not the 15 that runs 45 times longer than the 12; the A100's five aligned-types-omp
    rows are its first five ``runTest<T>``), still in mangled-name order (``...ILi11E...``
    before ``...ILi7E...``). None for a row alone or fewer instantiations than rows."""
    k, n = dup
    if n < 2 or len(launched) < n or not 0 <= k < n:
        return None
    return sorted(launched[:n])[k]


def by_instance(pool: list[dict[str, Any]], dup: tuple[int, int]) -> list[dict[str, Any]]:
    """The launches of the instantiation a CUDA row alike others stands for
    (:func:`nth_launched`; launches name theirs in ``instance``); the whole *pool* when one
    names none or the rows cannot be paired."""
    launched = list(dict.fromkeys(str(x["instance"]) for x in pool if x.get("instance")))
    if not all(x.get("instance") for x in pool) and len(launched) != dup[1]:
        return pool
    pick = nth_launched(launched, dup)
    return pool if pick is None else [x for x in pool if x.get("instance") == pick]


def pick_launch(launches: list[dict[str, Any]], kernel: str, model_type: str,
                grid: Dim3 | None = None, block: Dim3 | None = None,
                others: Iterable[str] = (),
                row_sizes: Iterable[float] = (),
                dup: tuple[int, int] = (0, 1), signature: str = "") -> dict[str, Any] | None:
    """The counted launch a data row refers to: a launch of the matching kernel with the
    row's grid and block where one has them (the first such launch, first template variant),
    else the kernel's first launch; a template-fragment name (see TEMPLATE_FRAGMENT) takes the
    first launch of any kernel with the row's sizes (else with the nearest,
    :func:`_near_sizes`), an OpenMP tail that several counted instantiations end with the
    one whose size ranks as the row's (:func:`by_size_rank`), else the one the row's rank
    among rows alike stands for (:func:`nth_launched`), else the first of them launched with
    the row's sizes. None when nothing
    matches or the launch's counts are partial (OpenMP teams split by id). *others*: the
    program's other profiled kernel names (an OpenMP region they name exactly is not a near
    match for this one). *row_sizes*: launched threads of the rows of this kernel name (same
    program, GPU and profile), which tell OpenMP instantiations apart (:func:`by_size_rank`).
    *dup*: (k, n) when the row is the k-th of n rows alike in program, arguments, GPU, kernel
    name and sizes: CUDA launches that name their instantiation take the one
    :func:`nth_launched` gives (:func:`by_instance`), OpenMP rows that instantiation's region;
    a template fragment keeps the instantiations
    it is an argument of (:func:`fragment_in`), none when every launch names one and none
    fits. *signature*: the row's full kernel name where the profile gives it, whose template
    arguments pick the instantiation (:func:`by_signature`)."""
    names = list(dict.fromkeys(x["kernel"] for x in launches))
    if model_type == "omp":
        taken = {n for o in others if o != kernel for n in omp_exact(o, names)}
        cands = omp_candidates(kernel, names, taken)
        if len(cands) > 1:
            # a region several counted instantiations can be (same tail or equally near
            # line): the first launched with the row's sizes, else the first launched (what
            # a run stopped after it would give)
            pool = [x for x in launches if x.get("kernel") in cands]
            sizes: dict[str, float] = {}
            for x in pool:  # each instantiation's first launch
                sizes.setdefault(x["kernel"], launched_threads(x.get("grid"), x.get("block"))
                                 or 0.0)
            ranked = by_size_rank(sizes, launched_threads(grid, block), row_sizes)
            if ranked is None:  # sizes alike: the order of the rows alike
                ranked = nth_launched(list(sizes), dup)
            if ranked is not None:
                pool = [x for x in pool if x["kernel"] == ranked]
            first = (_with_sizes(pool, grid, block) or pool)[0]
            return None if first.get("spmd_partial") else first
        k = cands[0] if cands else None
    else:
        k = match_kernel(kernel, names, model_type)
    fragment = k is None and model_type != "omp" and bool(TEMPLATE_FRAGMENT.match(kernel))
    if k is None and not fragment:
        return None
    pool = [x for x in launches if fragment or x.get("kernel") == k]
    if fragment and pool and all(x.get("instance") for x in pool):
        pool = [x for x in pool if fragment_in(kernel, str(x["instance"]))]
    if fragment:
        pool = _with_sizes(pool, grid, block) or _near_sizes(pool, grid, block)
        if not pool:
            return None
    pool = by_signature(pool, str(k), signature) if k is not None else pool
    pool = by_instance(_with_sizes(pool, grid, block) or pool, dup)
    rec = _first_launch(pool, grid, block)
    return None if rec is None or rec.get("spmd_partial") else rec


def _with_sizes(launches: list[dict[str, Any]], grid: Dim3 | None, block: Dim3 | None
                ) -> list[dict[str, Any]]:
    """The launches with exactly *grid* and *block* (none when either is unknown)."""
    if grid is None or block is None:
        return []
    return [x for x in launches if _dim(x.get("grid")) == grid and _dim(x.get("block")) == block]


#: how far (as a ratio of launched threads) a template-fragment row's grid may be from the
#: launch it pairs with when no launch has its exact sizes: quicksort's ``int>`` rows
#: (lqsort_kernel<unsigned int>, 4147-4211 blocks, data-dependent) and the run's 4185; the
#: profiled vol2col's 1525 blocks and this source's 1524
FRAGMENT_SIZE_SLACK = 1.1


def _near_sizes(launches: list[dict[str, Any]], grid: Dim3 | None, block: Dim3 | None
                ) -> list[dict[str, Any]]:
    """The launches with *block* whose launched threads are nearest the row's, when within
    :data:`FRAGMENT_SIZE_SLACK` of them (none when either size is unknown)."""
    want = launched_threads(grid, block)
    if want is None or not want:
        return []
    same = [x for x in launches if _dim(x.get("block")) == block]
    dist = {id(x): abs(math.log((launched_threads(x.get("grid"), x.get("block")) or 1.0)
                                / want)) for x in same}
    best = min(dist.values(), default=math.inf)
    if best > math.log(FRAGMENT_SIZE_SLACK):
        return []
    return [x for x in same if dist[id(x)] == best]


def _first_launch(launches: list[dict[str, Any]], grid: Dim3 | None = None,
                  block: Dim3 | None = None) -> dict[str, Any] | None:
    """The first launch (first template variant) with *grid* and *block*, else the first
    launch at all; None without launches."""
    pool = _with_sizes(launches, grid, block) or launches
    return min(pool, key=lambda x: (x.get("variant", 0), x.get("launch", 0))) if pool else None


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
            rec = pick_launch(launches, str(kernel), str(model_type), _dim(g), _dim(b),
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


def counted_features(launches: list[dict[str, Any]] | None, gpu: str,
                     grid: Dim3 | None = None, block: Dim3 | None = None) -> dict[str, float]:
    """Feature columns for a predict call: the counts of the first launch with *grid* and
    *block* (else the first launch), or NaN columns."""
    rec = _first_launch(launches or [], grid, block)
    if rec is None:
        return {c: float("nan") for c in COUNTED_COLUMNS}
    return launch_record_features(rec, gpu)


def _cache_dir() -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ridgeline")
    return Path(base) / "counts"


_SRC_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".inc",
                 ".cl"}


def _gpu_keys(gpus: Sequence[str | GPU]) -> list[str]:
    """Cache-key names of *gpus*: a GPU entry with its L2 size and DRAM scale (a user's
    file may reuse a name with other numbers)."""
    return [g if isinstance(g, str) else f"{g.name}|{g.l2_mb}|{g.dram_bytes_scale}"
            for g in gpus]


def counted_sizes(recs: list[dict[str, Any]] | None
                  ) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """Grid and block of the first counted launch of *recs* (None: none recorded)."""
    for r in recs or []:
        g, b = r.get("grid"), r.get("block")
        if g and b and len(g) == 3 and len(b) == 3:
            return (int(g[0]), int(g[1]), int(g[2])), (int(b[0]), int(b[1]), int(b[2]))
    return None


def _folder_key(program_dir: Path, args: str, kernel: str, gpus: list[str],
                extra: list[Any] | None = None) -> str:
    """Cache key of a counting run: the program's sources, the arguments, the kernels asked
    for, the GPUs modelled with their catalog entries (a changed L2 or DRAM scale models
    anew) and the counting code itself (its runtime and instrumentation: counts made by an
    older ridgeline are not reused)."""
    h = hashlib.sha256(_counter_digest().encode())
    for p in sorted(program_dir.rglob("*")):
        # sources only: a run may write outputs into the folder
        if (p.is_file() and p.suffix.lower() in _SRC_SUFFIXES
                and p.stat().st_size < 4 << 20):
            h.update(str(p.relative_to(program_dir)).encode())
            h.update(p.read_bytes())
    h.update(json.dumps([args, kernel, sorted(gpus)]).encode())
    if extra and any(e is not None for e in extra):
        h.update(json.dumps(extra).encode())
    for g in sorted(gpus):
        try:
            h.update(repr(get_gpu(g)).encode())
        except RidgelineError:
            h.update(g.encode())
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def _counter_digest() -> str:
    root = Path(str(resources.files("ridgeline").joinpath("counting")))
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".c", ".cpp", ".h"):
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _cache_read(path: Path) -> list[dict[str, Any]] | None:
    """The cached records, or None for a miss (absent, unreadable or not a list: a
    concurrent writer replaces entries atomically, so a reader never sees part of one)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, list) else None


def _cache_write(path: Path, recs: list[dict[str, Any]]) -> None:
    """Atomically, through a temporary file of this writer's own (a killed run leaves no
    half-written entry; two writers of one entry do not collide)."""
    write_text_atomic(path, json.dumps(recs, default=list))


def run_counts(program_dir: Path, args: str, kernel: str, gpus: Sequence[str | GPU],
               timeout: float, build: ProgramBuild | None = None,
               backend: str | None = None) -> tuple[list[dict[str, Any]], bool]:
    """Counted launches of *kernel* (records as dicts) and whether they came from the cache.
    *gpus* are catalog names or GPU entries (a user's ``--gpu-file``: its L2 models the DRAM
    bytes like a cataloged one's); *build* the user's ``-D``/``-I``/compile_commands.json.
    Raises :class:`ridgeline.counting.ProgramRunError` when the program cannot be counted
    (failures are not cached: a later call with a longer time limit may succeed)."""
    from ridgeline.counting import build_options, count_run

    key = _folder_key(program_dir, args, kernel, _gpu_keys(gpus),
                      extra=[backend, build.cache_key() if build else None])
    path = _cache_dir() / f"{key}.json"
    cached = _cache_read(path)
    if cached is not None:
        return cached, True
    res = count_run(program_dir, args, kernel=kernel, launches=1,
                    gpu=list(gpus), timeout=timeout, backend=backend,
                    **(build_options(build, program_dir) if build else {}))
    recs = [r.to_dict() for r in res]
    if kernel.startswith("__omp_offloading_") or not any(r["kernel"] == kernel for r in recs):
        names = [r["kernel"] for r in recs]
        omp = bool(recs) and recs[0]["backend"] == "omp"
        # the region's name in any form (copy_l105 for _ZN9OMPStreamIdE4copyEv_l105); of
        # several instantiations, the first launched
        same = [n for n in names if omp and same_region(n, kernel)]
        k = same[0] if same else match_kernel(kernel, names, "omp" if omp else "cuda")
        if k is None and len(set(names)) == 1:
            k = names[0]
        recs = [r for r in recs if r["kernel"] == k]
    _cache_write(path, recs)
    return recs, False


def run_program_counts(program_dir: Path, args: str, kernels: list[str],
                       gpus: Sequence[str | GPU], timeout: float, run: bool = True,
                       build: ProgramBuild | None = None,
                       ) -> tuple[list[dict[str, Any]], bool]:
    """Counted launches (one per kernel) of one run of *program_dir* with *args*, for the
    *kernels* a batch asks about (the run stops once each has a counted launch) and the DRAM
    model of each of *gpus*; cached on disk like :func:`run_counts`. Raises
    :class:`ridgeline.counting.ProgramRunError` when the program cannot be counted. With
    *run* false only the cache is read (no records when it has none)."""
    from ridgeline.counting import build_options, count_run

    wanted = sorted({_OMP_PREFIX.sub("", k) for k in kernels})
    # none when the runtime cannot recognise one of them (count_wait): the program then
    # runs to its end once, not again to the time limit
    expect = expected_kernels(program_dir, wanted)
    key = _folder_key(program_dir, args, "|".join(wanted), _gpu_keys(gpus),
                      extra=[build.cache_key() if build else None,
                             None if expect else "to-end"])
    path = _cache_dir() / f"prog-{key}.json"
    cached = _cache_read(path)
    if cached is not None:
        return cached, True
    if not run:
        return [], False
    from ridgeline.counting import ProgramRunError

    fail = path.with_suffix(".failed.json")
    prior = _failure_read(fail)
    # a failure is final for the same sources and arguments unless the time limit grew
    if prior is not None and (prior["cause"] != "timeout" or prior["timeout"] >= timeout):
        raise ProgramRunError(program_dir.name, prior["cause"],
                              f"{prior['detail']} (cached failure; delete {fail} to retry)")
    try:
        res = count_run(program_dir, args, kernel=None, launches=1, gpu=list(gpus),
                        timeout=timeout, expect=expect,
                        **(build_options(build, program_dir, strict=False) if build else {}))
    except ProgramRunError as e:
        write_text_atomic(fail, json.dumps({"cause": e.cause, "detail": e.detail[:500],
                                            "timeout": timeout}))
        raise
    recs = [r.to_dict() for r in res]
    _cache_write(path, recs)
    return recs, False


def _failure_read(path: Path) -> dict[str, Any] | None:
    try:
        d = json.loads(path.read_text())
        return {"cause": str(d["cause"]), "detail": str(d.get("detail", "")),
                "timeout": float(d.get("timeout", 0.0))}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record_for(recs: list[dict[str, Any]], kernel: str, model_type: str,
               grid: Any = None, block: Any = None) -> dict[str, Any] | None:
    """The usable counted launch of *kernel* (with the row's *grid* and *block*, in any
    accepted form, where a launch has them) among one run's records (None: absent,
    ambiguous or partial); see :func:`pick_launch`."""
    return pick_launch(recs, kernel, model_type, _dim(grid), _dim(block))
