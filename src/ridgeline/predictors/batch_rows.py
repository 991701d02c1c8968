"""Checks of ``predict-batch`` rows before anything is analysed, compiled or run.

A row is refused, with every problem named in its ``error`` text, when:

- ``source`` is not a folder name inside ``--sources``: empty, absolute, with a ``..``
  component, or resolving (through symlinks) to a place outside ``--sources`` or to
  ``--sources`` itself;
- ``kernel`` is empty;
- ``model_type`` is not one of :data:`MODEL_TYPES` (case-insensitive);
- ``grid_size`` or ``block_size`` is not 1 to 3 positive integers or exceeds CUDA's launch
  limits (:func:`ridgeline.predictors.base.check_launch_limits`; blank: taken from the
  program's launch site);
- ``exe_args`` is longer than :data:`MAX_EXE_ARGS_CHARS`, holds a NUL character or an
  integer that no C integer type holds (beyond +-(2^63-1));
- ``device`` is not a cataloged GPU.

The other rows go on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ridgeline.errors import RidgelineError, SchemaError, UnknownNameError
from ridgeline.predictors.base import check_launch_limits, parse_dim3

__all__ = ["MODEL_TYPES", "MAX_EXE_ARGS_CHARS", "MAX_ARG_INT", "row_problems", "source_dir"]

#: model types a row may name: CUDA, OpenMP offload, OpenCL
MODEL_TYPES = ("cuda", "omp", "opencl", "ocl")
#: the longest command line (exe_args) a row may give; HeCBench's longest is under 200
MAX_EXE_ARGS_CHARS = 4096
#: the largest integer argument: what a C ``long long`` (atoll, strtoll) holds
MAX_ARG_INT = 2**63 - 1
_INT_TOKEN = re.compile(r"^[+-]?\d+$")


def source_dir(sources: Path, source: str) -> Path:
    """The program folder *source* names inside *sources* (resolved); raises
    :class:`SchemaError` when it is not a folder name or path inside *sources*."""
    allowed = "allowed: a program folder's name (or relative path) inside --sources"
    if not source.strip():
        raise SchemaError(f"source is empty; {allowed}")
    if "\0" in source:
        raise SchemaError(f"source {source!r} holds a NUL character; {allowed}")
    if PurePosixPath(source).is_absolute() or PureWindowsPath(source).anchor:
        raise SchemaError(f"source {source!r} is an absolute path; {allowed}")
    if ".." in re.split(r"[/\\]", source):
        raise SchemaError(f"source {source!r} has a '..' component, which leads out of "
                          f"--sources; {allowed}")
    root = Path(sources).resolve()
    where = (root / source).resolve()
    if where == root or not where.is_relative_to(root):
        raise SchemaError(f"source {source!r} resolves to {str(where)!r}, not inside "
                          f"--sources {str(root)!r} (a symlink leading out?); {allowed}")
    return where


def row_problems(row: Mapping[Any, Any], sources: Path, catalog: Any) -> tuple[list[str], Any]:
    """Every problem of one batch row (``"<ErrorType>: <message>"``; empty when none) and
    its cataloged GPU (None when unknown)."""
    problems: list[str] = []
    gpu = None

    def check(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except RidgelineError as e:
            problems.append(f"{type(e).__name__}: {e}")
            return None

    check(source_dir, sources, str(row.get("source", "")))
    check(_kernel, str(row.get("kernel", "")))
    check(_model_type, str(row.get("model_type", "")))
    check(_sizes, str(row.get("grid_size", "")), str(row.get("block_size", "")))
    check(_exe_args, str(row.get("exe_args", "")))
    gpu = check(catalog.get, str(row.get("device", "")))
    return problems, gpu


def _kernel(kernel: str) -> None:
    if not kernel.strip():
        raise SchemaError("kernel is empty; give the kernel's name (CUDA function, or OpenMP "
                          "<func>_l<line>)")


def _model_type(model_type: str) -> None:
    if model_type.strip().lower() not in MODEL_TYPES:
        raise UnknownNameError("model type", model_type, MODEL_TYPES)


def _sizes(grid: str, block: str) -> None:
    g = parse_dim3(grid, "grid_size") if grid.strip() else None
    b = parse_dim3(block, "block_size") if block.strip() else None
    check_launch_limits(g, b, "grid_size", "block_size")


def _exe_args(args: str) -> None:
    if len(args) > MAX_EXE_ARGS_CHARS:
        raise SchemaError(f"exe_args has {len(args)} characters ({args[:40]!r}...); allowed "
                          f"at most {MAX_EXE_ARGS_CHARS}")
    if "\0" in args:
        raise SchemaError(f"exe_args {args!r} holds a NUL character, which no command line "
                          "can pass")
    for tok in args.split():
        if _INT_TOKEN.match(tok) and abs(int(tok)) > MAX_ARG_INT:
            shown = tok if len(tok) <= 30 else f"{tok[:12]}...({len(tok)} digits)"
            raise SchemaError(f"exe_args integer {shown} does not fit a 64-bit integer; "
                              f"allowed -{MAX_ARG_INT} to {MAX_ARG_INT}")
