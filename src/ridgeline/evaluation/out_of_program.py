"""Predictions of rows by models that never saw the row's program: how every protocol that
scores the learned model keeps a program out of the training when it is tested.

:func:`prepared_rows` turns the feature table into the rows a model is fitted on and asked
about (the rows that could be analysed, with the GPU and counted columns and the measured
targets as ``m_*``); :func:`fit_rows` fits the learned model on such rows (hyperparameters
from :func:`set_model_params`); :func:`out_of_program_predictions` predicts test rows from
training rows: under program-grouped cross-validation when they share programs, by one model
of every training row when they share none (the sealed programs' rows).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ridgeline.datasets import group_kfold
from ridgeline.learning.columns import TARGETS
from ridgeline.learning.shipped import fit_table
from ridgeline.learning.training import with_gpu_features

__all__ = ["fit_rows", "out_of_program_predictions", "prepared_rows", "set_model_params"]

_MODEL_KW: dict[str, Any] = {}


def prepared_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the feature *table* that could be analysed (no ``error``), with the GPU and
    counted columns, their identifiers, and the measured targets as ``m_<target>``."""
    t = table[table["error"].fillna("") == ""].reset_index(drop=True)
    full = with_gpu_features(t)
    for c in ("dataset", "program", "source", "kernel", "gpu", "label", "model_type"):
        full[c] = t[c].to_numpy()
    for c in TARGETS:
        full["m_" + c] = t[c].to_numpy(float)
    return full


def set_model_params(**kw: Any) -> None:
    """CountModel hyperparameters :func:`fit_rows` uses (none given: CountModel's defaults)."""
    _MODEL_KW.clear()
    _MODEL_KW.update(kw)


def fit_rows(train: pd.DataFrame) -> Any:
    """The learned model fitted on prepared rows (:func:`prepared_rows`), their measured
    targets as the targets."""
    y = train[["m_" + t for t in TARGETS]].rename(columns=lambda c: c[2:])
    return fit_table(pd.concat([train.drop(columns=[c for c in TARGETS if c in train]), y],
                               axis=1), **_MODEL_KW)


def out_of_program_predictions(train: pd.DataFrame, test: pd.DataFrame, folds: int = 5,
                               seed: int = 4839) -> pd.DataFrame:
    """Predictions (indexed like *test*) for the prepared rows *test* by models fitted on the
    prepared rows *train*, none of which saw the program of a row it predicts.

    When *test* shares programs with *train*, *test* is split into *folds* program-grouped
    folds (:func:`ridgeline.datasets.group_kfold` with *seed*) and each fold is predicted by a
    model of the *train* rows of the other programs. When they share none (rows of programs
    kept out of development), one model of every *train* row predicts them all: what every
    fold's model would be (the fit is deterministic), fitted once."""
    if not set(test["program"]) & set(train["program"]):
        return fit_rows(train).predict(test).set_index(test.index)
    parts = []
    for _, te in group_kfold(test, folds, seed):
        fold = test.iloc[te]
        model = fit_rows(train[~train["program"].isin(set(fold["program"])).to_numpy()])
        parts.append(model.predict(fold).set_index(fold.index))
    return pd.concat(parts).sort_index()
