"""Run an instrumented executable in a subprocess with time and memory limits."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ridgeline.counting.base import ProgramRunError

__all__ = ["EXIT_STALL", "RunResult", "run_limited"]

#: the runtime's exit status when a sampled block stalled (rl_count.c RL_EXIT_STALL)
EXIT_STALL = 86

_MISSING_INPUT = ("no such file", "cannot open", "could not open", "failed to open",
                  "unable to open", "error opening", "file not found", "can't open",
                  "error reading", "failed to read", "could not read", "cannot read",
                  "not opened", "unable to read")


@dataclass
class RunResult:
    returncode: int
    seconds: float
    stdout: str
    stderr: str
    timed_out: bool
    #: stopped on purpose, *idle_stop* seconds after the last counted launch
    idle_stopped: bool = False


#: prctl(PR_SET_PDEATHSIG): the signal a process gets when the one that started it ends
_PR_SET_PDEATHSIG = 1


def _limits(memory_bytes: int) -> None:
    os.setsid()  # its own process group, killed as one (the program may fork)
    # killed with ridgeline: a run whose ridgeline is killed (a job scheduler's SIGTERM, an
    # outer time limit) must not leave the program behind, spinning in a host loop forever
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_limited(exe: Path, args: list[str], cwd: Path, env: dict[str, str], timeout: float,
                memory_gb: float, idle_stop: float | None = None) -> RunResult:
    """Run *exe*; kill its process group after *timeout* seconds, or *idle_stop* seconds
    after the last counted launch was written (the rest is host-side work: result checks,
    CPU references). Never raises for the program's own failures (see
    :func:`classify_failure`)."""
    mem = int(memory_gb * (1 << 30))
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [str(exe), *args], cwd=cwd, env={**os.environ, **env}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        preexec_fn=lambda: _limits(mem),  # noqa: PLW1509 - limits must apply in the child
    )
    timed_out = idle = False
    out_file = Path(env["RL_OUT"]) if "RL_OUT" in env else None
    last_size, last_change = -1, time.monotonic()
    import threading

    chunks: dict[str, bytes] = {}

    def _drain(name: str, stream: IO[bytes]) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=_drain, args=(k, s), daemon=True)
               for k, s in (("out", proc.stdout), ("err", proc.stderr)) if s is not None]
    for t in readers:
        t.start()
    try:
        while proc.poll() is None:
            now = time.monotonic()
            size = out_file.stat().st_size if out_file and out_file.exists() else 0
            if size != last_size:
                last_size, last_change = size, now
            idle = size > 0 and idle_stop is not None and now - last_change > idle_stop
            if now - t0 > timeout or idle:
                timed_out = not idle
                break
            time.sleep(0.2)
    finally:  # stopped, or interrupted (Ctrl-C does not reach the program's own session)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for t in readers:
        t.join(timeout=10)
    out, err = chunks.get("out", b""), chunks.get("err", b"")
    return RunResult(proc.returncode, time.monotonic() - t0,
                     out.decode(errors="replace")[-20000:], err.decode(errors="replace")[-20000:],
                     timed_out, idle)


def classify_failure(program: str, res: RunResult, timeout: float, memory_gb: float
                     ) -> ProgramRunError:
    """A ProgramRunError naming why a run produced no counted launch."""
    tail = (res.stderr.strip() or res.stdout.strip())[-400:]
    low = (res.stderr + res.stdout).lower()
    if res.timed_out:
        return ProgramRunError(program, "timeout", f"no counted launch within {timeout:.0f} s")
    if res.returncode == EXIT_STALL:
        return ProgramRunError(program, "timeout", "a sampled block stalled and no time was "
                               f"left to run its launch whole: {tail}")
    if "bad_alloc" in low or "cannot allocate" in low or "out of memory" in low or \
            "rl: allocation failed" in low or "rl: allocation of" in low:
        return ProgramRunError(program, "memory", f"exceeded {memory_gb:g} GiB: {tail}")
    if any(k in low for k in _MISSING_INPUT):
        return ProgramRunError(program, "missing-input", tail)
    if res.returncode is not None and res.returncode < 0:
        sig = -res.returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        return ProgramRunError(program, "crash", f"killed by {name}: {tail}")
    if res.returncode != 0:
        return ProgramRunError(program, "crash", f"exit status {res.returncode}: {tail}")
    return ProgramRunError(program, "no-launch", "the program ran but launched no kernel "
                           f"matching the request: {tail}")
