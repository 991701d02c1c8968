"""Run the commands that touch a user's program isolated: a count-run's compiler, linker and
instrumented program (:mod:`ridgeline.counting`), an OpenCL host program under Oclgrind
(:func:`ridgeline.profiles.oclgrind.profile_program`) and nvcc, ptxas and cuobjdump on CUDA
sources (:mod:`ridgeline.compile.nvcc`).

A program is code the user may not have written, and a compiler reads whatever its sources
include. Every command runs through :func:`run`, under bubblewrap (``bwrap``) when it can
start here:

* **filesystem**: the whole tree is mounted read-only (``--ro-bind / /``: the toolchain,
  CUDA headers and input data may live anywhere under ``/usr``, ``/opt`` or the dataset's
  folder, and listing them would break on the next machine); over it ``/tmp``, ``/root``,
  ``/home``, ``$HOME`` and ``/dev/shm`` are empty private tmpfs (secrets: ``~/.gitconfig``,
  keys, other runs' files); then *readable* paths are mounted back read-only (sources,
  include folders, the counting runtime) and *writable* ones read-write (the run's own work
  folder, nothing else);
* **the program's folder as its working directory**: with *cwd_overlay*, the working
  directory is a writable folder (in the work folder) of links to the program folder's
  entries, mounted at the program folder's own path: inputs read as before (``../data``
  resolves beside the real folder), outputs it writes land in the work folder, and its
  sources cannot be changed;
* **no network** (``--unshare-net``: not even loopback), own PID, IPC and UTS namespaces;
  ``--die-with-parent``: the program's PID 1 is killed when ridgeline is, and when the PID 1
  ends every process of the namespace is killed with it, so children that detach
  (``setsid``, double fork) cannot outlive the run;
* **a scrubbed environment** (:func:`scrubbed_env`): PATH, locale, compiler search paths and
  the runtime's ``RL_*``/``OMP_*``/``KMP_*``/``LIBOMP_*`` knobs; no API keys, ``HOME`` is the
  private ``/tmp``;
* **rlimits** set inside the namespaces (``prlimit``): processes, file size, CPU seconds,
  address space, no core files. Run as root, the command first drops to an unprivileged uid
  of its own (``setpriv``; the kernel does not apply the process limit to root), the
  writable folders being handed to that uid.

Where bwrap cannot start (not installed, a container without user namespaces), a warning
says why, once, and the command runs unsandboxed but limited: its own session (killed as a
group, and any process carrying the run's token in its environment with it), the rlimits
and the scrubbed environment. Run as root, it runs as a uid of its own (``setpriv``), so
the process limit binds it and every process of that uid is killed at the end; it keeps
root's access to files. The filesystem and the network are then NOT isolated.
``RIDGELINE_SANDBOX`` chooses: ``auto`` (default: bwrap when it starts), ``bwrap``
(required: an error when it cannot start) or ``none``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import IO

from ridgeline._resident import ResidentWatch
from ridgeline._sandbox_fallback import (
    TOKEN,
    UID_BASE,
    fallback_argv,
    fresh_uid,
    limits_preexec,
    own_processes,
    sweep,
)
from ridgeline.errors import MissingDependencyError, UsageError

__all__ = ["Limits", "Outcome", "run", "isolation", "bwrap_problem", "scrubbed_env", "MODES",
           "ENV_VAR", "flag_dirs"]

log = logging.getLogger(__name__)

ENV_VAR = "RIDGELINE_SANDBOX"


def flag_dirs(flags: Sequence[str]) -> list[Path]:
    """Folders that compiler flags name, to mount readable (``-IDIR``, ``-I DIR``,
    ``-idirafter DIR``, ``-include FILE``: absolute paths that exist; a file gives its folder)."""
    out = []
    for f in flags:
        p = Path(f[2:] if f.startswith(("-I", "-L")) and len(f) > 2 else f)
        if p.is_absolute() and p.exists():
            out.append(p if p.is_dir() else p.parent)
    return out
MODES = ("auto", "bwrap", "none")
INSTALL = "apt-get install bubblewrap (or: bash scripts/setup.d/55-sandbox.sh)"

#: variables passed through from ridgeline's environment (besides the prefixes below)
_PASS = ("PATH", "LANG", "LANGUAGE", "TZ", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
         "LIBRARY_PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "SOURCE_DATE_EPOCH")
_PASS_PREFIX = ("LC_", "RL_", "OMP_", "KMP_", "LIBOMP_")
#: where the program folder is visible inside the sandbox when its path holds the overlay
_CWD_SRC = "/tmp/.ridgeline-cwd"
#: private /tmp size (a tmpfs counts against memory)
_TMP_BYTES = 4 << 30
_SHM_BYTES = 1 << 30
#: output kept per stream (the tail) unless run is given more
KEEP_BYTES = 1 << 16
_SIGNALS = {int(s) for s in signal.Signals}


@dataclass(frozen=True)
class Limits:
    """Limits of one command. *seconds* is the wall-clock limit; the CPU limit per process
    is that rounded up plus 1 s unless given. *memory_bytes* is each process's address space
    (RLIMIT_AS); *resident_bytes* the memory the whole process tree may touch (its resident
    sets, polled: :mod:`ridgeline._resident`), past which the tree is killed."""

    seconds: float
    memory_bytes: int | None = None
    resident_bytes: int | None = None
    processes: int = 1024
    file_bytes: int = 16 << 30
    cpu_seconds: int | None = None

    def cpu(self) -> int:
        return self.cpu_seconds if self.cpu_seconds is not None else math.ceil(self.seconds) + 1


@dataclass
class Outcome:
    """How a command ended. *stopped* is the reason *stop* gave when it ended the command
    early; *over_memory* the reason it was killed for touching more than
    ``Limits.resident_bytes``; *isolation* is ``"bwrap"`` or ``"none"``."""

    returncode: int
    seconds: float
    stdout: str
    stderr: str
    timed_out: bool
    isolation: str
    stopped: str | None = None
    over_memory: str | None = None


def _mode(mode: str | None) -> str:
    chosen = mode if mode is not None else os.environ.get(ENV_VAR, "auto") or "auto"
    if chosen not in MODES:
        where = "the sandbox parameter" if mode is not None else f"${ENV_VAR}"
        raise UsageError(f"sandbox mode {chosen!r} ({where}): one of {', '.join(MODES)}")
    return chosen


def isolation(mode: str | None = None) -> str:
    """The isolation commands get: ``"bwrap"`` or ``"none"`` (*mode*, else ``$RIDGELINE_
    SANDBOX``, else ``auto``). Warns once when falling back; raises MissingDependencyError
    when ``bwrap`` is required and cannot start."""
    chosen = _mode(mode)
    if chosen == "none":
        _warn_once(f"{ENV_VAR}=none", "sandboxing turned off")
        return "none"
    why = bwrap_problem()
    if why is None:
        return "bwrap"
    if chosen == "bwrap":
        raise MissingDependencyError(f"the bubblewrap sandbox ({ENV_VAR}=bwrap)", INSTALL,
                                     why)
    _warn_once(why, "bubblewrap cannot start")
    return "none"


@cache
def _warn_once(why: str, what: str) -> None:
    hint = "" if why.endswith("=none") else f" To isolate them: {INSTALL}"
    log.warning("%s (%s): programs run WITHOUT filesystem or network isolation, only with "
                "rlimits, their own process group and a scrubbed environment.%s",
                what, why, hint)


@cache
def _warn_private(folder: Path) -> None:
    log.warning("%s is not readable by other users; ridgeline runs as root, so the program "
                "runs as an unprivileged uid of its own and may not read its inputs there "
                "(chmod o+rx, or %s=none)", folder, ENV_VAR)


@lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bwrap cannot run a command here (None: it can): tried once with ``true``."""
    missing = [t for t in ("bwrap", "prlimit", *(["setpriv"] if os.geteuid() == 0 else []))
               if shutil.which(t) is None]
    if missing:
        return f"{', '.join(missing)} not found on PATH"
    uid = UID_BASE if os.geteuid() == 0 else None
    argv = _bwrap_argv(["true"], Path("/"), Limits(seconds=10), (), (), None, uid)
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                           env=scrubbed_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap did not run: {e}"
    if p.returncode != 0:
        return f"bwrap exited {p.returncode}: {p.stderr.strip()[-300:]}"
    return None


def scrubbed_env(extra: dict[str, str] | None = None, home: str = "/tmp") -> dict[str, str]:
    """What a command sees of ridgeline's environment: PATH, locale, compiler search paths and
    the runtime's RL_/OMP_/KMP_/LIBOMP_ variables, with *extra* on top; HOME and TMPDIR are
    *home*."""
    env = {k: v for k, v in os.environ.items() if k in _PASS or k.startswith(_PASS_PREFIX)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=home, TMPDIR=home, **(extra or {}))
    return env


def _rlimit_args(limits: Limits) -> list[str]:
    out = [f"--nproc={limits.processes}", f"--fsize={limits.file_bytes}",
           f"--cpu={limits.cpu()}:{limits.cpu() + 2}", "--core=0"]
    if limits.memory_bytes is not None:
        out.append(f"--as={limits.memory_bytes}")
    return out


def _hidden() -> list[str]:
    """Folders replaced by empty tmpfs: private tmp, and every home."""
    paths = ["/tmp", "/root", "/home", "/run/user", str(Path.home())]
    return [p for p in dict.fromkeys(os.path.realpath(p) for p in paths)
            if p != "/" and os.path.isdir(p)]


def _mount(flag: str, src: str, dest: str, hidden: list[str], made: set[str]) -> list[str]:
    """bwrap's arguments for mounting *src* at *dest*, with the folders leading to it inside
    a hidden tmpfs made traversable (bwrap makes them 0700: unreachable to a dropped uid)."""
    out = []
    for parent in reversed(Path(dest).parents):
        p = str(parent)
        if p not in made and any(p.startswith(h + "/") for h in hidden):
            made.add(p)
            out += ["--perms", "0755", "--dir", p]
    return [*out, flag, src, dest]


def _bwrap_argv(cmd: Sequence[str], cwd: Path, limits: Limits, readable: Sequence[Path],
                writable: Sequence[Path], overlay: Path | None, uid: int | None) -> list[str]:
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc",
            # POSIX shared memory (libomp registers itself there), private and writable
            "--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm"]
    hidden, made = _hidden(), set[str]()
    for h in hidden:
        argv += (["--perms", "1777", "--size", str(_TMP_BYTES)] if h == "/tmp" else
                 ["--perms", "0755"]) + ["--tmpfs", h]
    for p in readable:
        argv += _mount("--ro-bind-try", str(p), str(p), hidden, made)
    if overlay is not None:
        argv += _mount("--ro-bind", str(cwd), _CWD_SRC, hidden, made)
    for p in writable:
        argv += _mount("--bind", str(p), str(p), hidden, made)
    if overlay is not None:
        argv += _mount("--bind", str(overlay), str(cwd), hidden, made)
    argv += ["--chdir", str(cwd)]
    if uid is not None:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--"]
    elif os.geteuid() == 0:
        argv += ["--cap-drop", "ALL"]
    return [*argv, "prlimit", *_rlimit_args(limits), "--", *cmd]


def _fill_overlay(overlay: Path, cwd: Path) -> None:
    """Links in *overlay* to each entry of *cwd*, as seen inside the sandbox."""
    overlay.mkdir(parents=True, exist_ok=True)
    for entry in cwd.iterdir():
        link = overlay / entry.name
        if not link.exists() and not link.is_symlink():
            link.symlink_to(f"{_CWD_SRC}/{entry.name}")


def _hand_over(paths: Sequence[Path], uid: int) -> None:
    """Give the writable folders to the uid a root ridgeline's command runs as (a folder a
    run wrote in goes back to root for the next build: root without capabilities cannot
    write in another uid's folder)."""
    for top in paths:
        for root, dirs, files in os.walk(top):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                with contextlib.suppress(FileNotFoundError):
                    os.lchown(name, uid, uid)


class _Tail:
    """Reads a stream to its end, keeping its last bytes."""

    def __init__(self, stream: IO[bytes], keep: int) -> None:
        self.data = bytearray()
        self.keep = keep
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stream.fileno(), 1 << 16):
                self.data += chunk
                del self.data[:-self.keep]

    def text(self, wait: float) -> str:
        self.thread.join(timeout=wait)
        return bytes(self.data).decode(errors="replace")


def run(cmd: Sequence[str], *, cwd: Path, limits: Limits, env: dict[str, str] | None = None,
        readable: Sequence[Path] = (), writable: Sequence[Path] = (),
        cwd_overlay: Path | None = None, stop: Callable[[], str | None] | None = None,
        unprivileged: bool = True, mode: str | None = None,
        keep_bytes: int = KEEP_BYTES) -> Outcome:
    """Run *cmd* in *cwd* isolated (see the module's doc): *env* on top of the scrubbed
    environment, *readable* / *writable* folders mounted back read-only / read-write,
    *cwd_overlay* (a folder to create under a writable one) takes the writes made in *cwd*.
    The whole process tree is killed after ``limits.seconds``, or when *stop* (polled every
    0.2 s) returns a reason, and when *cmd* ends. Run by root, the command drops to a uid of
    its own unless *unprivileged* is False (then it keeps root's uid without capabilities,
    and the process limit does not apply: for the compiler, whose inputs may be root's
    private temporary folders). The last *keep_bytes* of each output stream are kept (more
    for a tool whose whole listing is read). Never raises for the command's failures."""
    how = isolation(mode)
    cwd = cwd.resolve()
    token = secrets.token_hex(8)
    uid: int | None = None
    if how == "bwrap":
        argv, full_env = _sandboxed(cmd, cwd, limits, env, [Path(p).resolve() for p in readable],
                                    [Path(p).resolve() for p in writable], cwd_overlay,
                                    unprivileged)
        preexec = None
    else:
        home = str(Path(writable[0]).resolve()) if writable else str(cwd)
        full_env = scrubbed_env({**(env or {}), TOKEN: token}, home=home)
        argv, uid = fallback_argv(cmd, unprivileged)
        nproc = limits.processes + (0 if uid is not None else own_processes(os.geteuid()))
        preexec = limits_preexec(limits.cpu(), limits.file_bytes, limits.memory_bytes, nproc)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=preexec)  # noqa: PLW1509
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Tail(proc.stdout, keep_bytes), _Tail(proc.stderr, keep_bytes)
    memory = (None if limits.resident_bytes is None
              else ResidentWatch(proc.pid, limits.resident_bytes))
    over: list[str] = []
    try:
        timed_out, stopped = _watch(proc, t0, limits.seconds, stop, memory, over)
    finally:  # ended, stopped, or interrupted (Ctrl-C does not reach its own session)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if how == "none":
            sweep(token, proc.pid, uid)
    seconds = time.monotonic() - t0
    code = proc.returncode
    if how == "bwrap" and code > 128 and code - 128 in _SIGNALS:
        code = 128 - code  # bwrap's exit status for a command killed by a signal
    return Outcome(code, seconds, out.text(5.0), err.text(5.0), timed_out, how,
                   stopped, over[0] if over else None)


def _sandboxed(cmd: Sequence[str], cwd: Path, limits: Limits, env: dict[str, str] | None,
               readable: list[Path], writable: list[Path], overlay: Path | None,
               unprivileged: bool) -> tuple[list[str], dict[str, str]]:
    """bwrap's command line and environment for *cmd*; prepares the overlay and, for a
    dropped uid, hands the writable folders over."""
    uid = None
    if unprivileged and os.geteuid() == 0:
        uid = fresh_uid()
    if overlay is not None and any(w == cwd or cwd in w.parents for w in writable):
        # a work folder inside the program's: the overlay would hide it (writes in the
        # folder then fail, as everywhere outside the work folder)
        overlay = None
    if overlay is not None:
        _fill_overlay(overlay, cwd)
    elif cwd not in writable:
        readable.append(cwd)
    if os.geteuid() == 0:  # to the dropped uid, or back to root (without capabilities)
        _hand_over(writable, uid if uid is not None else 0)
    if uid is not None and cwd not in writable and cwd.stat().st_mode & 0o005 != 0o005:
        _warn_private(cwd)
    return _bwrap_argv(cmd, cwd, limits, readable, writable, overlay, uid), scrubbed_env(env)


def _watch(proc: subprocess.Popen[bytes], t0: float, seconds: float,
           stop: Callable[[], str | None] | None, memory: ResidentWatch | None,
           over: list[str]) -> tuple[bool, str | None]:
    """Wait for *proc* to end, for *seconds* to pass (timed out), *memory* to find the tree
    over its budget (the reason appended to *over*) or *stop* to give a reason."""
    while proc.poll() is None:
        if memory is not None and (why := memory()):
            over.append(why)
            return False, None
        stopped = stop() if stop is not None else None
        if stopped:
            return False, stopped
        if time.monotonic() - t0 > seconds:
            return True, None
        time.sleep(0.05 if time.monotonic() - t0 < 1 else 0.2)
    return False, None
