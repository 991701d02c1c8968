"""Exact dynamic counts of an OpenCL kernel launch under Oclgrind, without any GPU.

Oclgrind (Debian ``oclgrind`` + ``liboclgrind-dev``) simulates an OpenCL device and calls
plugins for every instruction and memory access. ridgeline ships a small plugin
(``data/oclgrind/counter_plugin.cpp``, compiled once with g++ and cached) that records, per
kernel invocation and per lane: FLOPs by precision (FMA, ``mad`` and ``fmuladd`` = 2),
integer ops, global/local/constant load and store bytes, the distinct 32-byte global
sectors read and written, warp-level (32 consecutive work-items) sector requests, and per
buffer argument the lowest and highest byte offset touched (used by the input sizing of
:mod:`ridgeline.datagen`).

Public API::

    counts = count_kernel(source, "saxpy", global_size=1024, local_size=64,
                          args=[Buffer(4096), Buffer(4096), Scalar(2.0, "float"),
                                Scalar(1024, "int")])
    counts.flops_sp, counts.int_ops, counts.global_load_bytes, counts.sectors_read
    counts.to_counts()          # ridgeline.hardware.Counts (DRAM bytes = distinct sectors * 32)
    profile_program(exe, args)  # every launch of a host program run under Oclgrind
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ridgeline import sandbox
from ridgeline._atomic import atomic_path
from ridgeline.errors import (
    CompileError,
    ExecutionError,
    LaunchError,
    MissingDependencyError,
    UsageError,
)
from ridgeline.hardware import Counts
from ridgeline.profiles.oclgrind_sampling import (
    describe_sample,
    n_groups,
    scale_record,
    should_sample,
)
from ridgeline.sandbox import Limits

__all__ = [
    "Buffer",
    "LocalBuffer",
    "Scalar",
    "ScalarBytes",
    "ArgAccess",
    "OclgrindCounts",
    "oclgrind_available",
    "plugin_path",
    "count_kernel",
    "profile_program",
]

log = logging.getLogger(__name__)

SECTOR = 32
#: the wall-clock limit of a sandboxed run given no timeout
_NO_TIMEOUT = 86_400.0
INSTALL = "apt-get install oclgrind liboclgrind-dev llvm-14-dev g++"
_PLUGIN_SRC = Path(__file__).resolve().parent.parent / "data" / "oclgrind" / "counter_plugin.cpp"


@dataclass(frozen=True)
class Buffer:
    """A global or constant buffer argument of *nbytes* bytes, filled with *fill*
    (``None``: uninitialised)."""

    nbytes: int
    fill: float | int | None = 1
    dump: bool = False
    ctype: str = "float"  # element type (OpenCL C), used when a real device fills it
    #: the element type Oclgrind fills it as (``None``: the kernel's declared type, which
    #: Oclgrind cannot read through a typedef)
    sim_type: str | None = None


@dataclass(frozen=True)
class LocalBuffer:
    """A ``__local`` buffer argument of *nbytes* bytes."""

    nbytes: int


@dataclass(frozen=True)
class Scalar:
    """A scalar argument (value as the kernel's parameter type reads it)."""

    value: float | int
    ctype: str = "int"
    nbytes: int | None = None  # None: from ctype

    @property
    def size(self) -> int:
        if self.nbytes:
            return self.nbytes
        return _SCALAR_SIZES.get(self.ctype.replace("unsigned ", "u").strip(), 4)


@dataclass(frozen=True)
class ScalarBytes:
    """A scalar argument given as the bytes the host passed (``clSetKernelArg``), whatever
    its type."""

    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


Arg = Buffer | LocalBuffer | Scalar | ScalarBytes

_SCALAR_SIZES = {"char": 1, "uchar": 1, "bool": 1, "short": 2, "ushort": 2, "half": 2,
                 "int": 4, "uint": 4, "float": 4, "long": 8, "ulong": 8, "double": 8,
                 "size_t": 8}


@dataclass(frozen=True)
class ArgAccess:
    """Byte range of one buffer argument that the launch touched."""

    lo: int
    hi: int
    load_bytes: int
    store_bytes: int


@dataclass
class OclgrindCounts:
    """Dynamic counts of one kernel invocation (all per lane; FMA = 2 FLOPs)."""

    kernel: str
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    instructions: int = 0
    flops_sp: int = 0
    flops_dp: int = 0
    flops_hp: int = 0
    fma_sp: int = 0
    fma_dp: int = 0
    fma_hp: int = 0
    special_sp: int = 0
    special_dp: int = 0
    special_hp: int = 0
    int_ops: int = 0
    fp_compares: int = 0
    address_ops: int = 0
    convert_ops: int = 0
    branches: int = 0
    barriers: int = 0
    atomics_global: int = 0
    atomics_local: int = 0
    global_load_bytes: int = 0
    global_store_bytes: int = 0
    global_loads: int = 0
    global_stores: int = 0
    local_load_bytes: int = 0
    local_store_bytes: int = 0
    constant_load_bytes: int = 0
    private_load_bytes: int = 0
    private_store_bytes: int = 0
    sectors_read: int = 0
    sectors_written: int = 0
    warp_sector_requests: int = 0
    warp_requests: int = 0
    args: dict[int, ArgAccess] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    groups_run: int = 0  # work-groups Oclgrind ran
    groups_total: int = 0  # work-groups of the launch (more than run: counts are scaled)
    group_instructions_min: int = 0  # the least and most work of one group that ran
    group_instructions_max: int = 0

    @property
    def sampled(self) -> bool:
        """Counts scaled from a sample of the launch's work-groups (Oclgrind ``--quick``)."""
        return 0 < self.groups_run < self.groups_total

    @property
    def sample_note(self) -> str:
        """How the counts were taken, for the output ("" when every group ran)."""
        if not self.sampled:
            return ""
        return describe_sample(self.groups_run, self.groups_total,
                               self.group_instructions_min, self.group_instructions_max)

    @property
    def dram_bytes(self) -> int:
        """Compulsory DRAM traffic: every distinct 32-byte sector read or written once."""
        return SECTOR * (self.sectors_read + self.sectors_written)

    @property
    def sectors_per_request(self) -> float:
        return self.warp_sector_requests / self.warp_requests if self.warp_requests else 0.0

    def to_counts(self) -> Counts:
        return Counts(float(self.flops_sp), float(self.flops_dp), float(self.flops_hp),
                      float(self.int_ops), float(self.dram_bytes))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["args"] = {str(k): asdict(v) for k, v in self.args.items()}
        d["dram_bytes"] = self.dram_bytes
        d["sampled"] = self.sampled
        return d

    @classmethod
    def from_record(cls, rec: dict[str, Any], errors: list[str] | None = None) -> OclgrindCounts:
        names = {f for f in cls.__dataclass_fields__ if f not in ("args", "errors")}
        kw: dict[str, Any] = {k: rec[k] for k in names if k in rec}
        kw["global_size"] = tuple(rec.get("global", (1, 1, 1)))
        kw["local_size"] = tuple(rec.get("local", (1, 1, 1)))
        kw["sectors_read"] = rec.get("global_sectors_load", 0)
        kw["sectors_written"] = rec.get("global_sectors_store", 0)
        kw["groups_run"] = rec.get("groups", 0)
        kw["groups_total"] = rec.get("groups_total", rec.get("groups", 0))
        kw["args"] = {int(k): ArgAccess(**v) for k, v in rec.get("args", {}).items()}
        kw["errors"] = list(errors or [])
        return cls(**kw)


def oclgrind_available() -> bool:
    """True when oclgrind-kernel and the tools to build the counting plugin are present."""
    return bool(shutil.which("oclgrind-kernel") and shutil.which("g++")
                and Path("/usr/include/oclgrind/Plugin.h").exists() and _llvm_include())


def _llvm_include() -> str | None:
    for cfg in ("llvm-config-14", "llvm-config"):
        exe = shutil.which(cfg)
        if exe:
            out = subprocess.run([exe, "--includedir"], capture_output=True, text=True)
            if out.returncode == 0 and Path(out.stdout.strip(), "llvm/IR/Function.h").exists():
                return out.stdout.strip()
    return None


def _cache_dir() -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    return Path(base) / "oclgrind"


def plugin_path() -> Path:
    """Build (once, cached by content hash) and return the counting plugin library."""
    src = _PLUGIN_SRC.read_bytes()
    inc = _llvm_include()
    if not shutil.which("g++") or inc is None or not shutil.which("oclgrind-kernel"):
        raise MissingDependencyError("Oclgrind with its plugin headers", INSTALL)
    digest = hashlib.sha1(src + inc.encode()).hexdigest()[:16]
    out = _cache_dir() / f"ridgeline_counter_{digest}.so"
    if out.exists():
        if out.stat().st_mode & 0o005 != 0o005:  # built private by an earlier version
            out.chmod(0o755)
        return out
    with atomic_path(out, suffix=".so") as tmp:
        cmd = ["g++", "-std=c++17", "-O2", "-fno-rtti", "-shared", "-fPIC", f"-I{inc}",
               str(_PLUGIN_SRC), "-o", str(tmp), "-loclgrind"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise CompileError("building the Oclgrind counting plugin failed: "
                               f"{res.stderr[-2000:]}")
        # readable by the unprivileged uid a root ridgeline's sandboxed Oclgrind runs as (the
        # temporary file it was linked into is private)
        tmp.chmod(0o755)
    return out


def _oclgrind_env() -> dict[str, str]:
    """Oclgrind's own settings, which pass into the sandbox (its scrubbed environment drops
    the rest)."""
    return {k: v for k, v in os.environ.items() if k.startswith("OCLGRIND_")}


def _include_dirs(build_options: str) -> list[Path]:
    """The folders ``-I`` names in *build_options* (mounted in the sandbox for the build)."""
    try:
        words = shlex.split(build_options)
    except ValueError:
        return []
    dirs = [w[2:] or (words[i + 1] if i + 1 < len(words) else "")
            for i, w in enumerate(words) if w.startswith("-I")]
    return [Path(d) for d in dirs if d]


def _seconds(timeout: float | None) -> float:
    return _NO_TIMEOUT if timeout is None else timeout


def _fmt_scalar(a: Scalar) -> str:
    if isinstance(a.value, float) and not a.value.is_integer():
        return repr(a.value)
    if a.ctype in ("float", "double", "half"):
        return str(float(a.value))
    return str(int(a.value))


def _arg_line(a: Arg) -> str:
    if isinstance(a, ScalarBytes):
        return f"<uchar size={max(1, a.size)} hex>\n" + " ".join(f"{b:02x}" for b in a.data)
    if isinstance(a, Scalar):
        return f"<size={a.size}>\n{_fmt_scalar(a)}"
    if isinstance(a, LocalBuffer):
        return f"<size={max(1, a.nbytes)}>"
    parts = [f"size={max(1, a.nbytes)}"]
    if a.sim_type:
        parts.insert(0, a.sim_type)
    if a.fill is None:
        parts.append("noinit")
    else:
        parts.append(f"fill={a.fill}")
    if a.dump:
        parts.append("dump")
    return "<" + " ".join(parts) + ">"


def _dims(v: int | Sequence[int], what: str) -> tuple[int, int, int]:
    vals = [int(v)] if isinstance(v, int) else [int(x) for x in v]
    if not 1 <= len(vals) <= 3 or any(x < 1 for x in vals):
        raise LaunchError(f"{what} {v!r} must be 1 to 3 positive integers")
    vals += [1] * (3 - len(vals))
    return (vals[0], vals[1], vals[2])


def write_simfile(path: Path, source_file: Path, kernel: str, gsize: tuple[int, int, int],
                  lsize: tuple[int, int, int], args: Sequence[Arg]) -> None:
    lines = [str(source_file), kernel, " ".join(map(str, gsize)), " ".join(map(str, lsize))]
    lines += [_arg_line(a) for a in args]
    path.write_text("\n".join(lines) + "\n")


def _diagnose(kernel: str, stderr: str, rc: int) -> Exception:
    low = stderr.lower()
    if "build" in low and ("error" in low or "fail" in low):
        return CompileError(f"kernel {kernel!r} did not build under Oclgrind: {stderr[-1500:]}")
    if "not found" in low and "kernel" in low:
        return UsageError(f"kernel {kernel!r} not found in the source: {stderr[-500:]}")
    return ExecutionError(f"Oclgrind failed on kernel {kernel!r} (exit {rc}): {stderr[-1500:]}")


def count_kernel(
    source: str | Path,
    kernel: str,
    global_size: int | Sequence[int],
    local_size: int | Sequence[int],
    args: Sequence[Arg],
    *,
    build_options: str = "",
    timeout: float | None = 120.0,
    sample_above: int | None = None,
) -> OclgrindCounts:
    """Run one launch of *kernel* under Oclgrind and return its dynamic counts.

    *source* is OpenCL C text or a path to a ``.cl`` file; *args* follow the kernel's
    parameter order; *build_options* is what the host passes to ``clBuildProgram``. A
    launch of more than *sample_above* work-groups runs only its first and last group and
    its counts are scaled (``sampled``, :mod:`~ridgeline.profiles.oclgrind_sampling`);
    ``None`` runs every group. Memory errors (out-of-bounds accesses) are kept in
    ``errors`` and do not raise; a build failure raises :class:`CompileError`, a timeout
    :class:`ExecutionError`. Oclgrind runs in the sandbox (:func:`ridgeline.sandbox.run`):
    the kernel's build sees its own folder and the system, not the user's files.
    """
    gsize, lsize = _dims(global_size, "global size"), _dims(local_size, "local size")
    for g, loc in zip(gsize, lsize, strict=True):
        if g % loc:
            raise LaunchError(f"local size {lsize} must divide the global size {gsize}")
    plugin = plugin_path()
    sample = should_sample(gsize, lsize, sample_above)
    with tempfile.TemporaryDirectory(prefix="ridgeline-oclgrind-") as tmpd:
        tmp = Path(tmpd)
        tmp.chmod(0o711)  # the sandbox enters it before it drops to the uid it is handed to
        if isinstance(source, Path):
            src_file = source.resolve()
        else:
            src_file = tmp / "kernel.cl"
            src_file.write_text(source)
        sim, out = tmp / "launch.sim", tmp / "counts.jsonl"
        write_simfile(sim, src_file, kernel, gsize, lsize, args)
        cmd = ["oclgrind-kernel", "--plugins", str(plugin), "--num-threads", "1",
               "--max-errors", "20"]
        if build_options:
            cmd += ["--build-options", build_options]
        if sample:
            cmd.append("--quick")
        # the kernel's build reads what it includes: in the sandbox, its own folder only
        res = sandbox.run(cmd + [str(sim)], cwd=tmp, limits=Limits(seconds=_seconds(timeout)),
                          env={**_oclgrind_env(), "RIDGELINE_OCLGRIND_OUT": str(out)},
                          readable=[plugin.parent, src_file.parent,
                                    *_include_dirs(build_options)], writable=[tmp])
        if res.timed_out:
            raise ExecutionError(
                f"kernel {kernel!r} did not finish under Oclgrind within {timeout} s "
                f"(global {gsize}, local {lsize})")
        recs = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
        if not recs:
            raise _diagnose(kernel, res.stderr + res.stdout, res.returncode)
        errors = [ln for ln in res.stderr.splitlines() if ln.strip().startswith(
            ("Invalid", "Uninitialized", "Read-write", "Work-group divergence", "Data race"))]
        rec = recs[-1]
        if sample:
            footprint = sum(a.nbytes for a in args if isinstance(a, Buffer))
            rec = scale_record(rec, n_groups(gsize, lsize), footprint)
        return OclgrindCounts.from_record(rec, errors)


def profile_program(
    program: str | Path,
    args: Sequence[str] = (),
    *,
    kernel: str | None = None,
    timeout: float | None = 600.0,
) -> list[OclgrindCounts]:
    """Run an OpenCL host program under Oclgrind; one record per kernel launch, in order.

    *program* is an executable, or a folder holding exactly one executable file. It runs in
    the sandbox (:func:`ridgeline.sandbox.run`): its folder is its working directory, it
    writes only in a temporary work folder, without network and with a scrubbed environment;
    *timeout* (None: a day) ends it and every process it started.
    """
    exe = Path(program)
    if exe.is_dir():
        cands = [p for p in exe.iterdir() if p.is_file() and os.access(p, os.X_OK)
                 and p.suffix not in (".sh", ".py")]
        if len(cands) != 1:
            raise UsageError(f"{exe} must hold exactly one executable to run under Oclgrind; "
                             f"found {[p.name for p in cands]}")
        exe = cands[0]
    if not shutil.which("oclgrind"):
        raise MissingDependencyError("oclgrind", INSTALL)
    plugin = plugin_path()
    exe = exe.resolve()
    with tempfile.TemporaryDirectory(prefix="ridgeline-oclgrind-") as tmpd:
        work = Path(tmpd)
        out = work / "counts.jsonl"
        env = {**_oclgrind_env(), "RIDGELINE_OCLGRIND_OUT": str(out),
               "OCLGRIND_NUM_THREADS": "1"}
        cmd = ["oclgrind", "--plugins", str(plugin), str(exe), *map(str, args)]
        # the host program runs in its own folder (read-only: what it writes there lands in
        # the work folder); Oclgrind's install is visible with the rest of the tree
        res = sandbox.run(cmd, cwd=exe.parent, limits=Limits(seconds=_seconds(timeout)),
                          env=env, readable=[plugin.parent], writable=[work],
                          cwd_overlay=work / "cwd")
        if res.timed_out:
            raise ExecutionError(f"{exe} did not finish under Oclgrind within {timeout} s")
        recs = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
        if res.returncode != 0 and not recs:
            raise ExecutionError(f"{exe} failed under Oclgrind (exit {res.returncode}): "
                                 f"{res.stderr[-1500:]}")
        log.debug("%s ran under Oclgrind with isolation %s", exe, res.isolation)
    counts = [OclgrindCounts.from_record(r) for r in recs]
    return [c for c in counts if kernel is None or c.kernel == kernel]
