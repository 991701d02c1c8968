"""The OpenCL time regressors (GBM, LLM) scored on kernel-grouped splits: a kernel is never in
training and test at once (90/10, or k folds)."""

from __future__ import annotations

from typing import Any

from ridgeline.errors import SchemaError, UsageError
from ridgeline.evaluation.metrics import regression
from ridgeline.predictors.gbm_regressor import GBMRegressor

__all__ = ["grouped_split", "grouped_folds", "make_regressor", "evaluate_split",
           "evaluate_folds"]


def grouped_split(groups: Any, test_frac: float = 0.1, seed: int = 4839) -> tuple[Any, Any]:
    """Boolean masks (train, test): a kernel never sits in both."""
    import numpy as np

    uniq = np.array(sorted(set(groups)))
    rng = np.random.default_rng(seed)
    rng.shuffle(uniq)
    n_test = max(1, int(round(test_frac * len(uniq))))
    test = set(uniq[:n_test].tolist())
    mask = np.array([g in test for g in groups], dtype=bool)
    return ~mask, mask


def grouped_folds(groups: Any, k: int = 5, seed: int = 4839) -> list[Any]:
    """*k* boolean test masks over the rows: every kernel is held out exactly once."""
    import numpy as np

    uniq = np.array(sorted(set(groups)))
    np.random.default_rng(seed).shuffle(uniq)
    g = np.asarray(list(groups))
    return [np.isin(g, part) for part in np.array_split(uniq, k)]


def make_regressor(model: str, backbone: str | None = None, finetune: bool = False,
                   seed: int = 0) -> Any:
    if model == "gbm":
        return GBMRegressor(random_state=seed)
    if model == "llm":
        from ridgeline.predictors.llm_regressor import LLMRegressor

        return LLMRegressor(backbone=backbone, freeze=not finetune, random_state=seed)
    raise SchemaError(f"unknown regressor {model!r}; use gbm or llm")


def evaluate_split(rows: Any, model: Any, seed: int = 4839, progress: bool = False
                   ) -> tuple[dict[str, Any], Any]:
    """Fit on the 90% kernels, score the held-out 10%: (metrics, fitted model)."""
    tr, te = grouped_split(rows["kernel_file"].tolist(), 0.1, seed)
    model.fit(rows[tr].reset_index(drop=True), progress=progress)
    pred = model.predict_rows(rows[te].reset_index(drop=True), progress=progress)
    m = regression(rows[te]["time_us"].to_numpy(), pred)
    m.update(train_rows=int(tr.sum()), test_rows=int(te.sum()),
             train_kernels=int(rows[tr]["kernel_file"].nunique()),
             test_kernels=int(rows[te]["kernel_file"].nunique()))
    return m, model


def evaluate_folds(rows: Any, make: Any, k: int = 5, seed: int = 4839,
                   progress: bool = False) -> dict[str, Any]:
    """Kernel-grouped *k*-fold cross-validation: ``make()`` gives a fresh regressor per
    fold; metrics over all rows (each predicted by the fold that held its kernel out),
    plus each fold's MAPE."""
    import numpy as np

    kernels = int(rows["kernel_file"].nunique())
    if kernels < k:
        raise UsageError(f"{k}-fold kernel-grouped cross-validation needs at least {k} "
                         f"kernels with timed samples; the rows have {kernels}")
    pred = np.full(len(rows), np.nan)
    per_fold = []
    for te in grouped_folds(rows["kernel_file"].tolist(), k, seed):
        model = make().fit(rows[~te].reset_index(drop=True), progress=progress)
        pred[te] = model.predict_rows(rows[te].reset_index(drop=True), progress=progress)
        t = rows[te]["time_us"].to_numpy()
        per_fold.append(float(np.mean(np.abs(pred[te] - t) / t)))
    m: dict[str, Any] = dict(regression(rows["time_us"].tolist(), pred.tolist()))
    m.update(folds=k, fold_mape=per_fold, kernels=int(rows["kernel_file"].nunique()))
    return m
