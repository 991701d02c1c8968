"""Atomic file writes for caches shared by processes and threads.

Each write goes to a temporary file with a name of its own (pid, thread and random suffix)
in the target's folder and is renamed over the target with :func:`os.replace`, so a reader
sees the old entry, the new one or none, never part of one, and two writers of one entry
never share (and remove) each other's temporary file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_path", "write_bytes_atomic", "write_text_atomic"]


@contextlib.contextmanager
def atomic_path(target: str | Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A fresh temporary path beside *target*; once the block ends without an exception the
    file written there replaces *target*, else it is removed. For writers that need a path
    (``df.to_parquet(tmp)``, ``tu.save(tmp)``, a compiler's ``-o``)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{target.name}.{os.getpid()}.{threading.get_ident()}."
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_bytes_atomic(target: str | Path, data: bytes) -> None:
    """Write *data* to *target* atomically (see the module docstring)."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(target: str | Path, text: str, encoding: str = "utf-8") -> None:
    """Write *text* to *target* atomically (see the module docstring)."""
    write_bytes_atomic(target, text.encode(encoding))
