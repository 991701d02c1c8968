"""Where the ground-truth data lives: --data-dir, else $RIDGELINE_DATA."""

from __future__ import annotations

import os
from pathlib import Path

from ridgeline.errors import MissingDataError

__all__ = ["data_dir", "data_file"]

ENV = "RIDGELINE_DATA"


def data_dir(explicit: str | Path | None = None) -> Path:
    """The data folder; a clear error when neither source names an existing folder."""
    if explicit:
        p, origin = Path(explicit), "--data-dir"
    elif os.environ.get(ENV):
        p, origin = Path(os.environ[ENV]), f"${ENV}"
    else:
        raise MissingDataError(
            f"no data folder given: pass --data-dir DIR or set {ENV} "
            "(e.g. export RIDGELINE_DATA=../shared/data)"
        )
    if not p.is_dir():
        raise MissingDataError(f"data folder {str(p)!r} (from {origin}) does not exist")
    return p


def data_file(relative: str, explicit: str | Path | None = None) -> Path:
    """A file inside the data folder, with an error naming both when it is missing."""
    root = data_dir(explicit)
    f = root / relative
    if not f.is_file():
        raise MissingDataError(f"data file {relative!r} is missing from data folder {str(root)!r}")
    return f
