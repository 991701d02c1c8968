"""Parquet shards of datagen results, resumable: a kernel's rows are written in one
atomic shard (temporary file + rename) together with its kernel record, so after a kill
every kernel is either fully on disk or not at all; a resumed run skips the kernels on
disk and nothing is lost or duplicated."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ridgeline._atomic import atomic_path
from ridgeline.errors import UsageError

__all__ = ["ShardWriter", "done_kernels", "read_samples", "read_kernels", "datagen_rows",
           "TIME_STATISTICS"]

_LIST_COLS = ("times_ns",)


def _shards(out: Path, kind: str) -> list[Path]:
    return sorted((out / "shards").glob(f"{kind}-*.parquet"))


def _read(paths: list[Path]) -> Any:
    import pandas as pd

    frames = [pd.read_parquet(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _tag(path: Path) -> str:
    return path.stem.split("-", 1)[1]


def _committed_samples(out: Path) -> list[Path]:
    """Sample shards whose kernel shard is on disk too. A run killed between the two
    writes leaves a samples shard without its kernels shard: those kernels count as not
    done and run again on resume, so the orphan shard must not be read."""
    kernel_tags = {_tag(p) for p in _shards(out, "kernels")}
    return [p for p in _shards(out, "samples") if _tag(p) in kernel_tags]


def read_samples(out: str | Path) -> Any:
    """All sample rows of a datagen folder as one DataFrame."""
    return _read(_committed_samples(Path(out)))


def read_kernels(out: str | Path) -> Any:
    """One row per kernel: status (sized/unsized/unparsed/failed) and reason."""
    return _read(_shards(Path(out), "kernels"))


def done_kernels(out: str | Path) -> set[str]:
    df = read_kernels(out)
    return set(df["kernel_hash"]) if len(df) else set()


class ShardWriter:
    """Buffers finished kernels and writes them as shard pairs (kernels, samples)."""

    def __init__(self, out: str | Path, flush_every: int = 20, flush_seconds: float = 30.0):
        self.out = Path(out)
        self.flush_every = flush_every
        self.flush_seconds = flush_seconds
        self._kernels: list[dict[str, Any]] = []
        self._samples: list[dict[str, Any]] = []
        self._last = time.monotonic()
        (self.out / "shards").mkdir(parents=True, exist_ok=True)
        committed = set(_committed_samples(self.out))
        for orphan in _shards(self.out, "samples"):
            if orphan not in committed:
                orphan.unlink()

    def add(self, kernel: dict[str, Any], samples: list[dict[str, Any]]) -> None:
        self._kernels.append(kernel)
        self._samples.extend(samples)
        if (len(self._kernels) >= self.flush_every
                or time.monotonic() - self._last > self.flush_seconds):
            self.flush()

    def _write(self, rows: list[dict[str, Any]], kind: str, tag: str) -> None:
        import pandas as pd

        df = pd.DataFrame(rows)
        for c in df.columns:
            if df[c].dtype == object and c not in _LIST_COLS:
                df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str)
                                  else json.dumps(v))
        final = self.out / "shards" / f"{kind}-{tag}.parquet"
        with atomic_path(final) as tmp:
            df.to_parquet(tmp, index=False)

    def flush(self) -> None:
        self._last = time.monotonic()
        if not self._kernels:
            return
        tag = f"{time.time_ns():020d}-{os.getpid()}"
        # samples first: a kernel counts as done only once its kernel record is on disk
        if self._samples:
            self._write(self._samples, "samples", tag)
        self._write(self._kernels, "kernels", tag)
        self._kernels, self._samples = [], []


#: which of a sample's repeats is its time: the median (what datagen reports) or the fastest.
#: On a CPU device the fastest is the kernel's time free of the runtime's thread wake-ups:
#: PoCL's small multi-group launches take ~0.3, 1.9 or 7 us by whether its workers were awake,
#: and the repeats of one sample can jump between those modes
TIME_STATISTICS = ("median", "min")


def datagen_rows(folder: str | Path, time: str = "median") -> Any:
    """Timed samples of a datagen folder as regression rows (kernel time, no transfers);
    *time* is one of :data:`TIME_STATISTICS`."""
    if time not in TIME_STATISTICS:
        raise UsageError(f"time statistic {time!r} is not one of {', '.join(TIME_STATISTICS)}")

    s = read_samples(folder)
    s = s[s["status"] == "ok"].reset_index(drop=True)
    srcs: dict[str, str] = {}
    root = Path(folder)
    src_dir = root / "sources"
    for h in s["kernel_hash"].unique():
        f = src_dir / f"{h}.cl"
        if f.exists():
            srcs[h] = f.read_text()
    s = s[s["kernel_hash"].isin(srcs)].reset_index(drop=True)
    transfer = s["args"].map(lambda a: 2 * sum(x.get("nbytes", 0) for x in json.loads(a)
                                               if x["kind"] == "buffer"))
    ns = s["time_ns"] if time == "median" else s["times_ns"].map(
        lambda v: float(min(json.loads(v) if isinstance(v, str) else v)))
    return s.assign(src=s["kernel_hash"].map(srcs), kernel_file=s["kernel_hash"],
                    transfer=transfer, time_us=ns / 1000.0)
