"""One kernel's datagen job, run in an isolated process: sizing probes, context, build and
every sample of that kernel in one process, so a crash or hang costs that kernel only.

Two ways in: :func:`serve` (a process forked from the runner's pre-loaded fork server,
records sent through a pipe as they are made) and ``python -m ridgeline.datagen.worker``
(the job as JSON on stdin, one JSON line per record on stdout, flushed as it goes).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ridgeline.errors import CompileError, RidgelineError

__all__ = ["run_job", "serve", "main", "PRELOAD", "timing_lock"]

Emit = Callable[[dict[str, Any]], None]

# modules the fork server imports once, so each kernel's process starts warm; none of them
# touches the OpenCL runtime at import (PoCL's threads do not survive a fork)
PRELOAD = ["numpy", "pyopencl", "ridgeline.datagen.args", "ridgeline.datagen.sampling",
           "ridgeline.datagen.sizing", "ridgeline.opencl", "ridgeline.sources",
           "ridgeline.profiles.oclgrind", "ridgeline.datagen.worker"]


def _stdout_emit(rec: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(rec) + "\n")
    sys.stdout.flush()


def _arg_summary(args: list[Any]) -> list[dict[str, Any]]:
    out = []
    for a in args:
        d = {"kind": type(a).__name__.lower()}
        d.update({k: v for k, v in vars(a).items() if k in ("nbytes", "value", "ctype")})
        out.append(d)
    return out


@contextlib.contextmanager
def timing_lock(device: str) -> Iterator[None]:
    """Hold the machine-wide lock of OpenCL device *device* while timing on it: worker
    processes may size and build side by side (``--jobs``, several Ray workers on one node),
    but two launches timed at once on one device would share its cores and skew both. An
    advisory lock on a file in the temporary folder; a killed holder releases it."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", device) or "device"
    path = Path(tempfile.gettempdir()) / f"ridgeline-opencl-{name}.lock"
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_job(job: dict[str, Any], emit: Emit = _stdout_emit) -> None:
    """Parse, size, then time every sampled launch of one kernel; *emit* gets one record
    for the kernel and one per sample."""
    from ridgeline.datagen.args import kernel_spec
    from ridgeline.datagen.sizing import size_kernel

    t0 = time.perf_counter()
    try:
        spec = kernel_spec(job["source"], job.get("kernel"), job.get("file", ""))
    except RidgelineError as e:
        emit({"type": "kernel", "status": "unparsed", "reason": str(e)[:500]})
        return
    sizing = size_kernel(spec, timeout=job.get("probe_timeout", 60.0))
    emit({"type": "kernel", "status": "sized" if sizing.ok else "unsized",
          "reason": sizing.reason, "name": spec.name, "sizing_s": time.perf_counter() - t0,
          "fits": {str(k): [v.slope, v.intercept] for k, v in sizing.fits.items()}})
    if sizing.ok:
        _time_samples(job, spec, sizing, emit)


def _time_samples(job: dict[str, Any], spec: Any, sizing: Any, emit: Emit) -> None:
    from ridgeline.datagen.sampling import sample_launches
    from ridgeline.datagen.sizing import make_args
    from ridgeline.opencl import make_context, time_kernel

    ctx = make_context(job["device"])
    info = ctx[2]
    budget = int(min(job.get("max_bytes", 1 << 28), info.max_alloc_bytes))
    per_item = sum(f.slope for f in sizing.fits.values()) or 4.0
    max_global = max(64, min(job.get("max_global", 1 << 22), int(budget / per_item)))
    configs = sample_launches(spec.hash, job["samples"], job["seed"], info.compute_units,
                              info.max_work_group_size, max_global)
    ctypes = [s.ctype for s in spec.slots]
    for cfg in configs:
        args = make_args(spec, cfg.global_size, sizing)
        rec: dict[str, Any] = {"type": "sample", **cfg.to_dict(), "kernel_name": spec.name,
                               "args": json.dumps(_arg_summary(args))}
        t1 = time.perf_counter()
        try:
            with timing_lock(job["device"]):
                r = time_kernel(spec.source, spec.name, job["device"], args, ctypes,
                                [cfg.global_size], [cfg.local_size],
                                warmup=job.get("warmup", 2), repeats=job.get("repeats", 5),
                                context=ctx, burst=job.get("timing", "each") == "burst")
            rec.update(status="ok", reason="", time_ns=r.median_ns, spread_ns=r.spread_ns,
                       times_ns=r.times_ns, transfer_ns=r.transfer_ns,
                       transfer_bytes=r.transfer_bytes, deterministic=r.deterministic,
                       output_digest=r.output_digest, build_s=r.build_s)
        except RidgelineError as e:
            rec.update(status="error", reason=f"{type(e).__name__}: {str(e)[:400]}")
        rec["wall_s"] = time.perf_counter() - t1
        emit(rec)
        if isinstance(rec.get("reason"), str) and rec["reason"].startswith(
                CompileError.__name__):
            return  # the same build fails for every launch: one record says it


def serve(job: dict[str, Any], conn: Any, log_path: str) -> None:
    """Entry point of a forked per-kernel process: records go to *conn*; the runtime's own
    chatter (compiler warnings) goes to *log_path* so a crash can be explained."""
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    import warnings

    warnings.simplefilter("ignore")
    try:
        run_job(job, conn.send)
    except RidgelineError as e:
        conn.send({"type": "fatal", "reason": f"{type(e).__name__}: {str(e)[:500]}"})
    finally:
        conn.close()


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        run_job(job)
    except RidgelineError as e:
        _stdout_emit({"type": "fatal", "reason": f"{type(e).__name__}: {str(e)[:500]}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
