"""One kernel launch analysed from source: launch sizes, bound arguments, weighted counts.

This is what both the analytic and the learned predictor start from. Every number says where
it came from (``origin``) and every guess is listed in ``notes``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ridgeline.analysis.argeval import Dim, Env, split_args, try_evaluate
from ridgeline.analysis.declscan import declared_types
from ridgeline.analysis.guards import active_threads, spmd_active_threads
from ridgeline.analysis.hostenv import _globals, bind_params, host_env
from ridgeline.analysis.kernelstats import Stats, analyze
from ridgeline.analysis.scope import (
    cuda_footprint,
    kernel_callees,
    omp_footprint,
    scope_pointers,
    spmd_copies,
)
from ridgeline.analysis.srcscan import (
    TEMPLATE_FRAGMENT,
    Function,
    Program,
    load_program,
    renamed_kernel,
    source_files,
)
from ridgeline.analysis.srcscan import Launch as Site
from ridgeline.errors import KernelNotFoundError, LaunchError
from ridgeline.hardware import Counts
from ridgeline.launch import Dim3, KernelRef, Launch
from ridgeline.sources.build import BuildFlags, backend_sources
from ridgeline.sources.regionname import region_short_name

__all__ = ["KernelAnalysis", "analyze_launch", "args_numbers"]

#: translation units (the rest of a folder's sources are headers)
_UNIT_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")

@dataclass
class KernelAnalysis:
    kernel: str
    language: str  # "cuda" | "omp" | "opencl"
    grid: Dim3 | None
    block: Dim3 | None
    stats: Stats
    threads: float  # threads that run the body (1 for OpenMP regions: counts are totals)
    bound: dict[str, Any]
    exe_args: str
    origin: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: bytes of the device buffers the launch can touch (cudaMalloc / map sizes), NaN unknown
    footprint: float = float("nan")

    @property
    def access_bytes(self) -> float:
        return (self.stats.load_bytes + self.stats.store_bytes) * self.threads

    @property
    def launched_threads(self) -> float:
        if self.grid is None or self.block is None:
            return float("nan")
        return float(math.prod(self.grid) * math.prod(self.block))

    def counts(self) -> Counts:
        """Analytic counts: weighted per-thread counts times running threads; DRAM bytes as
        the launch's buffer footprint where the buffer sizes evaluate (compulsory traffic),
        else every global access going to memory (no cache model)."""
        s, n = self.stats, self.threads
        dram = self.access_bytes
        if math.isfinite(self.footprint) and self.footprint > 0:
            # compulsory traffic: each buffer byte once per direction (on HeCBench within 2x
            # of the measured DRAM bytes for 41% of CUDA rows, against 29% for all accesses)
            dram = self.footprint
        return Counts(
            flops_sp=s.flops("sp") * n, flops_dp=s.flops("dp") * n, flops_hp=s.flops("hp") * n,
            int_ops=(s.int_ops + 4.0) * n,
            dram_bytes=dram,
        )


def args_numbers(args: str) -> list[float]:
    out = []
    for tok in split_args(args)[1:]:
        v = try_evaluate(tok)
        if isinstance(v, int | float) and math.isfinite(v):
            out.append(float(v))
    return out


def _dim(v: Any) -> Dim3 | None:
    if isinstance(v, Dim):
        vals = (v.x, v.y, v.z)
    elif isinstance(v, int | float):
        vals = (v, 1, 1)
    else:
        return None
    if any(not math.isfinite(x) or x < 1 for x in vals):
        return None
    return (int(vals[0]), int(vals[1]), int(vals[2]))


def _site_env(prog: Program, site: Site, args: str) -> Env:
    fn = prog.function(site.function) if site.function else None
    return host_env(prog, fn, site.offset, split_args(args))


def _pick_kernel(prog: Program, name: str, launch: Launch) -> tuple[Function, list[str]]:
    try:
        return prog.kernel(name), []
    except KernelNotFoundError:
        if not (TEMPLATE_FRAGMENT.match(name) and prog.kernels):
            other = renamed_kernel(name, prog.kernel_names())
            if other is None:
                raise
            return prog.kernel(other), [
                f"kernel {name!r} is not in the sources; GUESSED {other!r}, the one kernel "
                "whose name it starts or ends with (a profile of another version)"]
    # upstream rows name a template argument instead of the kernel: match on launch sizes
    for site in prog.launches:
        if launch.grid is None or launch.block is None:
            break
        env = _site_env(prog, site, launch.args)
        if _dim(try_evaluate(site.grid, env)) == launch.grid and \
                _dim(try_evaluate(site.block, env)) == launch.block:
            return prog.kernel(site.kernel), [f"kernel {name!r} is a template fragment; took "
                                              f"{site.kernel!r} (launch sizes match)"]
    k = prog.kernels[0]
    return k, [f"kernel {name!r} is a template fragment; GUESSED {k.name!r} (first kernel)"]


def _cuda(prog: Program, kref: KernelRef, launch: Launch) -> KernelAnalysis:
    fn, notes = _pick_kernel(prog, kref.name, launch)
    origin: dict[str, str] = {}
    sites = prog.launches_of(fn.name)
    site = sites[0] if sites else None
    env = _site_env(prog, site, launch.args) if site else Env({}, _globals(prog),
                                                             split_args(launch.args))
    grid, block = launch.grid, launch.block
    for what in ("grid", "block"):
        if (grid if what == "grid" else block) is not None:
            origin[what] = "given"
            continue
        val = _dim(try_evaluate(getattr(site, what), env)) if site else None
        if val is None:
            origin[what] = "unknown"
            notes.append(f"{what} not given and not evaluable from the launch site"
                         + (f" ({getattr(site, what)!r})" if site else " (no launch site found)"))
        else:
            origin[what] = f"source {site.file}:{site.line}" if site else "source"
            notes.append(f"{what} {val} taken from the launch site {site.file}:{site.line}"
                         if site else "")
        if what == "grid":
            grid = val
        else:
            block = val
    bound = bind_params(fn.params, site.args, env) if site else {}
    if len(sites) > 1:
        notes.append(f"{len(sites)} launch sites; arguments taken from the first")
    kenv = Env({**bound, "threadIdx": Dim(0, 0, 0), "blockIdx": Dim(0, 0, 0),
                "blockDim": Dim(*(block or (1, 1, 1))), "gridDim": Dim(*(grid or (1, 1, 1)))},
               _globals(prog), None)
    callees = kernel_callees(prog, fn, site.targs if site else "", mangled=launch.instance,
                       notes=notes)
    stats = analyze(fn.body, fn.params, kenv, callees=callees)
    threads = float(math.prod(grid) * math.prod(block)) if grid and block else float("nan")
    active = active_threads(fn.body, kenv, grid, block) if grid and block else None
    if active is not None and active > 0:  # the threads past the bounds guard do no work
        notes.append(f"bounds guard: {active:.0f} of {threads:.0f} launched threads work")
        threads = active
    origin["arguments"] = f"{len(bound)}/{len(fn.params)} kernel parameters evaluated"
    footprint = cuda_footprint(prog, fn, site, stats, split_args(launch.args))
    return KernelAnalysis(fn.name, "cuda", grid, block, stats, threads, bound, launch.args,
                          origin, [n for n in notes if n], footprint)


def _omp(prog: Program, kref: KernelRef, launch: Launch) -> KernelAnalysis:
    region = prog.omp_region(kref.name)
    notes = []
    if not re.search(rf"_l{region.line}$", kref.name):
        notes.append(f"no target region at the line in {kref.name!r}; took the one at "
                     f"{region.file}:{region.line}")
    fn = prog.function(region.function) if region.function else None
    env = host_env(prog, fn, region.offset, split_args(launch.args))
    extra = declared_types(fn.body, fn.params, arrays=True)[1] if fn else {}
    for k, v in scope_pointers(prog).items():  # file-scope arrays and pointers are mapped too
        extra.setdefault(k, v)
    callees = kernel_callees(prog, fn, mangled=kref.name, notes=notes)
    stats = analyze(region.body, [], env, extra_pointers=extra, callees=callees)
    grid, block = launch.grid, launch.block
    origin = {"grid": "given" if grid else "unknown", "block": "given" if block else "unknown"}
    for what, clause in (("grid", "num_teams"), ("block", "thread_limit")):
        if (grid if what == "grid" else block) is None:
            m = re.search(rf"{clause}\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", region.pragma)
            val = _dim(try_evaluate(m.group(1), env)) if m else None
            if val is not None:
                origin[what] = f"source {region.file}:{region.line} {clause}"
                if what == "grid":
                    grid = val
                else:
                    block = val
    origin["arguments"] = f"{len(env.vars)} host values evaluated"
    runs = spmd_copies(region.pragma, region.body, grid, block, notes)
    if runs > 1 and grid is not None:
        inner = block if block is not None and runs > math.prod(grid) else None
        active = spmd_active_threads(region.body, env, grid, inner)
        if active is not None and active > 0:  # copies past the bounds guard do no work
            notes.append(f"bounds guard: {active:.0f} of {runs:.0f} copies work")
            runs = active
    footprint = omp_footprint(fn, region.pragma, stats, env, extra)
    return KernelAnalysis(region_short_name(kref.name), "omp", grid, block, stats, runs,
                          dict(env.vars),
                          launch.args, origin, notes, footprint)


def _model_of(kref: KernelRef) -> str:
    return kref.language or ("omp" if re.search(r"_l\d+$", kref.name) else "cuda")


def _sources(kref: KernelRef) -> tuple[Path, ...]:
    """*kref*'s sources; of a folder holding several backends' sources side by side, without
    the translation units of the backends other than the kernel's."""
    if len(kref.sources) != 1 or not kref.sources[0].is_dir():
        return tuple(kref.sources)
    folder = kref.sources[0]
    files = source_files((folder,))
    units = [f for f in files if f.suffix.lower() in _UNIT_SUFFIXES]
    kept = set(backend_sources(folder, units, _model_of(kref)))
    if len(kept) == len(units):
        return tuple(kref.sources)
    return tuple(f for f in files if f not in units or f in kept)


def _defines(kref: KernelRef) -> tuple[str, ...]:
    """The definitions ``#if`` sees: the build's (Makefile and the make fragment of the
    kernel's model, compile_commands.json, -D) when *kref* has one, then its own."""
    folder = kref.program_dir
    if kref.build is None or folder is None:
        return tuple(kref.defines)
    flags = kref.build.for_model(folder, _model_of(kref), [s for s in kref.sources if s.is_file()])
    return flags.merge(BuildFlags(tuple(kref.defines))).defines


def analyze_launch(kref: KernelRef, launch: Launch) -> KernelAnalysis:
    """Analyse one launch of *kref* from its program's sources."""
    if not kref.sources:
        raise LaunchError(f"kernel {kref.name!r}: no source files or program folder given")
    prog = load_program(_sources(kref), defines=_defines(kref))
    lang = kref.language
    if lang is None:
        cuda_names = {k.name for k in prog.kernels}
        lang = "omp" if kref.name not in cuda_names and re.search(r"_l\d+$", kref.name) \
            and prog.omp else "cuda"
    if lang == "omp":
        return _omp(prog, kref, launch)
    return _cuda(prog, kref, launch)
