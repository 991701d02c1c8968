"""``--count``'s counting runs and their cache: :func:`run_counts` (one kernel) and
:func:`run_program_counts` (every kernel a batch asks about in one run) count through
:func:`ridgeline.counting.count_run` and keep the launch records on disk, keyed on the
sources, arguments, kernels, GPUs and the counting code; failures are cached too."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ridgeline._atomic import write_text_atomic
from ridgeline.errors import RidgelineError
from ridgeline.hardware import GPU, get_gpu
from ridgeline.learning.count_wait import expected_kernels
from ridgeline.learning.matching import OMP_PREFIX, match_kernel
from ridgeline.sources.build import ProgramBuild
from ridgeline.sources.regionname import same_region

__all__ = ["counted_sizes", "run_counts", "run_program_counts"]


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

    wanted = sorted({OMP_PREFIX.sub("", k) for k in kernels})
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
