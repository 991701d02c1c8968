"""Every kernel launch and host-device transfer of an unmodified OpenCL host program, timed
with the runtime's own profiling events.

The interposer ``runtime/rl_cltrace.c`` is preloaded into the program: it turns profiling on
for every command queue and writes one JSON line per program source, build, kernel launch
(name, global/local sizes, argument kinds and bytes, device start/end) and transfer (read,
write, copy, fill, map, unmap: bytes and device times). With ``RL_CLTRACE_ANY_DEVICE=1``
in its environment, a program asking for a device type the platform lacks (a GPU, on PoCL's
CPU device) gets the platform's devices.

    so = interposer()
    outcome, trace = run_traced(["./gemm.exe"], cwd=folder, work=tmp, seconds=60)
    for launch in trace.launches: launch["kernel"], launch["end"] - launch["start"]
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ridgeline import sandbox
from ridgeline.errors import CompileError, MissingDependencyError

__all__ = ["RUNTIME", "Trace", "interposer", "read_trace", "run_traced", "TRACE_ENV"]

RUNTIME = Path(__file__).parent / "runtime" / "rl_cltrace.c"
TRACE_ENV = "RL_CLTRACE"


def _cache_root() -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    return Path(base) / "cltrace"


def interposer(cache: Path | None = None) -> Path:
    """The interposer built as a shared library (once per source text, cached)."""
    src = RUNTIME.read_bytes()
    out = (cache or _cache_root()) / f"rl_cltrace-{hashlib.sha1(src).hexdigest()[:12]}.so"
    if out.exists():
        return out
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise MissingDependencyError("the OpenCL trace interposer (a C compiler)",
                                     "apt-get install gcc")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    res = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(tmp), str(RUNTIME), "-ldl",
                          "-lpthread"], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise CompileError(f"{RUNTIME} did not compile (is the OpenCL header CL/cl.h "
                           f"installed? apt-get install opencl-headers): {res.stderr[-800:]}")
    tmp.replace(out)
    return out


@dataclass
class Trace:
    """The records of one run: program sources and build options by program id, kernel
    launches and transfers in issue order, the device-type fallbacks taken
    (``RL_CLTRACE_ANY_DEVICE``) and lines that could not be read."""

    sources: dict[int, str] = field(default_factory=dict)
    binaries: set[int] = field(default_factory=set)
    build_options: dict[int, str] = field(default_factory=dict)
    launches: list[dict[str, Any]] = field(default_factory=list)
    transfers: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: int = 0

    def kernel_ns(self) -> list[float]:
        """Device time of each timed launch (END - START), in issue order."""
        return [float(r["end"] - r["start"]) for r in self.launches if "end" in r]


def read_trace(path: str | Path) -> Trace:
    """Records of a trace file; a line cut short (a program killed mid-write) is counted
    in ``bad_lines``, not raised."""
    t = Trace()
    p = Path(path)
    if not p.exists():
        return t
    for line in p.read_text(errors="replace").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            t.bad_lines += 1
            continue
        ev = r.get("ev")
        if ev == "program":
            if r.get("binary"):
                t.binaries.add(int(r["id"]))
            else:
                t.sources[int(r["id"])] = str(r.get("source", ""))
        elif ev == "build":
            t.build_options[int(r["id"])] = str(r.get("options", ""))
        elif ev == "launch":
            t.launches.append(r)
        elif ev == "transfer":
            t.transfers.append(r)
        elif ev == "device_fallback":
            t.fallbacks.append(r)
    t.launches.sort(key=lambda r: r.get("seq", 0))
    t.transfers.sort(key=lambda r: r.get("seq", 0))
    return t


def run_traced(cmd: Sequence[str], *, cwd: Path, work: Path, seconds: float,
               readable: Sequence[Path] = (), env: dict[str, str] | None = None,
               so: Path | None = None) -> tuple[sandbox.Outcome, Trace]:
    """Run *cmd* in *cwd* in the sandbox with the interposer preloaded (its writes go to
    *work*, the program's folder stays read-only) and read its trace. A run stopped at
    *seconds* keeps the records of the commands that completed before. The CPU-time limit
    is *seconds* on every core (an OpenCL CPU runtime keeps them all busy)."""
    so = so or interposer()
    work.mkdir(parents=True, exist_ok=True)
    out = work / "trace.jsonl"
    out.unlink(missing_ok=True)
    full = {**(env or {}), "LD_PRELOAD": str(so), TRACE_ENV: str(out)}
    cpu = int(seconds * (os.cpu_count() or 1)) + 1
    outcome = sandbox.run(list(cmd), cwd=cwd, limits=sandbox.Limits(seconds, cpu_seconds=cpu),
                          env=full,
                          readable=[so.parent, *readable], writable=[work],
                          cwd_overlay=work / "cwd")
    return outcome, read_trace(out)
