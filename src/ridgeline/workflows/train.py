"""``ridgeline train``: rebuild the shipped count model from program sources, or refit it from a
feature table built earlier, and its paper-A program-grouped CV figures."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ridgeline.errors import InputFileError, UsageError
from ridgeline.evaluation.hecbench_eval import cv_paper_a
from ridgeline.evaluation.out_of_program import set_model_params
from ridgeline.learning.shipped import MODEL_FILE, TABLE_FILE, save_model
from ridgeline.learning.training import train_from_table
from ridgeline.predictors.training import build_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["models_dir", "build_feature_table", "read_feature_table", "fit_and_evaluate"]


def models_dir() -> Path:
    """The installed package's models folder (where the shipped model and table live)."""
    return Path(str(resources.files("ridgeline").joinpath("models")))


def build_feature_table(sources: Path, data_dir: str | None, out: str | None,
                        jobs: int | None) -> tuple[pd.DataFrame, Path]:
    """The feature table of the programs in *sources*, written to *out* (default: the models
    folder): (table, that folder)."""
    if not sources.is_dir():
        raise InputFileError(f"--sources {str(sources)!r} is not a folder")
    dest = Path(out) if out else models_dir()
    dest.mkdir(parents=True, exist_ok=True)
    table = build_table(sources, data_dir, jobs=jobs)
    table.to_parquet(dest / TABLE_FILE, index=False)
    return table, dest


def read_feature_table(table_file: str | None, out: str | None
                       ) -> tuple[pd.DataFrame, Path, Path]:
    """A feature table built earlier (default: the shipped one), copied to *out* when that is
    another folder: (table, the file read, the folder the model goes to). The refit takes
    the counted table as it is now (after new CPU-execution counts)."""
    import pandas as pd

    models = models_dir()
    src = Path(table_file) if table_file else models / TABLE_FILE
    if not src.is_file():
        raise InputFileError(f"feature table {str(src)!r} does not exist (build one with "
                             "`ridgeline train --sources DIR`)")
    dest = Path(out) if out else models
    dest.mkdir(parents=True, exist_ok=True)
    table = pd.read_parquet(src)
    if dest.resolve() != src.parent.resolve():
        table.to_parquet(dest / TABLE_FILE, index=False)
    return table, src, dest


def fit_and_evaluate(table: pd.DataFrame, dest: Path, max_iter: int | None = None
                     ) -> tuple[Path, dict[str, Any]]:
    """Fit the count model on *table*, save it in *dest*, and score the paper-A set by
    program-grouped 5-fold CV: (the model file, the CV figures)."""
    if max_iter is not None and max_iter < 1:
        raise UsageError(f"--max-iter must be at least 1, got {max_iter}")
    kw = {"max_iter": max_iter} if max_iter else {}
    set_model_params(**kw)
    model = train_from_table(table, **kw)
    save_model(model, dest / MODEL_FILE)
    return dest / MODEL_FILE, cv_paper_a(table)
