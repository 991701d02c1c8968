"""One kernel launch analysed from source: launch sizes, bound arguments, weighted counts.

This is what both the analytic and the learned predictor start from. Every number says where
it came from (``origin``) and every guess is listed in ``notes``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ridgeline.errors import KernelNotFoundError, LaunchError
from ridgeline.hardware import Counts
from ridgeline.predictors.argeval import Dim, Env, split_args, try_evaluate
from ridgeline.predictors.base import Dim3, KernelRef, Launch
from ridgeline.predictors.hostenv import _globals, bind_params, host_env
from ridgeline.predictors.kernelstats import Stats, _types, analyze
from ridgeline.predictors.srcscan import Function, Program, load_program
from ridgeline.predictors.srcscan import Launch as Site

__all__ = ["KernelAnalysis", "analyze_launch", "args_numbers"]

_TEMPLATE_FRAGMENT = re.compile(r"^[\w:\s]*[>,]$")


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

    @property
    def launched_threads(self) -> float:
        if self.grid is None or self.block is None:
            return float("nan")
        return float(math.prod(self.grid) * math.prod(self.block))

    def counts(self) -> Counts:
        """Analytic counts: weighted per-thread counts times running threads; DRAM bytes as
        every global access going to memory (no cache model)."""
        s, n = self.stats, self.threads
        return Counts(
            flops_sp=s.flops("sp") * n, flops_dp=s.flops("dp") * n, flops_hp=s.flops("hp") * n,
            int_ops=(s.int_ops + 4.0) * n,
            dram_bytes=(s.load_bytes + s.store_bytes) * n,
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
        if not (_TEMPLATE_FRAGMENT.match(name) and prog.kernels):
            raise
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
    stats = analyze(fn.body, fn.params, kenv)
    threads = float(math.prod(grid) * math.prod(block)) if grid and block else float("nan")
    if stats.guard is not None and isinstance(stats.guard, int | float) and stats.guard > 0:
        threads = min(threads, float(stats.guard)) if math.isfinite(threads) else threads
    origin["arguments"] = f"{len(bound)}/{len(fn.params)} kernel parameters evaluated"
    return KernelAnalysis(fn.name, "cuda", grid, block, stats, threads, bound, launch.args,
                          origin, [n for n in notes if n])


def _omp(prog: Program, kref: KernelRef, launch: Launch) -> KernelAnalysis:
    region = prog.omp_region(kref.name)
    notes = []
    if not re.search(rf"_l{region.line}$", kref.name):
        notes.append(f"no target region at the line in {kref.name!r}; took the one at "
                     f"{region.file}:{region.line}")
    fn = prog.function(region.function) if region.function else None
    env = host_env(prog, fn, region.offset, split_args(launch.args))
    extra = _types(fn.body, fn.params)[1] if fn else {}
    stats = analyze(region.body, [], env, extra_pointers=extra)
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
    return KernelAnalysis(kref.name, "omp", grid, block, stats, 1.0, dict(env.vars),
                          launch.args, origin, notes)


def analyze_launch(kref: KernelRef, launch: Launch) -> KernelAnalysis:
    """Analyse one launch of *kref* from its program's sources."""
    if not kref.sources:
        raise LaunchError(f"kernel {kref.name!r}: no source files or program folder given")
    prog = load_program(tuple(kref.sources))
    lang = kref.language
    if lang is None:
        cuda_names = {k.name for k in prog.kernels}
        lang = "omp" if kref.name not in cuda_names and re.search(r"_l\d+$", kref.name) \
            and prog.omp else "cuda"
    if lang == "omp":
        return _omp(prog, kref, launch)
    return _cuda(prog, kref, launch)
