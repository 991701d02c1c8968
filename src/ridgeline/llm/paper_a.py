"""Prompts for the paper-a rows (the 2025 paper's balanced HeCBench set) and their results
frame."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.errors import RidgelineError, UsageError
from ridgeline.hardware import GPU, LabelRule, get_gpu, get_rule
from ridgeline.llm.runner import Item, ItemResult
from ridgeline.llm.scenarios import KernelPrompt, Scenario
from ridgeline.sources.context import kernel_context, program_context
from ridgeline.sources.tokens import truncate_tokens

__all__ = [
    "hecbench_sources_root",
    "omp_function_name",
    "gpu_peaks",
    "build_items",
    "results_frame",
]

_OMP_RE = re.compile(r"_(?:[^_]+_){4}(.*)(_l\d+)$")


def hecbench_sources_root(explicit: str | Path | None = None) -> Path:
    """HeCBench program folders: *explicit*, else $RIDGELINE_HECBENCH_SRC, else
    ``external/gpuFLOPBench/src`` under the current folder."""
    p = Path(explicit or os.environ.get("RIDGELINE_HECBENCH_SRC", "external/gpuFLOPBench/src"))
    return p


@lru_cache(maxsize=512)
def omp_function_name(mangled: str) -> str:
    """``__omp_offloading_<dev>_<file>_<func>_l<line>`` -> the demangled host function (via
    c++filt when present, else the mangled name)."""
    m = _OMP_RE.search(mangled)
    if not m:
        return mangled
    name = m.group(1)
    tool = shutil.which("c++filt") or shutil.which("llvm-cxxfilt")
    if tool and name.startswith("_Z"):
        try:
            out = subprocess.run([tool, name], capture_output=True, text=True, timeout=5)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return name


def gpu_peaks(gpu: GPU, rule: LabelRule) -> dict[str, float]:
    """Peaks in G(FL)OP/s as the rule computes them (paper-a: base clock, integer ops per
    FP32 lane: RTX 3080 SP 25067.52, DP 391.68, INT 12533.76)."""
    return {p: gpu.peak(p, rule.clock, rule.int_lanes) / 1e9 for p in ("sp", "dp", "int")}


@lru_cache(maxsize=64)
def _context(folder: str, max_tokens: int | None, kernel: str | None = None,
             language: str | None = None) -> str:
    if kernel is None:
        return program_context(folder, max_tokens=max_tokens)
    text = kernel_context(folder, kernel, language)
    return truncate_tokens(text, max_tokens) if max_tokens else text


def _row_prompt(row: Any, gpu: GPU, rule: LabelRule) -> KernelPrompt:
    lang = str(row.model_type)
    kernel = str(row.kernel)
    return KernelPrompt(
        kernel=kernel,
        language=lang,
        gpu=str(getattr(row, "device", "") or gpu.name),
        peaks=gpu_peaks(gpu, rule),
        bandwidth_gbs=gpu.dram_bandwidth_gbps,
        block=str(getattr(row, "_block_text", "") or row.block),
        grid=str(getattr(row, "_grid_text", "") or row.grid),
        args=str(row.exe_args or ""),
        function=omp_function_name(kernel) if lang == "omp" else None,
    )


def build_items(
    df: pd.DataFrame,
    scenario: Scenario,
    sources_root: Path | None = None,
    gpu: str = "rtx3080",
    rule: str = "paper-a",
    max_source_tokens: int | None = None,
    extras: Callable[[Any, KernelPrompt], None] | None = None,
    context: str = "program",
) -> list[Item]:
    """One item per row. Sources come from ``<sources_root>/<source>/``; *extras* may add
    SASS or tool counts to the prompt. *context* "program" gives all source files (the
    paper's way), "kernel" the kernel-only extraction. A row whose prompt cannot be built
    becomes an item with an error (counted wrong), never an exception."""
    g, r = get_gpu(gpu), get_rule(rule)
    root = sources_root or hecbench_sources_root()
    d = df.copy()
    d["_block_text"] = df.get("Block Size", "")
    d["_grid_text"] = df.get("Grid Size", "")
    items = []
    row: Any
    for idx, row in zip(d.index, d.itertuples(index=False), strict=True):
        meta = {"row": idx, "source": row.source, "kernel": row.kernel,
                "model_type": row.model_type, "is_train": bool(getattr(row, "is_train", False))}
        truth = str(row.label) if hasattr(row, "label") else None
        try:
            prompt = _row_prompt(row, g, r)
            if "source" in scenario.needs:
                folder = Path(root) / str(row.source)
                if not folder.is_dir():
                    raise UsageError(
                        f"program sources of {row.source!r} not found at {folder}; set "
                        "$RIDGELINE_HECBENCH_SRC to the gpuFLOPBench src folder"
                    )
                if context == "kernel":
                    prompt.source = _context(str(folder), max_source_tokens, str(row.kernel),
                                             str(row.model_type))
                else:
                    prompt.source = _context(str(folder), max_source_tokens)
            if "profile" in scenario.needs and hasattr(row, "spAI"):
                prompt.intensities = {"sp": float(row.spAI), "dp": float(row.dpAI),
                                      "int": float(row.intAI)}
            if extras is not None:
                extras(row, prompt)
            msgs = scenario.render(prompt)
            items.append(Item(str(idx), msgs, truth, meta))
        except RidgelineError as e:
            items.append(Item(str(idx), None, truth, meta, error=f"{type(e).__name__}: {e}"))
    return items


def results_frame(results: list[ItemResult]) -> pd.DataFrame:
    return pd.DataFrame([r.row() for r in results])
