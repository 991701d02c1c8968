"""Shared flow of the compiled backends: build instrumented, run limited, read records."""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ridgeline.counting.base import CountedLaunches, LaunchCount, ProgramRunError, RunOptions
from ridgeline.counting.records import load_blocks, read_raw, to_launch_count
from ridgeline.counting.runner import (
    CWD_OVERLAY,
    EXIT_STALL,
    RunResult,
    classify_failure,
    device_memory_gb,
    run_limited,
)
from ridgeline.counting.toolchain import BuildSpec, build_instrumented
from ridgeline.errors import CompileError
from ridgeline.hardware import GPU, get_gpu

__all__ = ["build_and_count", "expect_matches", "l2_config", "program_output",
           "RETRY_IDLE_STOP"]

#: seconds without a new counted launch that end the rerun with every launch executed
#: (at least; four times the first run's idle stop when that is longer)
RETRY_IDLE_STOP = 60.0

log = logging.getLogger(__name__)


def l2_config(gpus: Sequence[str | GPU]) -> tuple[list[GPU], list[int]]:
    """Entries and L2 sizes in bytes of the GPUs to model (catalog names, or entries of a
    user's GPU file)."""
    specs = [get_gpu(g) for g in gpus]
    return specs, [int(g.l2_mb * (1 << 20)) for g in specs]


def _workdir(opts: RunOptions, program_dir: Path) -> tuple[Path, bool]:
    if opts.workdir is not None:
        tag = hashlib.sha1(str(program_dir.resolve()).encode()).hexdigest()[:8]
        return Path(opts.workdir) / f"{program_dir.name}-{tag}", False
    return Path(tempfile.mkdtemp(prefix=f"rl-count-{program_dir.name}-")), True


def program_output(workdir: str | Path, program_dir: Path, name: str) -> Path:
    """The file *name* a program counted with ``workdir=`` *workdir* wrote in its working
    directory (its folder): sandboxed, the folder is read-only and what it writes there lands
    in its work folder (:data:`runner.CWD_OVERLAY`); unsandboxed, in the folder itself."""
    work, _ = _workdir(RunOptions(workdir=Path(workdir)), program_dir)
    landed = work / CWD_OVERLAY / name
    return landed if landed.exists() else program_dir / name


def build_and_count(backend: str, program_dir: Path, spec: BuildSpec, args: list[str],
                    opts: RunOptions, extra_env: dict[str, str] | None = None,
                    retry_valid: bool = False) -> list[LaunchCount]:
    """With *retry_valid*, a run that ended (exit, crash or idle stop; not the time limit)
    before every expected kernel was counted is run again, in the time left, with every
    launch and team executed: skipped launches and unsampled teams leave results that the
    program's own checks reject (it then stops early) or that its host loops wait on; so is
    one whose counted launches met double divisions after the data went partial (which of
    the GPU's division paths they take depends on the values: rl_count.c __rl_ddiv)."""
    work, temporary = _workdir(opts, program_dir)
    try:
        try:
            exe = build_instrumented(spec, work / "build", timeout=opts.build_timeout)
        except CompileError as e:
            # the link's own failures (undefined symbols, a library absent) apart: the
            # sources compiled
            stage = "link" if str(e).startswith("link ") else "compile"
            raise ProgramRunError(program_dir.name, stage, str(e)) from e
        names, sizes = l2_config(opts.gpus)
        out = work / "counts.jsonl"
        out.unlink(missing_ok=True)
        env = {"RL_OUT": str(out), "RL_LAUNCHES": str(opts.launches),
               "RL_SKIP_AFTER": "1" if opts.skip_after else "0",
               "RL_KERNEL": opts.kernel or "", "RL_L2": ",".join(map(str, sizes)),
               "OMP_NUM_THREADS": "1", "RL_FULL_THREADS": str(opts.full_threads),
               # `target ... nowait` regions run on the encountering thread, one after
               # another: libomp's hidden helper threads would run them beside the host
               # code and interleave launches (whose counts then mix)
               "LIBOMP_USE_HIDDEN_HELPER_TASK": "0",
               "RL_SAMPLE_BLOCKS": str(opts.sample_blocks),
               "RL_SAMPLE_MAX": str(opts.sample_max),
               "RL_SAMPLE_BUDGET": str(opts.sample_budget),
               "RL_WARM_BLOCKS": str(opts.warm_blocks),
               "RL_SAMPLE_SKIP": "1" if opts.sample_skip else "0",
               "RL_LAUNCH_BUDGET": str(opts.launch_budget),
               "RL_EXPECT": "\n".join(e for e in opts.expect if e), **(extra_env or {})}
        res = run_limited(exe, args, program_dir, env, opts.timeout, opts.memory_gb,
                          idle_stop=opts.idle_stop, device_gb=device_memory_gb(names))
        log.info("%s: ran with isolation %s in %.1f s", program_dir.name, res.isolation,
                 res.seconds)
        raws = read_raw(out)
        res, raws = _rerun_stalled(exe, args, program_dir, env, opts, res, raws, out)
        if retry_valid and _worth_retry(res, raws, opts):
            res, raws = _retry_valid(exe, args, program_dir, env, opts, res, raws, out)
        if not raws:
            raise classify_failure(program_dir.name, res, opts.timeout, opts.memory_gb)
        blocks = load_blocks(work / "build" / "blocks.json")
        gpu = names[0].name if names else None
        recs = CountedLaunches(to_launch_count(r, blocks, backend, names, gpu) for r in raws)
        recs.isolation = res.isolation
        if res.timed_out or (res.returncode != 0 and not res.idle_stopped):
            recs.stopped = stopped_note(program_dir.name, res, opts, len(raws))
            for r in recs:
                r.run_stopped = recs.stopped
            log.info("%s: %d launches counted before the program stopped (%s)",
                     program_dir.name, len(raws), recs.stopped)
        # "kernel@site" keys from the CUDA layer
        number_variants(recs, lambda k: k.partition("@")[0])
        return recs
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)


def stopped_note(program: str, res: RunResult, opts: RunOptions, counted: int) -> str:
    """How a run that counted *counted* launches ended when it failed: the failure's cause,
    that the counts are partial, and its first line of detail (``"timeout: partial, 3
    launches counted; still running after 120 s"``)."""
    part = f"partial, {counted} launch{'' if counted == 1 else 'es'} counted"
    if res.timed_out:
        return f"timeout: {part}; still running after {opts.timeout:g} s"
    err = classify_failure(program, res, opts.timeout, opts.memory_gb)
    first = err.detail.splitlines()[0] if err.detail else ""
    return f"{err.cause}: {part}; {first[:160]}".strip()


def number_variants(recs: list[LaunchCount], base: Callable[[str], str]) -> None:
    """Rename each record's kernel to ``base(kernel)`` and number the distinct full names
    that share a base (launch sites, template instantiations, regions of one name in
    different files) as its variants 0, 1, ... in order of first launch."""
    variants: dict[str, dict[str, int]] = {}
    for r in recs:
        short = base(r.kernel)
        seen = variants.setdefault(short, {})
        r.variant = seen.setdefault(r.kernel, len(seen))
        r.kernel = short


_LINE = re.compile(r"^(.*)_l(\d+)$")


def expect_matches(name: str, frag: str) -> bool:
    """The runtime's rule (rl_count.c expect_match): the whole name, the name before
    ``@site``, its end, or (OpenMP regions) the same function with a line within 8."""
    if name == frag or name.startswith(frag + "@") or name.endswith(frag):
        return True
    mn, mf = _LINE.match(name), _LINE.match(frag)
    if not mn or not mf or abs(int(mn.group(2)) - int(mf.group(2))) > 8:
        return False
    return bool(mf.group(1)) and mn.group(1).endswith(mf.group(1))


def _met(raws: list[dict[str, Any]], expect: list[str]) -> int:
    """Wanted fragments met; one listed k times is met once per distinct kernel it matches
    (launch sites, template instantiations), at most k times (rl_count.c expect_done)."""
    names = {str(r.get("kernel", "")) for r in raws}
    times = Counter(f for f in expect if f)
    return sum(min(k, sum(expect_matches(n, f) for n in names)) for f, k in times.items())


def _kernels(raws: list[dict[str, Any]]) -> int:
    """Distinct kernels counted."""
    return len({str(r.get("kernel", "")) for r in raws})


def _unchecked(raws: list[dict[str, Any]]) -> int:
    """Divisions whose fast or slow path the runtime could not decide (the program's data
    was partial by then: an earlier launch skipped or sampled)."""
    return sum(int(r.get("unchecked_div", 0)) for r in raws)


def _worth_retry(res: RunResult, raws: list[dict[str, Any]], opts: RunOptions) -> bool:
    """Rerun with every launch executed when expected kernels were not reached or counted
    launches met divisions on partial data."""
    wanted = [e for e in opts.expect if e]
    if not (opts.skip_after or opts.sample_skip) or res.timed_out:
        return False
    # a run of one kernel (count_run's *kernel*, its default expectation) that did not
    # reach it ran to its end as before: the name may be a part of the kernel's
    missing = bool(wanted) and wanted != [opts.kernel] and _met(raws, wanted) < len(wanted)
    return (missing or _unchecked(raws) > 0) and opts.timeout - res.seconds > 5


_STALLED = re.compile(r"^rl: stalled kernel: (.+)$", re.M)
#: kernels run whole after a stall, at most (each costs a rerun)
MAX_STALL_RERUNS = 3


def _rerun_stalled(exe: Path, args: list[str], program_dir: Path, env: dict[str, str],
                   opts: RunOptions, res: RunResult, raws: list[dict[str, Any]], out: Path
                   ) -> tuple[RunResult, list[dict[str, Any]]]:
    """A sampled block that waits for a block the sample runs later or skips (a spin on a
    flag: rl_count.c stall_check) ends the run with EXIT_STALL: run again, in the time left,
    with that kernel's launches run whole and in block order (``RL_NO_SAMPLE``, kept in
    *env* for any later rerun). Records of the run that stalled are kept beside *out*, and
    stand when the rerun counts fewer launches (it ran out of time)."""
    stalled: list[str] = []
    while res.returncode == EXIT_STALL and len(stalled) < MAX_STALL_RERUNS:
        names = _STALLED.findall(res.stderr)
        left = opts.timeout - res.seconds
        if not names or names[-1] in stalled or left < 5:
            break
        stalled.append(names[-1])
        env["RL_NO_SAMPLE"] = "\n".join(stalled)
        log.info("%s: a sampled block of %s stalled; running its launches whole",
                 program_dir.name, names[-1])
        res2, raws2 = _run_again(exe, args, program_dir, env, opts, res, out,
                                 f"stalled{len(stalled)}", opts.idle_stop)
        res2.seconds += res.seconds
        if len(raws2) < len(raws):
            log.info("%s: the rerun counted %d launches, the stalled run %d: keeping those",
                     program_dir.name, len(raws2), len(raws))
            res.seconds = res2.seconds
            break
        res, raws = res2, raws2
    return res, raws


def _run_again(exe: Path, args: list[str], program_dir: Path, env: dict[str, str],
               opts: RunOptions, res: RunResult, out: Path, keep_as: str,
               idle_stop: float | None) -> tuple[RunResult, list[dict[str, Any]]]:
    """Run the program again in the time *res* left, the earlier run's records kept for
    inspection as ``counts.<keep_as>.jsonl`` beside *out*; the rerun's result and records."""
    if out.exists():
        out.replace(out.with_suffix(f".{keep_as}.jsonl"))
    res2 = run_limited(exe, args, program_dir, env, opts.timeout - res.seconds,
                       opts.memory_gb, idle_stop=idle_stop,
                       device_gb=device_memory_gb(l2_config(opts.gpus)[0]))
    return res2, read_raw(out)


def _retry_valid(exe: Path, args: list[str], program_dir: Path, env: dict[str, str],
                 opts: RunOptions, res: RunResult, raws: list[dict[str, Any]], out: Path
                 ) -> tuple[RunResult, list[dict[str, Any]]]:
    env2 = {**env, "RL_SKIP_AFTER": "0", "RL_SAMPLE_SKIP": "0"}
    # a longer idle stop: executing the uncounted blocks of a large sampled launch in full
    # (what a later kernel's sizes come from, as marchingCubes' block counts) takes longer
    # than the first run's pause after its last counted launch
    idle = None if opts.idle_stop is None else max(4 * opts.idle_stop, RETRY_IDLE_STOP)
    res2, raws2 = _run_again(exe, args, program_dir, env2, opts, res, out, "first", idle)
    wanted = [e for e in opts.expect if e]
    met, met2 = _met(raws, wanted), _met(raws2, wanted)
    log.info("%s: re-ran with every launch executed: %d -> %d of %d expected kernels",
             program_dir.name, met, met2, len(wanted))
    if met2 > met or (met2 == met and _unchecked(raws2) < _unchecked(raws)
                      and _kernels(raws2) >= _kernels(raws)):
        return res2, raws2
    return res, raws
