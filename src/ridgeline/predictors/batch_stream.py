"""``predict-batch`` as a run that survives being killed.

Rows are predicted in chunks of whole programs (every row of one ``source`` in the same
chunk, so a row's prediction never depends on where a chunk boundary fell). Each finished
chunk is appended to ``OUT.csv.partial`` and flushed to disk; a line there carries the row's
number, a key (a hash of the run's settings, the row's fields and a fingerprint of the files
of the program folder it names) and a checksum of its fields. A rerun with the same
arguments keeps the lines whose key and checksum match (and whose program has all its rows
there), predicts the rest, and writes ``OUT.csv`` with every row in input order; then the
partial file goes. A line cut short by a kill fails its
checksum and its program is predicted again: no row is lost or written twice.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline import __version__
from ridgeline.datasets import read_strict_csv, require_columns
from ridgeline.errors import InputFileError, RidgelineError, UsageError
from ridgeline.hardware import load_catalog
from ridgeline.limits import COUNT_TIMEOUT_S
from ridgeline.predictors.batch_predict import (
    REQUIRED,
    check_settings,
    output_columns,
    predict_rows,
)
from ridgeline.predictors.batch_rows import source_dir
from ridgeline.sources.build import ProgramBuild

__all__ = ["BatchRun", "BatchSummary", "run_batch", "partial_path", "folder_fingerprint",
           "CHUNK_ROWS", "FINGERPRINT_FILES"]

log = logging.getLogger(__name__)

#: rows predicted (and written) together at least, unless the batch is smaller
CHUNK_ROWS = 256
#: files of one program folder whose names, sizes and times its fingerprint reads at most
FINGERPRINT_FILES = 5000
_MARK = ("_row", "_key")


@dataclass(frozen=True)
class BatchRun:
    """One ``predict-batch`` run: the rows file, the program folders and where to write."""

    rows: Path
    sources: Path
    out: Path
    predictor: str = "learned"
    jobs: int | None = None
    gpu_file: str | None = None
    count: str = "auto"
    count_timeout: float = COUNT_TIMEOUT_S
    progress: bool = True
    chunk_rows: int = CHUNK_ROWS
    #: the user's -D/-I/compile_commands.json (None: each program's makefiles alone)
    build: ProgramBuild | None = None

    @classmethod
    def from_cli(cls, args: Any) -> BatchRun:
        chunk = getattr(args, "chunk_rows", None)
        chunk = CHUNK_ROWS if chunk is None else chunk
        if chunk < 1:
            raise UsageError(f"--chunk-rows {chunk}: must be 1 or more")
        build = ProgramBuild.from_cli(getattr(args, "defines", None),
                                      getattr(args, "include_dirs", None),
                                      getattr(args, "compile_commands", None))
        return cls(Path(args.rows), Path(args.sources), Path(args.out), args.predictor,
                   args.jobs, args.gpu_file, args.count, args.count_timeout,
                   chunk_rows=chunk, build=None if build == ProgramBuild() else build)

    def settings_key(self) -> str:
        """What makes a finished row reusable by a rerun (never jobs or progress), besides
        the row itself and its program folder's files (:func:`folder_fingerprint`)."""
        gpu_text = Path(self.gpu_file).read_bytes() if self.gpu_file else b""
        return _digest(json.dumps([__version__, self.predictor, self.count, self.count_timeout,
                                   str(self.sources.resolve()), self.gpu_file or "",
                                   hashlib.sha256(gpu_text).hexdigest()]
                                  + ([self.build.cache_key()] if self.build else [])))


@dataclass
class BatchSummary:
    """What a run did: rows, rows taken over from an interrupted run, and why rows lack
    predictions or CPU-execution counts."""

    rows: int = 0
    resumed: int = 0
    seconds: float = 0.0
    errors: Counter[str] = field(default_factory=Counter)  # error type -> rows
    origins: Counter[str] = field(default_factory=Counter)  # pred_origin -> rows
    count: Counter[tuple[str, str]] = field(default_factory=Counter)  # (status, cause)

    def lines(self) -> list[str]:
        out = []
        if self.errors:
            out.append("errors: " + ", ".join(f"{k} {n}" for k, n in
                                              self.errors.most_common()))
        for status in ("failed", "skipped", "no-launch", "not-cached", "partial"):
            causes = sorted(((c, n) for (s, c), n in self.count.items() if s == status),
                            key=lambda cn: (-cn[1], cn[0]))
            if causes:
                what = ("counted by runs that then stopped" if status == "partial" else
                        f"not counted, {status}")
                out.append(f"{what} ({sum(n for _, n in causes)} rows): "
                           + ", ".join(f"{c} {n}" for c, n in causes))
        return out


def partial_path(out: Path) -> Path:
    return out.with_name(out.name + ".partial")


def run_batch(run: BatchRun) -> BatchSummary:
    """Predict every row of ``run.rows`` into ``run.out`` (see the module's docstring)."""
    t0 = time.time()
    check_settings(run.predictor, run.count)
    if run.out.resolve() == run.rows.resolve():
        raise InputFileError(f"--out {str(run.out)!r} is the rows file itself; give another")
    if not run.out.parent.is_dir():
        raise InputFileError(f"--out {str(run.out)!r}: folder {str(run.out.parent)!r} does "
                             "not exist")
    df, lines = read_strict_csv(run.rows)
    require_columns(df, REQUIRED, str(run.rows))
    catalog = load_catalog(run.gpu_file)
    columns = output_columns(list(df.columns), run.predictor)
    settings = run.settings_key()
    prints = {s: folder_fingerprint(run.sources, s) for s in set(map(str, df["source"]))}
    keys = [_digest(json.dumps([settings, i, list(df.columns), list(r), prints[str(src)]]))
            for i, (r, src) in enumerate(zip(df.itertuples(index=False), df["source"],
                                             strict=True))]
    groups = _groups(df)
    partial = partial_path(run.out)
    done = _resume(partial, columns, keys, groups)
    summary = BatchSummary(rows=len(df), resumed=len(done))
    if done:
        log.warning("resuming: %d of %d rows already predicted in %s", len(done), len(df),
                    partial)
    from tqdm import tqdm

    with partial.open("a", newline="", encoding="utf-8") as fh, tqdm(
            total=len(df), initial=len(done), unit="row", desc="predicting",
            disable=not run.progress) as bar:
        for chunk in _chunks([g for g in groups if g[0] not in done], run.chunk_rows):
            pred = predict_rows(df.iloc[chunk].reset_index(drop=True), run.sources, catalog,
                                run.predictor, run.jobs, run.progress, run.count,
                                run.count_timeout, [lines[i] for i in chunk], run.rows.name,
                                build=run.build)
            for i, fields in zip(chunk, _render(pred), strict=True):
                done[i] = fields
                _write_line(fh, i, keys[i], fields)
            fh.flush()
            os.fsync(fh.fileno())
            bar.update(len(chunk))
    _finish(run.out, partial, columns, done, len(df))
    _summarise(summary, columns, done)
    summary.seconds = time.time() - t0
    return summary


def folder_fingerprint(sources: Path, source: str) -> str:
    """A cheap fingerprint of the program folder *source* names: the relative path, size and
    modification time of each of its files (the first :data:`FINGERPRINT_FILES` in name
    order), so a program changed since a killed run is predicted again, not taken over.
    A source that names no folder inside *sources* (the row's own error) gives ""."""
    try:
        root = source_dir(sources, source)
    except RidgelineError:
        return ""
    if not root.is_dir():
        return ""
    entries: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
                entries.append(f"{os.path.relpath(path, root)}\0{st.st_size}\0"
                               f"{st.st_mtime_ns}")
            except OSError:
                entries.append(f"{os.path.relpath(path, root)}\0?")
            if len(entries) >= FINGERPRINT_FILES:
                return _digest("\n".join([*entries, "..."]))
    return _digest("\n".join(entries))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _groups(df: pd.DataFrame) -> list[list[int]]:
    """Row numbers by source, in order of first appearance."""
    by: dict[str, list[int]] = {}
    for i, s in enumerate(df["source"]):
        by.setdefault(str(s), []).append(i)
    return list(by.values())


def _chunks(groups: list[list[int]], size: int) -> Iterator[list[int]]:
    chunk: list[int] = []
    for g in groups:
        chunk += g
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _render(pred: pd.DataFrame) -> list[list[str]]:
    """Each row's fields as text, exactly as the output file has them."""
    text = pred.to_csv(index=False, header=False, lineterminator="\n")
    return list(csv.reader(io.StringIO(text, newline="")))


def _write_line(fh: Any, row: int, key: str, fields: list[str]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([row, key, *fields, _digest("\x1f".join(
        [str(row), key, *fields]))])
    fh.write(buf.getvalue())


def _resume(partial: Path, columns: list[str], keys: list[str], groups: list[list[int]]
            ) -> dict[int, list[str]]:
    """The rows an earlier run finished (row number -> fields); rewrites *partial* with
    those alone, under the header of *columns* (a fresh file when there is none)."""
    found: dict[int, list[str]] = {}
    if partial.is_file():
        found = _read_partial(partial, columns, keys)
    done: dict[int, list[str]] = {}
    for g in groups:  # a program is kept whole or predicted again whole
        if all(i in found for i in g):
            done.update({i: found[i] for i in g})
    tmp = partial.with_name(partial.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerow([*_MARK, *columns, "_sum"])
        for i in sorted(done):
            _write_line(fh, i, keys[i], done[i])
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(partial)
    return done


def _read_partial(partial: Path, columns: list[str], keys: list[str]) -> dict[int, list[str]]:
    text = partial.read_text(encoding="utf-8", errors="replace")
    text = text[:text.rfind("\n") + 1]  # a last line without its end was cut short
    recs: list[list[str]] = []
    try:
        for rec in csv.reader(io.StringIO(text, newline="")):
            recs.append(rec)
    except csv.Error as e:  # what was read before the damage still counts
        log.warning("%s is damaged after %d lines (%s)", partial, len(recs), e)
    if not recs or recs[0] != [*_MARK, *columns, "_sum"]:
        log.warning("%s is from another table or version; predicting every row again",
                    partial)
        return {}
    found: dict[int, list[str]] = {}
    for rec in recs[1:]:
        if len(rec) != len(columns) + 3 or not rec[0].isdigit():
            continue
        i, key, fields, check = int(rec[0]), rec[1], rec[2:-1], rec[-1]
        if (i < len(keys) and key == keys[i] and i not in found
                and check == _digest("\x1f".join([rec[0], key, *fields]))):
            found[i] = fields
    return found


def _finish(out: Path, partial: Path, columns: list[str], done: dict[int, list[str]],
            n: int) -> None:
    """Write *out* (every row, in order) atomically, then drop *partial*."""
    missing = [i for i in range(n) if i not in done]
    if missing:  # cannot happen: every group was predicted or resumed
        raise RuntimeError(f"rows {missing[:10]} were not predicted")
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(columns)
        w.writerows(done[i] for i in range(n))
    tmp.replace(out)
    partial.unlink(missing_ok=True)


def _summarise(summary: BatchSummary, columns: list[str], done: dict[int, list[str]]) -> None:
    at = {c: columns.index(c) for c in ("error", "pred_origin", "count_status",
                                          "count_error")}
    for fields in done.values():
        err = fields[at["error"]]
        if err:
            summary.errors[err.split(":", 1)[0]] += 1
        summary.origins[fields[at["pred_origin"]]] += 1
        status = fields[at["count_status"]]
        if status not in ("", "counted", "off"):
            summary.count[(status, fields[at["count_error"]].split(":", 1)[0])] += 1
