"""The datagen driver: one isolated worker process per kernel (with a timeout), a local
pool or a Ray cluster, results streamed to Parquet shards, resumable, with a progress bar."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline.datagen.args import kernel_hash
from ridgeline.datagen.store import ShardWriter, done_kernels, read_samples
from ridgeline.errors import MissingDataError, MissingDependencyError, UsageError

__all__ = ["DatagenConfig", "TIMINGS", "generate", "run_isolated", "collect_kernels",
           "close_prebuilders"]

log = logging.getLogger(__name__)


# a sample's timed launches queued back to back ("burst") or each waited for before the
# next ("each"); see ridgeline.opencl.time_kernel
TIMINGS = ("burst", "each")


@dataclass
class DatagenConfig:
    device: str = "pocl"
    samples: int = 12
    seed: int = 0
    jobs: int = 1
    timeout: float = 300.0  # per kernel, whole worker
    probe_timeout: float = 60.0
    warmup: int = 2
    repeats: int = 5
    timing: str = "burst"  # one of TIMINGS
    max_global: int = 1 << 20
    max_bytes: int = 1 << 27
    ray_address: str | None = None
    limit: int | None = None
    subset_seed: int | None = None  # with limit: a seeded random subset, else the first N
    flush_every: int = 20  # kernels per shard


def collect_kernels(kernels_dir: str | Path) -> list[Path]:
    d = Path(kernels_dir)
    if not d.is_dir():
        raise MissingDataError(f"kernels folder {str(d)!r} does not exist")
    files = sorted(d.rglob("*.cl"))
    if not files:
        raise MissingDataError(f"no .cl files under {str(d)!r}")
    return files


_PREBUILDERS: dict[str, Any] = {}


def _prebuilder(device: str) -> Any:
    from ridgeline.datagen.procs import Prebuilder

    if device not in _PREBUILDERS:
        _PREBUILDERS[device] = Prebuilder(device)
    return _PREBUILDERS[device]


def close_prebuilders() -> None:
    for b in _PREBUILDERS.values():
        b.close()
    _PREBUILDERS.clear()


def run_isolated(job: dict[str, Any], timeout: float, prebuild: bool = True
                 ) -> tuple[dict[str, Any], list[dict]]:
    """Run one kernel job in its own process (forked from a pre-loaded fork server), after
    the build helper has compiled it; (kernel record, sample rows)."""
    from ridgeline.datagen.procs import run_forked
    from ridgeline.datagen.worker import serve

    t0 = time.perf_counter()
    if prebuild:
        _prebuilder(job["device"]).build(job["source"])
    prebuild_s = time.perf_counter() - t0
    recs, rc, err, timed_out = run_forked(serve, job, timeout)
    status, reason = "", ""
    if timed_out:
        status, reason = "timeout", f"worker exceeded {timeout:g} s (hang or very slow)"
    kern: dict[str, Any] = next((r for r in recs if r.get("type") == "kernel"), {})
    fatal = next((r for r in recs if r.get("type") == "fatal"), None)
    samples = [r for r in recs if r.get("type") == "sample"]
    if not status:
        if fatal:
            status, reason = "failed", fatal["reason"]
        elif rc not in (0, None) and not kern:
            status, reason = "crashed", f"worker exit {rc}: {err}"
        elif rc not in (0, None):
            status, reason = "crashed", f"worker died (exit {rc}) after {len(samples)} samples"
    record = {"kernel_hash": kernel_hash(job["source"]), "file": job.get("file", ""),
              "kernel_name": kern.get("name", ""), "status": status or kern.get("status", ""),
              "reason": reason or kern.get("reason", ""), "sizing_s": kern.get("sizing_s"),
              "fits": json.dumps(kern.get("fits", {})), "device": job["device"],
              "seed": job["seed"], "n_samples": len(samples), "prebuild_s": prebuild_s,
              "kernel_wall_s": time.perf_counter() - t0}
    for s in samples:
        s.pop("type", None)
        s.update(kernel_hash=record["kernel_hash"], file=record["file"], device=job["device"],
                 seed=job["seed"], timing=job.get("timing", "each"))
    return record, samples


def _job(path: Path, cfg: DatagenConfig) -> dict[str, Any]:
    return {"source": path.read_text(errors="replace"), "file": path.name,
            "device": cfg.device, "samples": cfg.samples, "seed": cfg.seed,
            "probe_timeout": cfg.probe_timeout, "warmup": cfg.warmup,
            "repeats": cfg.repeats, "timing": cfg.timing,
            "max_global": cfg.max_global, "max_bytes": cfg.max_bytes}


def _local(jobs: list[dict[str, Any]], cfg: DatagenConfig
           ) -> Generator[tuple[dict, list], None, None]:
    ex = ThreadPoolExecutor(max_workers=max(1, cfg.jobs))
    try:
        futs = [ex.submit(run_isolated, j, cfg.timeout) for j in jobs]
        for f in as_completed(futs):
            yield f.result()
    finally:  # on an interrupt, the kernels not yet started are dropped (a rerun resumes)
        ex.shutdown(wait=True, cancel_futures=True)


def _ray(jobs: list[dict[str, Any]], cfg: DatagenConfig
         ) -> Generator[tuple[dict, list], None, None]:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("ray", "pip install 'ridgeline[dist]'") from None
    ray.init(address=cfg.ray_address, ignore_reinit_error=True, log_to_driver=False)
    try:
        # one worker per OpenCL device: a node advertises its devices as the custom
        # resource "opencl_device" (ray start --resources='{"opencl_device": 1}');
        # nodes without it run one job per CPU
        has_dev = ray.cluster_resources().get("opencl_device", 0) > 0
        opts = {"resources": {"opencl_device": 1}} if has_dev else {"num_cpus": 1}
        remote = ray.remote(**opts)(run_isolated)
        pending = [remote.remote(j, cfg.timeout) for j in jobs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            yield ray.get(ready[0])
    finally:
        ray.shutdown()


def generate(kernels_dir: str | Path, out: str | Path, cfg: DatagenConfig,
             progress: bool = True,
             on_kernel: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run datagen over every ``.cl`` file under *kernels_dir* into *out* (resumable)."""
    from tqdm import tqdm

    if cfg.samples < 1:
        raise UsageError(f"--samples must be >= 1, got {cfg.samples}")
    if cfg.timing not in TIMINGS:
        raise UsageError(f"timing must be one of {', '.join(TIMINGS)}, got {cfg.timing!r}")
    if cfg.jobs > 1 and not cfg.ray_address:
        # measured on 200 CLgen kernels on PoCL, 2 cores: each kernel's own affine fit of its
        # times missed by 7.0% with one job, 16% with two (19.6% without the timing lock)
        log.warning("%d jobs: workers take turns timing on the device, but one's timing still "
                    "shares the machine with the others' sizing; on a CPU device expect "
                    "noisier times than with one job", cfg.jobs)
    files = collect_kernels(kernels_dir)
    if cfg.limit is not None:
        if cfg.subset_seed is not None:
            import random

            files = sorted(random.Random(cfg.subset_seed).sample(files,
                                                                 min(cfg.limit, len(files))))
        else:
            files = files[: cfg.limit]
    done = done_kernels(out)
    jobs = [_job(p, cfg) for p in files]
    todo = [j for j in jobs if kernel_hash(j["source"]) not in done]
    src_dir = Path(out) / "sources"  # sources by hash, so rows can be regressed later
    src_dir.mkdir(parents=True, exist_ok=True)
    for j in todo:
        f = src_dir / f"{kernel_hash(j['source'])}.cl"
        if not f.exists():
            f.write_text(j["source"])
    writer = ShardWriter(out, flush_every=cfg.flush_every)
    t0 = time.perf_counter()
    n_samples = 0
    bar = tqdm(total=len(todo), unit="kernel", disable=not progress, desc="datagen")
    runs: Generator[tuple[dict, list], None, None] = (
        _ray(todo, cfg) if cfg.ray_address else _local(todo, cfg))
    try:
        for rec, samples in runs:
            writer.add(rec, samples)
            n_samples += len(samples)
            bar.update(1)
            el = time.perf_counter() - t0
            bar.set_postfix(samples=n_samples, sps=f"{n_samples / el:.2f}/s")
            if on_kernel:
                on_kernel(rec)
    finally:
        runs.close()  # stops the pool (local) or the cluster session (Ray)
        writer.flush()
        bar.close()
        close_prebuilders()
    elapsed = time.perf_counter() - t0
    return {"kernels": len(files), "skipped_done": len(jobs) - len(todo), "ran": len(todo),
            "samples": n_samples, "elapsed_s": elapsed,
            "samples_per_s": n_samples / elapsed if elapsed > 0 else 0.0,
            "total_samples_on_disk": len(read_samples(out))}
