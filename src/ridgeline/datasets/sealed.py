"""The sealed slice: a fifth of the programs, chosen by a salted hash, kept out of development.

A program is sealed when the first eight hex digits of ``sha256(SEALED_SALT + ":" + program)``,
read as an integer, are divisible by ``SEALED_MODULUS``. The salt and the rule were fixed and
committed before any figure was measured on them, so no list was chosen by hand; a program
the data gains later falls on one side or the other by the same rule. Every choice made while
developing (features, targets, hyperparameters, counting rules) is checked on the development
programs only; figures on the sealed programs are reported beside the CV, never tuned against.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from ridgeline.datasets.readers import program_of
from ridgeline.errors import SchemaError

__all__ = ["SEALED_MODULUS", "SEALED_SALT", "is_sealed", "sealed_mask", "split_sealed"]

SEALED_SALT = "ridgeline-sealed-v1-2026-11-28"
SEALED_MODULUS = 5


def is_sealed(program: str) -> bool:
    """Whether *program* (a benchmark name, with or without its -cuda/-omp suffix) is sealed."""
    name = program_of(str(program))
    digest = hashlib.sha256(f"{SEALED_SALT}:{name}".encode()).hexdigest()
    return int(digest[:8], 16) % SEALED_MODULUS == 0


def sealed_mask(df: pd.DataFrame, column: str = "program") -> np.ndarray:
    """Boolean array: True for the rows of *df* whose *column* names a sealed program."""
    if column not in df.columns:
        raise SchemaError(
            f"cannot find the sealed slice: no column {column!r}; it has {list(df.columns)[:20]}"
        )
    values = df[column].astype(str)
    verdict = {v: is_sealed(v) for v in values.unique()}
    return values.map(verdict).to_numpy(dtype=bool)


def split_sealed(df: pd.DataFrame, column: str = "program") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(development rows, sealed rows) of *df*, each keeping its index."""
    mask = sealed_mask(df, column)
    return df[~mask], df[mask]
