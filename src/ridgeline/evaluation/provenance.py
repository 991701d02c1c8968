"""Provenance recorded in every result file."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
from pathlib import Path
from typing import Any

from ridgeline import __version__

__all__ = ["provenance", "git_hash"]


def git_hash() -> str | None:
    """The commit of the source tree ridgeline runs from, with ``+dirty`` when modified."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=here, capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return rev + ("+dirty" if dirty.strip() else "")


def provenance(**extra: Any) -> dict[str, Any]:
    """Version, git hash, time, machine, plus whatever the caller adds (dataset, split,
    predictor and its settings, seed)."""
    return {
        "ridgeline_version": __version__,
        "git": git_hash(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}",
        **extra,
    }
