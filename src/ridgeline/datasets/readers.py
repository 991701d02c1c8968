"""Read ground-truth tables into one schema.

Canonical columns, added beside the originals:
``program`` (source without -cuda/-omp), ``source``, ``kernel``, ``model_type`` (cuda|omp),
``gpu`` (catalog name), ``device`` (as in the file), ``grid``, ``block`` (3-tuples of int),
``exe_args`` (str, "" when none) and, for measured rows, ``flops_sp``, ``flops_dp``,
``flops_hp``, ``int_ops`` (integer thread instructions), ``dram_bytes`` and ``time_ns``.
"""

from __future__ import annotations

import csv
import re
import tarfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline.errors import InputFileError, SchemaError
from ridgeline.hardware import load_catalog
from ridgeline.predictors.base import parse_dim3

__all__ = [
    "read_csv",
    "require_columns",
    "program_of",
    "canonical_gpu",
    "dims",
    "read_clgen_sources",
]

_SUFFIX = re.compile(r"-(cuda|omp|sycl|hip|ocl)$")


def program_of(source: str) -> str:
    """Program name: the benchmark folder name without its -cuda/-omp suffix."""
    return _SUFFIX.sub("", str(source))


def read_csv(path: str | Path, **kw: object) -> pd.DataFrame:
    """pandas.read_csv with errors that name the file and what went wrong."""
    p = Path(path)
    if not p.is_file():
        raise InputFileError(f"{str(p)!r} does not exist or is not a file")
    try:
        return pd.read_csv(p, **kw)  # type: ignore[call-overload]
    except UnicodeDecodeError as e:
        raise InputFileError(f"{p}: not UTF-8 text (byte {e.start}: {e.reason})") from None
    except (pd.errors.ParserError, csv.Error) as e:
        raise InputFileError(f"{p}: malformed CSV: {e}") from None
    except pd.errors.EmptyDataError:
        raise InputFileError(f"{p}: empty file, expected a CSV with a header row") from None


def require_columns(df: pd.DataFrame, columns: Iterable[str], where: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise SchemaError(
            f"{where}: missing columns {missing}; it has {list(df.columns)[:30]}"
        )


def canonical_gpu(devices: pd.Series) -> pd.Series:
    """Catalog names of the device strings in the data (``3080``, ``A100``, full names);
    strings the catalog does not know are kept as they are."""
    cat = load_catalog()
    names = {d: cat.get(str(d)).name if str(d) in cat else str(d) for d in devices.unique()}
    return devices.map(names)


def dims(series: pd.Series, what: str) -> pd.Series:
    parsed = {v: parse_dim3(v, what) for v in series.dropna().unique()}
    return series.map(lambda v: parsed.get(v) if isinstance(v, str) else None)


def clean_args(series: pd.Series) -> pd.Series:
    def clean(v: object) -> str:
        return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)

    return series.map(clean)


def read_clgen_sources(archive: Path) -> dict[str, str]:
    """``<sha1>.cl`` -> OpenCL source text from the CLgen tar.bz2."""
    out: dict[str, str] = {}
    try:
        with tarfile.open(archive, "r:bz2") as tf:
            for m in tf:
                if m.isfile() and m.name.endswith(".cl"):
                    f = tf.extractfile(m)
                    if f is not None:
                        out[Path(m.name).name] = f.read().decode("utf-8", errors="replace")
    except (tarfile.TarError, OSError) as e:
        raise InputFileError(f"{archive}: cannot read the kernel archive: {e}") from None
    return out
