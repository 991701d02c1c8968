"""One kernel's datagen job, run in an isolated process (``python -m
ridgeline.datagen.worker`` with the job as JSON on stdin; one JSON line per result on
stdout, flushed as it goes, so a crash or hang loses only the samples not yet done)."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ridgeline.errors import RidgelineError

__all__ = ["run_job", "main"]


def _emit(rec: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(rec) + "\n")
    sys.stdout.flush()


def _arg_summary(args: list[Any]) -> list[dict[str, Any]]:
    out = []
    for a in args:
        d = {"kind": type(a).__name__.lower()}
        d.update({k: v for k, v in vars(a).items() if k in ("nbytes", "value", "ctype")})
        out.append(d)
    return out


def run_job(job: dict[str, Any]) -> None:
    from ridgeline.datagen.args import kernel_spec
    from ridgeline.datagen.sampling import sample_launches
    from ridgeline.datagen.sizing import make_args, size_kernel
    from ridgeline.opencl import make_context, time_kernel

    t0 = time.perf_counter()
    try:
        spec = kernel_spec(job["source"], job.get("kernel"), job.get("file", ""))
    except RidgelineError as e:
        _emit({"type": "kernel", "status": "unparsed", "reason": str(e)[:500]})
        return
    sizing = size_kernel(spec, timeout=job.get("probe_timeout", 60.0))
    ctx = make_context(job["device"])
    info = ctx[2]
    _emit({"type": "kernel", "status": "sized" if sizing.ok else "unsized",
           "reason": sizing.reason, "name": spec.name, "sizing_s": time.perf_counter() - t0,
           "fits": {str(k): [v.slope, v.intercept] for k, v in sizing.fits.items()}})
    if not sizing.ok:
        return
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
            r = time_kernel(spec.source, spec.name, job["device"], args, ctypes,
                            [cfg.global_size], [cfg.local_size], warmup=job.get("warmup", 2),
                            repeats=job.get("repeats", 5), context=ctx)
            rec.update(status="ok", reason="", time_ns=r.median_ns, spread_ns=r.spread_ns,
                       times_ns=r.times_ns, transfer_ns=r.transfer_ns,
                       transfer_bytes=r.transfer_bytes, deterministic=r.deterministic,
                       output_digest=r.output_digest)
        except RidgelineError as e:
            rec.update(status="error", reason=f"{type(e).__name__}: {str(e)[:400]}")
        rec["wall_s"] = time.perf_counter() - t1
        _emit(rec)


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        run_job(job)
    except RidgelineError as e:
        _emit({"type": "fatal", "reason": f"{type(e).__name__}: {str(e)[:500]}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
