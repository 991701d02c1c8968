"""Read ground-truth tables into one schema.

Canonical columns, added beside the originals:
``program`` (source without -cuda/-omp), ``source``, ``kernel``, ``model_type`` (cuda|omp),
``gpu`` (catalog name), ``device`` (as in the file), ``grid``, ``block`` (3-tuples of int),
``exe_args`` (str, "" when none) and, for measured rows, ``flops_sp``, ``flops_dp``,
``flops_hp``, ``int_ops`` (integer thread instructions), ``dram_bytes`` and ``time_ns``.
"""

from __future__ import annotations

import csv
import io
import re
import tarfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline.errors import InputFileError, SchemaError
from ridgeline.hardware import load_catalog
from ridgeline.launch import parse_dim3

__all__ = [
    "read_csv",
    "read_strict_csv",
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


#: ragged lines an error lists at most
_SHOWN_LINES = 10


def read_strict_csv(path: str | Path) -> tuple[pd.DataFrame, list[int]]:
    """Every field of a CSV with a header as text ("" when empty), and the line each row
    starts on (blank lines are skipped).

    The whole file is refused (:class:`InputFileError` naming the lines and their field
    counts) when any row has more or fewer fields than the header. Which field is extra or
    missing cannot be told (a trailing comma and a dropped middle column look alike), so any
    guess could move values into the wrong columns silently - pandas takes one trailing comma
    on the first row as an index column and shifts every row - and nothing should run on
    such a file; one corrected file then runs whole.
    """
    p = Path(path)
    if not p.is_file():
        raise InputFileError(f"{str(p)!r} does not exist or is not a file")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise InputFileError(f"{p}, line {line}: not UTF-8 text (byte {e.start}: "
                             f"{e.reason})") from None
    header, rows, lines = _records(text, p)
    if header is None:
        raise InputFileError(f"{p}: empty file, expected a CSV with a header row")
    _check_header(header, p)
    ragged = [(n, len(r)) for n, r in zip(lines, rows, strict=True) if len(r) != len(header)]
    if ragged:
        shown = ", ".join(f"line {n} has {k}" for n, k in ragged[:_SHOWN_LINES])
        more = f" and {len(ragged) - _SHOWN_LINES} more lines" if len(ragged) > _SHOWN_LINES \
            else ""
        raise InputFileError(
            f"{p}: {len(ragged)} row{'s do' if len(ragged) > 1 else ' does'} not have the "
            f"header's {len(header)} fields "
            f"({shown}{more}); a trailing or missing comma shifts columns, so the file is "
            "not read: give every row exactly one field per header column")
    return pd.DataFrame(rows, columns=header, dtype=str), lines


def _records(text: str, p: Path) -> tuple[list[str] | None, list[list[str]], list[int]]:
    """The header, the other records and the line each starts on (blank lines skipped)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    start = 1
    try:
        for rec in reader:
            if rec and header is None:
                header = rec
            elif rec:
                rows.append(rec)
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as e:
        raise InputFileError(f"{p}, line {reader.line_num}: malformed CSV: {e}") from None
    return header, rows, lines


def _check_header(header: list[str], p: Path) -> None:
    dup = sorted({h for h in header if h and header.count(h) > 1})
    if dup:
        raise InputFileError(f"{p}: header columns {dup} appear more than once; give each "
                             "column one distinct name")


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
