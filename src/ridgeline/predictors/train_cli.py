"""``ridgeline train``: rebuild the shipped model and report its program-grouped figures."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ridgeline.errors import InputFileError, UsageError
from ridgeline.predictors.learned import MODEL_FILE, TABLE_FILE, save_model
from ridgeline.predictors.training import build_table, train_from_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["train_command", "refit_command"]


def _models_dir() -> Path:
    """The installed package's models folder (where the shipped model and table live)."""
    return Path(str(resources.files("ridgeline").joinpath("models")))


def train_command(sources: Path, data_dir: str | None, out: str | None,
                  jobs: int | None, max_iter: int | None = None) -> int:
    if not sources.is_dir():
        raise InputFileError(f"--sources {str(sources)!r} is not a folder")
    dest = Path(out) if out else _models_dir()
    dest.mkdir(parents=True, exist_ok=True)
    table = build_table(sources, data_dir, jobs=jobs)
    n_err = int((table["error"].fillna("") != "").sum())
    print(f"analysed {len(table)} rows ({n_err} could not be analysed)")
    table.to_parquet(dest / TABLE_FILE, index=False)
    return _fit_and_report(table, dest, max_iter)


def refit_command(table_file: str | None, out: str | None,
                  max_iter: int | None = None) -> int:
    """Refit the count model from a feature table built earlier (default: the shipped one)
    and the counted table as it is now (after new CPU-execution counts)."""
    import pandas as pd

    models = _models_dir()
    src = Path(table_file) if table_file else models / TABLE_FILE
    if not src.is_file():
        raise InputFileError(f"feature table {str(src)!r} does not exist (build one with "
                             "`ridgeline train --sources DIR`)")
    dest = Path(out) if out else models
    dest.mkdir(parents=True, exist_ok=True)
    table = pd.read_parquet(src)
    print(f"refitting from {src} ({len(table)} rows)")
    if dest.resolve() != src.parent.resolve():
        table.to_parquet(dest / TABLE_FILE, index=False)
    return _fit_and_report(table, dest, max_iter)


def _fit_and_report(table: pd.DataFrame, dest: Path, max_iter: int | None) -> int:
    from ridgeline.evaluation.hecbench_eval import cv_paper_a, set_model_params

    if max_iter is not None and max_iter < 1:
        raise UsageError(f"--max-iter must be at least 1, got {max_iter}")
    kw = {"max_iter": max_iter} if max_iter else {}
    set_model_params(**kw)
    model = train_from_table(table, **kw)
    save_model(model, dest / MODEL_FILE)
    print(f"wrote {dest / MODEL_FILE} and {dest / TABLE_FILE}")
    figs = cv_paper_a(table)
    print("paper-A set (RTX 3080), program-grouped 5-fold CV:")
    print(json.dumps({k: v for k, v in figs.items() if not k.startswith("_")}, indent=2,
                     default=str))
    return 0
