"""Program-grouped splits: a program is never in two folds."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from ridgeline.errors import SchemaError, UsageError

__all__ = ["group_kfold", "leave_one_gpu_out", "train_test_by_program"]


def _groups(df: pd.DataFrame, group: str) -> np.ndarray:
    if group not in df.columns:
        raise SchemaError(f"cannot split by {group!r}: no such column")
    return df[group].astype(str).to_numpy()


def group_kfold(
    df: pd.DataFrame, n_splits: int = 5, seed: int = 4839, group: str = "program"
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield (train_idx, test_idx) positions; groups are shuffled with *seed*, then dealt
    into folds of balanced row counts."""
    from sklearn.model_selection import GroupKFold  # lazy: scikit-learn is slow to import

    groups = _groups(df, group)
    uniq = np.unique(groups)
    if n_splits < 2 or n_splits > len(uniq):
        raise UsageError(
            f"n_splits={n_splits} must be between 2 and the number of programs ({len(uniq)})"
        )
    rng = np.random.default_rng(seed)
    relabel = dict(zip(uniq, rng.permutation(len(uniq)), strict=True))
    coded = np.array([relabel[g] for g in groups])
    yield from GroupKFold(n_splits=n_splits).split(np.zeros(len(df)), groups=coded)


def leave_one_gpu_out(df: pd.DataFrame) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Yield (gpu, train_idx, test_idx) holding each GPU out in turn."""
    gpus = _groups(df, "gpu")
    for g in np.unique(gpus):
        yield g, np.flatnonzero(gpus != g), np.flatnonzero(gpus == g)


def train_test_by_program(
    df: pd.DataFrame, test_size: float = 0.2, seed: int = 4839, group: str = "program"
) -> tuple[np.ndarray, np.ndarray]:
    """One grouped split with about *test_size* of the programs in the test part."""
    if not 0 < test_size < 1:
        raise UsageError(f"test_size must be in (0, 1), got {test_size}")
    groups = _groups(df, group)
    uniq = np.unique(groups)
    rng = np.random.default_rng(seed)
    n_test = max(1, round(len(uniq) * test_size))
    test_groups = set(rng.choice(uniq, size=n_test, replace=False))
    mask = np.array([g in test_groups for g in groups])
    return np.flatnonzero(~mask), np.flatnonzero(mask)
