"""``ridgeline train``: rebuild the shipped model and report its program-grouped figures."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from ridgeline.errors import InputFileError
from ridgeline.predictors.learned import MODEL_FILE, TABLE_FILE, save_model
from ridgeline.predictors.training import build_table, train_from_table

__all__ = ["train_command"]


def train_command(sources: Path, data_dir: str | None, out: str | None,
                  jobs: int | None) -> int:
    if not sources.is_dir():
        raise InputFileError(f"--sources {str(sources)!r} is not a folder")
    dest = Path(out) if out else Path(str(resources.files("ridgeline").joinpath("models")))
    dest.mkdir(parents=True, exist_ok=True)
    table = build_table(sources, data_dir, jobs=jobs)
    n_err = int((table["error"].fillna("") != "").sum())
    print(f"analysed {len(table)} rows ({n_err} could not be analysed)")
    table.to_parquet(dest / TABLE_FILE, index=False)
    model = train_from_table(table)
    save_model(model, dest / MODEL_FILE)
    print(f"wrote {dest / MODEL_FILE} and {dest / TABLE_FILE}")
    from ridgeline.evaluation.hecbench_eval import cv_paper_a

    figs = cv_paper_a(table)
    print("paper-A set (RTX 3080), program-grouped 5-fold CV:")
    print(json.dumps({k: v for k, v in figs.items() if not k.startswith("_")}, indent=2,
                     default=str))
    return 0
