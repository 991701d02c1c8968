"""Analyse many launches at once: rows grouped by program, spread over processes.

One bad row gives that row an ``error`` text and never stops the batch.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.analysis.kernel import analyze_launch
from ridgeline.errors import RidgelineError
from ridgeline.launch import KernelRef, Launch
from ridgeline.learning.featvec import LAUNCH_COLUMNS, launch_features
from ridgeline.predictors.analytic import require_sizes
from ridgeline.sources.build import ProgramBuild

__all__ = ["analyze_rows", "row_launch"]

_LANG = {"cuda": "cuda", "omp": "omp", "opencl": "opencl", "ocl": "opencl"}


def row_launch(row: dict[str, Any]) -> tuple[KernelRef, Launch]:
    """KernelRef and Launch of one batch row (kernel-performance.csv columns)."""
    args = row.get("exe_args")
    args = "" if args is None or (isinstance(args, float) and math.isnan(args)) else str(args)
    launch = Launch.parse(_blank(row.get("grid_size")), _blank(row.get("block_size")), args)
    lang = _LANG.get(str(row.get("model_type", "")).strip().lower())
    return KernelRef(str(row["kernel"]), (Path(row["_dir"]),), lang,
                     build=row.get("_build")), launch


def _blank(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


def _one(row: dict[str, Any]) -> dict[str, Any]:
    try:
        if not Path(row["_dir"]).is_dir():
            raise RidgelineError(f"program folder {row['_dir']} does not exist")
        kref, launch = row_launch(row)
        a = analyze_launch(kref, launch)
        require_sizes(a)
        out: dict[str, Any] = launch_features(a)
        out["error"] = ""
        out["notes"] = "; ".join(a.notes)
        return out
    except RidgelineError as e:
        return {"error": f"{type(e).__name__}: {e}"}
    except Exception as e:  # noqa: BLE001 - one bad row never stops the batch
        return {"error": f"internal {type(e).__name__}: {e}"}


def _chunk(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_one(r) for r in rows]


def analyze_rows(df: pd.DataFrame, sources: Path, jobs: int | None = None,
                 progress: bool = True, build: ProgramBuild | None = None) -> pd.DataFrame:
    """Launch features (LAUNCH_COLUMNS + error + notes) for each row, in row order; *build*:
    the user's -D/-I/compile_commands.json, joined with each program folder's makefiles."""
    recs: list[dict[str, Any]] = [{str(k): v for k, v in r.items()}
                                  for r in df.to_dict("records")]
    for r in recs:
        r["_dir"] = str(Path(sources) / str(r.get("source", "")))
        r["_build"] = build
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(recs):
        groups.setdefault(r["_dir"], []).append(i)
    order = list(groups.values())
    results: list[dict[str, Any] | None] = [None] * len(recs)
    jobs = jobs or os.cpu_count() or 1
    bar = _bar(len(recs), progress)
    if jobs <= 1 or len(order) <= 1:
        it: Iterable[list[dict[str, Any]]] = (_chunk([recs[i] for i in g]) for g in order)
        _collect(it, order, results, bar)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            it = ex.map(_chunk, [[recs[i] for i in g] for g in order], chunksize=4)
            _collect(it, order, results, bar)
    bar.close()
    cols = LAUNCH_COLUMNS + ["error", "notes"]
    return pd.DataFrame([r or {"error": "not analysed"} for r in results], columns=cols)


def _collect(it: Iterable[list[dict[str, Any]]], order: list[list[int]],
             results: list[dict[str, Any] | None], bar: Any) -> None:
    for g, res in zip(order, it, strict=True):
        for i, r in zip(g, res, strict=True):
            results[i] = r
        bar.update(len(g))


def _bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="row", disable=not enabled, desc="analysing", leave=False)
