"""SQLite response cache. Key = model, endpoint, rendered messages, generation settings and
template version; never keys, timeouts or concurrency. Only good answers are stored, each at
once (a killed run loses nothing and asks nothing twice)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ridgeline.llm.settings import Completion, GenerationSettings

__all__ = ["ResponseCache", "cache_key", "default_cache_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  template TEXT NOT NULL,
  request TEXT NOT NULL,
  completion TEXT NOT NULL,
  created REAL NOT NULL
)"""


def default_cache_path() -> Path:
    """``$RIDGELINE_CACHE/llm.sqlite``, else ``.ridgeline-cache/llm.sqlite``."""
    import os

    root = Path(os.environ.get("RIDGELINE_CACHE", ".ridgeline-cache"))
    return root / "llm.sqlite"


def _canonical(model: str, endpoint: str, messages: list[dict[str, str]],
               settings: GenerationSettings, template: str) -> str:
    return json.dumps(
        {
            "model": model,
            "endpoint": endpoint,
            "messages": messages,
            "settings": settings.to_dict(),
            "template": template,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )


def cache_key(model: str, endpoint: str, messages: list[dict[str, str]],
              settings: GenerationSettings, template: str) -> str:
    """SHA-256 of the canonical request (see the module docstring for what is in it)."""
    text = _canonical(model, endpoint, messages, settings, template)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """A thread-safe SQLite store of completions."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.commit()
            self._conn = conn
        return self._conn

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db().execute(
                "SELECT completion FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        data: dict[str, Any] = json.loads(row[0])
        data["cached"] = True
        data["attempts"] = 0  # no request was made for this answer
        return Completion(**data)

    def put(self, key: str, model: str, endpoint: str, template: str,
            request: dict[str, Any], completion: Completion) -> None:
        data = asdict(completion)
        data["cached"] = False
        with self._lock:
            db = self._db()
            db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, endpoint, template, json.dumps(request, ensure_ascii=False),
                 json.dumps(data, ensure_ascii=False), time.time()),
            )
            db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db().execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
