"""Nsight Compute profile tables -> counts, intensities and labels.

Two schemas are recognised from their columns:

* ``profiling``: the RTX 3080 rows of the 2025 roofline paper (``xtime`` in ns, ``traffic``
  in DRAM bytes/s, ``spPerf``/``dpPerf`` in FLOP/s, ``intops`` integer instructions, and the
  measured intensities ``spAI``/``dpAI``/``intAI`` when present);
* ``kernel-performance``: one row per launch with ``SP_FLOP``, ``DP_FLOP``, ``HP_FLOP``,
  ``int_ops``, ``bytes_total`` and ``xtime_ns``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ridgeline.errors import SchemaError
from ridgeline.hardware import GPU, Counts, LabelRule, load_catalog

__all__ = ["SCHEMAS", "detect_schema", "row_counts", "label_table", "LabelResult"]

SCHEMAS: dict[str, tuple[str, ...]] = {
    "profiling": ("xtime", "traffic", "spPerf", "dpPerf", "intops"),
    "kernel-performance": ("SP_FLOP", "DP_FLOP", "HP_FLOP", "int_ops", "bytes_total"),
}
_DEVICE_COLUMN = {"profiling": "device", "kernel-performance": "device"}
_AI_COLUMNS = {"sp": "spAI", "dp": "dpAI", "int": "intAI"}


def detect_schema(df: pd.DataFrame, where: str) -> str:
    """Which profile schema a table follows; the error names the columns each one needs."""
    for name, cols in SCHEMAS.items():
        if all(c in df.columns for c in cols):
            return name
    wanted = "; ".join(f"{n}: {list(c)}" for n, c in SCHEMAS.items())
    best = max(SCHEMAS, key=lambda n: sum(c in df.columns for c in SCHEMAS[n]))
    missing = [c for c in SCHEMAS[best] if c not in df.columns]
    raise SchemaError(
        f"{where}: columns do not match a known profile schema (closest: {best}, missing "
        f"{missing}). Expected one of: {wanted}"
    )


def _num(df: pd.DataFrame, col: str) -> np.ndarray:
    return pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)


def row_counts(df: pd.DataFrame, schema: str) -> list[Counts]:
    """Per-row counts (NaN where a value is missing or not a number)."""
    if schema == "kernel-performance":
        cols = [_num(df, c) for c in ("SP_FLOP", "DP_FLOP", "HP_FLOP", "int_ops", "bytes_total")]
    else:
        secs = _num(df, "xtime") * 1e-9
        hp = np.zeros(len(df))
        cols = [_num(df, "spPerf") * secs, _num(df, "dpPerf") * secs, hp,
                _num(df, "intops"), _num(df, "traffic") * secs]
    return [Counts(*map(float, vals)) for vals in zip(*cols, strict=True)]


@dataclass
class LabelResult:
    table: pd.DataFrame
    schema: str
    n_unlabelled: int


def _row_gpu(df: pd.DataFrame, gpu: GPU | None, schema: str) -> list[GPU | str]:
    """The GPU of each row: the one given, else the row's device column (an unknown device
    becomes the reason string for that row)."""
    if gpu is not None:
        return [gpu] * len(df)
    col = _DEVICE_COLUMN[schema]
    if col not in df.columns:
        raise SchemaError(f"no --gpu given and the table has no {col!r} column to take it from")
    cat = load_catalog()
    found: dict[str, GPU | str] = {}
    for d in df[col].astype(str).unique():
        found[d] = cat.get(d) if d in cat else f"device {d!r} is not in the GPU catalog"
    return [found[d] for d in df[col].astype(str)]


def label_table(
    df: pd.DataFrame, rule: LabelRule, gpu: GPU | None = None, where: str = "input"
) -> LabelResult:
    """Add ``label`` (Compute/Bandwidth) and ``label_note`` (why a row has no label)."""
    schema = detect_schema(df, where)
    counts = row_counts(df, schema)
    gpus = _row_gpu(df, gpu, schema)
    use_ai = rule.kind == "all-below" and all(
        _AI_COLUMNS.get(p) in df.columns for p in rule.precisions
    )
    ai_vals = {p: _num(df, _AI_COLUMNS[p]) for p in rule.precisions} if use_ai else {}
    labels, notes = [], []
    for i, (c, g) in enumerate(zip(counts, gpus, strict=True)):
        if isinstance(g, str):
            labels.append("")
            notes.append(g)
            continue
        if use_ai:
            res = rule.classify_intensities({p: float(v[i]) for p, v in ai_vals.items()}, g)
        else:
            res = rule.classify(c, g)
        labels.append(res.value or "")
        notes.append(res.reason if res.value is None else "")
    out = df.copy()
    out["label"] = labels
    out["label_note"] = notes
    return LabelResult(out, schema, sum(1 for v in labels if not v))
