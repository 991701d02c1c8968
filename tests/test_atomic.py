"""Atomic cache writes: several processes writing and reading one count-cache entry at once
see no exception and never part of an entry."""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path

import pytest

from ridgeline._atomic import atomic_path, write_text_atomic
from ridgeline.learning.count_cache import _cache_read, _cache_write

_RECORDS = 200  # ~20 KB an entry: big enough that a torn read would be seen


def _entry(writer: int, seq: int) -> list[dict[str, object]]:
    return [{"writer": writer, "seq": seq, "i": i, "pad": "x" * 80} for i in range(_RECORDS)]


def _whole(data: list[dict[str, object]]) -> bool:
    if len(data) != _RECORDS:
        return False
    w, s = data[0]["writer"], data[0]["seq"]
    return all(r["writer"] == w and r["seq"] == s and r["i"] == i for i, r in enumerate(data))


def _worker(path: str, writer: int, seconds: float, q: mp.Queue) -> None:
    errors, partial, misses, writes, reads = [], 0, 0, 0, 0
    end = time.monotonic() + seconds
    seq = 0
    while time.monotonic() < end:
        try:
            _cache_write(Path(path), _entry(writer, seq))
            writes += 1
            seq += 1
            for _ in range(3):
                got = _cache_read(Path(path))
                reads += 1
                if got is None:
                    misses += 1  # the entry exists from the first write on: a miss is a tear
                elif not _whole(got):
                    partial += 1
        except Exception as e:  # noqa: BLE001 - counted, that is the test
            errors.append(f"{type(e).__name__}: {e}")
    q.put((errors, partial, misses, writes, reads))


def test_concurrent_writers_and_readers_of_one_entry(tmp_path: Path) -> None:
    path = tmp_path / "counts" / "entry.json"
    _cache_write(path, _entry(-1, 0))
    ctx = mp.get_context("fork")
    q: mp.Queue = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(path), w, 2.0, q)) for w in range(6)]
    for p in procs:
        p.start()
    results = [q.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    errors = [e for r in results for e in r[0]]
    assert errors == []
    assert sum(r[1] for r in results) == 0, "partial reads"
    assert sum(r[2] for r in results) == 0, "missing entry while it was being replaced"
    assert sum(r[3] for r in results) > 50 and sum(r[4] for r in results) > 150
    assert sorted(p.name for p in path.parent.iterdir()) == ["entry.json"]  # no temporaries


def test_a_failed_write_leaves_the_old_entry_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "e.json"
    write_text_atomic(target, "old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["e.json"]


def test_a_missing_or_foreign_entry_is_a_miss(tmp_path: Path) -> None:
    assert _cache_read(tmp_path / "none.json") is None
    (tmp_path / "bad.json").write_text('{"not": "a list"')
    assert _cache_read(tmp_path / "bad.json") is None
    (tmp_path / "dict.json").write_text('{"a": 1}')
    assert _cache_read(tmp_path / "dict.json") is None
