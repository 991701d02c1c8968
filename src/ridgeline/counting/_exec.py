"""Shared flow of the compiled backends: build instrumented, run limited, read records."""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
from pathlib import Path

from ridgeline.counting.base import LaunchCount, ProgramRunError, RunOptions
from ridgeline.counting.records import load_blocks, read_raw, to_launch_count
from ridgeline.counting.runner import classify_failure, run_limited
from ridgeline.counting.toolchain import BuildSpec, build_instrumented
from ridgeline.errors import CompileError

__all__ = ["build_and_count", "l2_config"]

log = logging.getLogger(__name__)


def l2_config(gpus: list[str]) -> tuple[list[str], list[int]]:
    """Catalog names and L2 sizes in bytes of the GPUs to model."""
    from ridgeline.hardware import get_gpu

    names, sizes = [], []
    for g in gpus:
        gpu = get_gpu(g)
        names.append(gpu.name)
        sizes.append(int(gpu.l2_mb * (1 << 20)))
    return names, sizes


def _workdir(opts: RunOptions, program_dir: Path) -> tuple[Path, bool]:
    if opts.workdir is not None:
        tag = hashlib.sha1(str(program_dir.resolve()).encode()).hexdigest()[:8]
        return Path(opts.workdir) / f"{program_dir.name}-{tag}", False
    return Path(tempfile.mkdtemp(prefix=f"rl-count-{program_dir.name}-")), True


def build_and_count(backend: str, program_dir: Path, spec: BuildSpec, args: list[str],
                    opts: RunOptions, extra_env: dict[str, str] | None = None
                    ) -> list[LaunchCount]:
    work, temporary = _workdir(opts, program_dir)
    try:
        try:
            exe = build_instrumented(spec, work / "build", timeout=opts.build_timeout)
        except CompileError as e:
            raise ProgramRunError(program_dir.name, "compile", str(e)) from e
        names, sizes = l2_config(opts.gpus)
        out = work / "counts.jsonl"
        out.unlink(missing_ok=True)
        env = {"RL_OUT": str(out), "RL_LAUNCHES": str(opts.launches),
               "RL_SKIP_AFTER": "1" if opts.skip_after else "0",
               "RL_KERNEL": opts.kernel or "", "RL_L2": ",".join(map(str, sizes)),
               "OMP_NUM_THREADS": "1", "RL_FULL_THREADS": str(opts.full_threads),
               "RL_SAMPLE_BLOCKS": str(opts.sample_blocks),
               "RL_SAMPLE_SKIP": "1" if opts.sample_skip else "0",
               "RL_LAUNCH_BUDGET": str(opts.launch_budget),
               "RL_EXPECT": "\n".join(e for e in opts.expect if e), **(extra_env or {})}
        res = run_limited(exe, args, program_dir, env, opts.timeout, opts.memory_gb,
                          idle_stop=opts.idle_stop)
        raws = read_raw(out)
        if not raws:
            raise classify_failure(program_dir.name, res, opts.timeout, opts.memory_gb)
        if res.timed_out or res.returncode != 0:
            log.info("%s: %d launches counted before the program %s", program_dir.name,
                     len(raws), "timed out" if res.timed_out else f"exited {res.returncode}")
        blocks = load_blocks(work / "build" / "blocks.json")
        gpu = names[0] if names else None
        recs = [to_launch_count(r, blocks, backend, names, gpu) for r in raws]
        variants: dict[str, dict[str, int]] = {}
        for r in recs:  # "kernel@site" keys from the CUDA layer
            base, _, site = r.kernel.partition("@")
            seen = variants.setdefault(base, {})
            r.variant = seen.setdefault(site, len(seen))
            r.kernel = base
        return recs
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
