"""Which counted launch a data row means: kernel names matched across builds (renamed
kernels, OpenMP regions a few lines off, mangled tails that differ in signedness or integer
width, demangled template instantiations), then the launch among a run's records by launch
sizes, instantiation and order."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

from ridgeline.analysis.srcscan import OMP_LINE_SLACK, TEMPLATE_FRAGMENT, renamed_kernel
from ridgeline.errors import LaunchError
from ridgeline.launch import Dim3, parse_dim3

__all__ = ["FRAGMENT_SIZE_SLACK", "OMP_PREFIX", "REGION_TAIL_MATCHES", "as_dim3",
           "by_instance", "by_signature", "by_size_rank", "demangle", "first_launch",
           "fragment_in", "launched_threads", "match_kernel", "nth_launched", "omp_candidates",
           "omp_exact", "pick_launch", "record_for", "same_but_integer_width",
           "same_but_signedness", "same_parameters", "shape_key", "template_args"]

K = TypeVar("K", bound=Hashable)
OMP_PREFIX = re.compile(r"^__omp_offloading_[0-9a-f]+_[0-9a-f]+_")
_REGION = re.compile(r"^(.*)_l(\d+)$")


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
    short = OMP_PREFIX.sub("", name)
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
    short = OMP_PREFIX.sub("", name)
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


def shape_key(grid: Any, block: Any) -> str:
    """``"g1,g2,g3|b1,b2,b3"`` for a row's launch sizes in any accepted form; "" when either
    is missing or not understood."""
    try:
        g, b = parse_dim3(grid), parse_dim3(block)
    except LaunchError:
        return ""
    return ",".join(map(str, g)) + "|" + ",".join(map(str, b))


def as_dim3(v: Any) -> Dim3 | None:
    try:
        return parse_dim3(v) if v is not None else None
    except (LaunchError, TypeError):
        return None


def launched_threads(grid: Any, block: Any) -> float | None:
    """Threads a launch's *grid* and *block* (any accepted form) start; None when unknown."""
    g, b = as_dim3(grid), as_dim3(block)
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
    rec = first_launch(pool, grid, block)
    return None if rec is None or rec.get("spmd_partial") else rec


def _with_sizes(launches: list[dict[str, Any]], grid: Dim3 | None, block: Dim3 | None
                ) -> list[dict[str, Any]]:
    """The launches with exactly *grid* and *block* (none when either is unknown)."""
    if grid is None or block is None:
        return []
    return [x for x in launches
            if as_dim3(x.get("grid")) == grid and as_dim3(x.get("block")) == block]


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
    same = [x for x in launches if as_dim3(x.get("block")) == block]
    dist = {id(x): abs(math.log((launched_threads(x.get("grid"), x.get("block")) or 1.0)
                                / want)) for x in same}
    best = min(dist.values(), default=math.inf)
    if best > math.log(FRAGMENT_SIZE_SLACK):
        return []
    return [x for x in same if dist[id(x)] == best]


def first_launch(launches: list[dict[str, Any]], grid: Dim3 | None = None,
                  block: Dim3 | None = None) -> dict[str, Any] | None:
    """The first launch (first template variant) with *grid* and *block*, else the first
    launch at all; None without launches."""
    pool = _with_sizes(launches, grid, block) or launches
    return min(pool, key=lambda x: (x.get("variant", 0), x.get("launch", 0))) if pool else None


def record_for(recs: list[dict[str, Any]], kernel: str, model_type: str,
               grid: Any = None, block: Any = None) -> dict[str, Any] | None:
    """The usable counted launch of *kernel* (with the row's *grid* and *block*, in any
    accepted form, where a launch has them) among one run's records (None: absent,
    ambiguous or partial); see :func:`pick_launch`."""
    return pick_launch(recs, kernel, model_type, as_dim3(grid), as_dim3(block))
