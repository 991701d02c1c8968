"""Run an instrumented executable sandboxed, with time and memory limits."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ridgeline import sandbox
from ridgeline.counting.base import ProgramRunError
from ridgeline.hardware import GPU, load_catalog
from ridgeline.sandbox import Limits

__all__ = ["EXIT_STALL", "RunResult", "run_limited", "CWD_OVERLAY", "device_memory_gb",
           "ADDRESS_SLACK_GB"]

#: the runtime's exit status when a sampled block stalled (rl_count.c RL_EXIT_STALL)
EXIT_STALL = 86
#: the folder in a run's work folder that takes what the program writes in its own
#: (read-only) folder: see sandbox.run's *cwd_overlay*
CWD_OVERLAY = "cwd"

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
    #: how the program was isolated: "bwrap" or "none" (see :mod:`ridgeline.sandbox`)
    isolation: str = "none"
    #: killed for touching more memory than its budget: the reason (sandbox.Outcome)
    over_memory: str | None = None
    #: the address space it had, GiB (the budget, the device memory and the slack)
    address_gb: float = 0.0


#: address space beyond the memory budget and the device memory: fiber stacks, the
#: runtime's tables, shared libraries (reserved, mostly never touched)
ADDRESS_SLACK_GB = 8.0


def device_memory_gb(gpus: Sequence[str | GPU] = ()) -> float:
    """The device memory a run may reserve, GiB: the largest of the catalog's GPUs and of
    *gpus* (a user's file's entries included). Reserved buffers take no memory until
    touched, so one figure serves every target."""
    sizes = [g.memory_gb for g in load_catalog()]
    sizes += [g.memory_gb for g in gpus if isinstance(g, GPU)]
    return max([s for s in sizes if s == s and s > 0] or [0.0])


def run_limited(exe: Path, args: list[str], cwd: Path, env: dict[str, str], timeout: float,
                memory_gb: float, idle_stop: float | None = None, work: Path | None = None,
                sandbox_mode: str | None = None, device_gb: float | None = None
                ) -> RunResult:
    """Run *exe* in the sandbox (:func:`ridgeline.sandbox.run`): *cwd* (the program's folder)
    read-only, what it writes there going to :data:`CWD_OVERLAY` in *work* (default: the
    folder of ``RL_OUT``), *work* writable. Kill it after *timeout* seconds, or *idle_stop*
    seconds after the last counted launch was written (the rest is host-side work: result
    checks, CPU references), or once its processes touch more than *memory_gb* GiB. Its
    address space is that budget plus *device_gb* (default :func:`device_memory_gb`: device
    buffers are reserved, not committed) plus :data:`ADDRESS_SLACK_GB`. Never raises for the
    program's own failures (see :func:`classify_failure`)."""
    out_file = Path(env["RL_OUT"]) if "RL_OUT" in env else None
    if work is None:
        work = out_file.parent if out_file is not None else exe.parent
    last = {"size": -1, "at": time.monotonic()}

    def idle() -> str | None:
        now = time.monotonic()
        size = out_file.stat().st_size if out_file and out_file.exists() else 0
        if size != last["size"]:
            last["size"], last["at"] = size, now
        if size > 0 and idle_stop is not None and now - last["at"] > idle_stop:
            return f"no counted launch for {idle_stop:g} s"
        return None

    space = memory_gb + (device_memory_gb() if device_gb is None else device_gb) \
        + ADDRESS_SLACK_GB
    limits = Limits(seconds=timeout, memory_bytes=int(space * (1 << 30)),
                    resident_bytes=int(memory_gb * (1 << 30)))
    o = sandbox.run([str(exe), *args], cwd=cwd, limits=limits, env=env,
                    readable=[exe.parent], writable=[work], cwd_overlay=work / CWD_OVERLAY,
                    stop=idle, mode=sandbox_mode)
    return RunResult(o.returncode, o.seconds, o.stdout[-20000:], o.stderr[-20000:],
                     o.timed_out, o.stopped is not None, o.isolation, o.over_memory, space)


def classify_failure(program: str, res: RunResult, timeout: float, memory_gb: float
                     ) -> ProgramRunError:
    """A ProgramRunError naming why a run produced no counted launch."""
    tail = (res.stderr.strip() or res.stdout.strip())[-400:]
    low = (res.stderr + res.stdout).lower()
    if res.timed_out:
        return ProgramRunError(program, "timeout", f"no counted launch within {timeout:.0f} s")
    if res.over_memory:
        return ProgramRunError(program, "memory", res.over_memory)
    if res.returncode == EXIT_STALL:
        return ProgramRunError(program, "timeout", "a sampled block stalled and no time was "
                               f"left to run its launch whole: {tail}")
    if "bad_alloc" in low or "cannot allocate" in low or "out of memory" in low or \
            "rl: allocation failed" in low or "rl: allocation of" in low:
        space = f"{res.address_gb:g} GiB" if res.address_gb else f"{memory_gb:g} GiB"
        return ProgramRunError(program, "memory", f"an allocation was refused (address space "
                               f"{space}: the {memory_gb:g} GiB budget and the largest "
                               f"GPU's memory): {tail}")
    if any(k in low for k in _MISSING_INPUT):
        return ProgramRunError(program, "missing-input", tail)
    if res.returncode == -signal.SIGXCPU:
        return ProgramRunError(program, "timeout", f"CPU time limit reached: {tail}")
    if res.returncode == -signal.SIGXFSZ:
        return ProgramRunError(program, "crash", f"file size limit reached: {tail}")
    if "resource temporarily unavailable" in low:
        return ProgramRunError(program, "crash", f"process limit reached: {tail}")
    if res.returncode is not None and res.returncode < 0:
        sig = -res.returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        return ProgramRunError(program, "crash", f"killed by {name}: {tail}")
    if res.returncode != 0:
        return ProgramRunError(program, "crash", f"exit status {res.returncode}: {tail}")
    return ProgramRunError(program, "no-launch", "the program ran but launched no kernel "
                           f"matching the request: {tail}")
