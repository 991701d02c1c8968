"""Worker processes for datagen: a fork server that has imported everything once, one
forked process per kernel (isolation: a crash or hang costs that kernel only), and a
long-lived build helper that compiles each kernel before its worker starts, so the
worker's own build is a cache hit in the OpenCL runtime's kernel cache.

Why: a fresh Python process pays ~0.8 s of imports, and PoCL's first build in a process
~1.5 s (later builds ~0.2 s, cache hits ~0.07 s). The build helper never runs a kernel,
so execution stays isolated per kernel. ``POCL_CACHE_DIR`` defaults to a persistent
folder under the ridgeline cache, so a resumed or repeated run compiles nothing twice.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["fork_context", "run_forked", "Prebuilder", "pocl_cache_dir"]

log = logging.getLogger(__name__)

_CTX: Any = None
_LOCK = threading.Lock()


def pocl_cache_dir() -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    return Path(base) / "pocl-kcache"


def fork_context() -> Any:
    """The multiprocessing context whose fork server pre-imports the worker's modules."""
    global _CTX
    import multiprocessing as mp

    from ridgeline.datagen.worker import PRELOAD

    with _LOCK:
        if _CTX is None:
            if "POCL_CACHE_DIR" not in os.environ:
                pocl_cache_dir().mkdir(parents=True, exist_ok=True)
                os.environ["POCL_CACHE_DIR"] = str(pocl_cache_dir())
            os.environ.setdefault("PYTHONWARNINGS", "ignore")
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            _CTX = ctx
    return _CTX


def _tail(path: str, n: int = 400) -> str:
    try:
        return Path(path).read_text(errors="replace")[-n:]
    except OSError:
        return ""


def run_forked(target: Any, job: dict[str, Any], timeout: float
               ) -> tuple[list[dict[str, Any]], int | None, str, bool]:
    """Run ``target(job, conn, log_path)`` in a forked process; (records sent, exit code,
    tail of its output, timed out)."""
    ctx = fork_context()
    recv, send = ctx.Pipe(duplex=False)
    fd, log_path = tempfile.mkstemp(prefix="ridgeline-dg-", suffix=".log")
    os.close(fd)
    p = ctx.Process(target=target, args=(job, send, log_path), daemon=True)
    recs: list[dict[str, Any]] = []
    timed_out = False
    try:
        p.start()
        send.close()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if recv.poll(min(left, 1.0)):
                try:
                    recs.append(recv.recv())
                except EOFError:
                    break
            elif not p.is_alive() and not recv.poll(0):
                break
        if timed_out:
            p.kill()
        p.join(10)
        return recs, p.exitcode, _tail(log_path), timed_out
    finally:
        recv.close()
        if p.is_alive():
            p.kill()
        os.unlink(log_path)


def _build_loop(device: str, conn: Any, log_path: str) -> None:
    """The build helper: receives sources, builds them for *device*, answers the reason of
    a failed build (empty when it built)."""
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    import warnings

    from ridgeline.errors import RidgelineError
    from ridgeline.opencl import build_program, make_context

    warnings.simplefilter("ignore")
    ctx = make_context(device)[0]
    while True:
        try:
            src = conn.recv()
        except EOFError:
            return
        try:
            build_program(ctx, src)
            conn.send("")
        except RidgelineError as e:
            conn.send(f"{type(e).__name__}: {str(e)[:300]}")


class Prebuilder:
    """Compiles sources for one device in a long-lived helper process (restarted after a
    crash, a timeout or *recycle* builds); never raises."""

    def __init__(self, device: str, timeout: float = 120.0, recycle: int = 200) -> None:
        self.device = device
        self.timeout = timeout
        self.recycle = recycle
        self._p: Any = None
        self._conn: Any = None
        self._n = 0
        self._lock = threading.Lock()
        self._log = ""

    def _start(self) -> None:
        ctx = fork_context()
        self._conn, child = ctx.Pipe()
        fd, self._log = tempfile.mkstemp(prefix="ridgeline-build-", suffix=".log")
        os.close(fd)
        self._p = ctx.Process(target=_build_loop, args=(self.device, child, self._log),
                              daemon=True)
        self._p.start()
        child.close()
        self._n = 0

    def close(self) -> None:
        if self._p is not None:
            self._conn.close()
            self._p.join(5)
            if self._p.is_alive():
                self._p.kill()
            self._p = None
            if self._log:
                Path(self._log).unlink(missing_ok=True)

    def build(self, source: str) -> str:
        """Build *source*; '' when it built, else why not (the worker will say it too)."""
        with self._lock:
            if self._p is None or not self._p.is_alive() or self._n >= self.recycle:
                self.close()
                self._start()
            self._n += 1
            try:
                self._conn.send(source)
                if self._conn.poll(self.timeout):
                    return str(self._conn.recv())
                reason = f"build exceeded {self.timeout:.0f} s"
            except (EOFError, OSError, BrokenPipeError):
                reason = "build helper crashed"
            self.close()
            return reason
