"""Bounds on one libclang parse.

* Includes are checked before clang opens them: a file may include only regular files from
  the program's folders (the parsed file's folder, the folders given, ``-I`` folders) and the
  system and toolchain headers. Any other target (``/dev/urandom``, a FIFO, a file outside
  those folders) is handed to clang as an empty file and reported as a problem; clang would
  otherwise read a device without end or block on a FIFO.
* The parse runs first in a forked worker with a wall-time and a memory budget
  (:mod:`ridgeline.limits`); a parse that overruns ends in a :class:`SourceError` instead of a
  hang. The worker only tells whether the parse finishes (a parse takes milliseconds to
  tens of milliseconds, a fork about 2 ms); the caller then parses in its own process, where
  the cursors it walks live.
"""

from __future__ import annotations

import logging
import os
import re
import resource
import select
import signal
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ridgeline.errors import SourceError
from ridgeline.limits import (
    MAX_INCLUDE_SCAN,
    MAX_MACRO_TOKENS,
    PARSE_MEMORY_BYTES,
    max_source_bytes,
)

log = logging.getLogger(__name__)

__all__ = ["IncludeCheck", "check_includes", "check_macro_growth", "run_bounded"]

_INCLUDE = re.compile(
    r"^[ \t]*#[ \t]*(?:include_next|include|import)[ \t]*(?:\"([^\"\n]*)\"|<([^>\n]*)>|"
    r"([A-Za-z_]\w*))", re.M)
_OBJ_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(\S[^\n]*)$", re.M)
#: where the system and toolchain headers live (clang's own C search path on Linux)
SYSTEM_ROOTS = ("/usr/include", "/usr/local/include", "/usr/lib/gcc", "/usr/lib/llvm-",
                "/usr/lib/clang", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu")


_ANY_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?([^\n]*)$",
                         re.M)
# the preprocessor's tokens, near enough: a string or character literal, a name, a number, else
# one punctuation character (`<<=` counts three: a body is over-counted, never under)
_TOKEN = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[A-Za-z_]\w*"
                    r"|\.?\d(?:[eEpP][+-]|[\w.])*|\S")
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#[^\n]*$", re.M)


def check_macro_growth(texts: Iterable[str], where: str) -> None:
    """Raise SourceError when a macro used outside directives expands to more than
    :data:`~ridgeline.limits.MAX_MACRO_TOKENS` tokens (``#define A1 A0 A0`` ... ``A29``):
    clang would spend minutes and gigabytes on it. Counted without expanding (each
    macro's size once, from its body's tokens: names, numbers, literals and punctuation, as
    `(A0 + A0)` is five tokens, not two); arguments of function-like macros count as
    one token, so only growth through names is caught here; the parse budget catches the
    rest."""
    texts = [re.sub(r"\\\r?\n", " ", t) for t in texts]
    bodies: dict[str, list[str]] = {}
    for t in texts:
        if "define" in t:
            for m in _ANY_DEFINE.finditer(t):
                bodies.setdefault(m.group(1), _TOKEN.findall(m.group(3)) or [""])
    if not bodies:
        return
    size = _expanded_sizes(bodies)
    for name, n in size.items():
        if n > MAX_MACRO_TOKENS and any(
                re.search(rf"\b{re.escape(name)}\b", _DIRECTIVE_LINE.sub("", t)) for t in texts):
            raise SourceError(
                f"{where}: macro {name!r} expands to more than {MAX_MACRO_TOKENS:,} tokens "
                "(the limit); refusing to parse (a doubling macro?)")


def _expanded_sizes(bodies: dict[str, list[str]]) -> dict[str, int]:
    """Tokens each macro expands to (capped just over the limit); a macro met again inside
    its own expansion counts as one token, as the preprocessor leaves it."""
    cap = MAX_MACRO_TOKENS + 1
    size: dict[str, int] = {}
    state: dict[str, int] = {}
    for root in bodies:
        stack = [root]
        while stack:
            name = stack[-1]
            if name not in state:
                state[name] = 1
                stack += [w for w in bodies[name] if w in bodies and w not in state]
                continue
            stack.pop()
            if name not in size:
                size[name] = min(cap, sum(size.get(w, 1) for w in bodies[name]) or 1)
    return size


@dataclass
class IncludeCheck:
    """Empty stand-ins for refused include targets (clang's unsaved files) and why."""

    overrides: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: the texts read: the file's and those of the program headers it reaches
    texts: list[str] = field(default_factory=list)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _within(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _macro_names(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in _OBJ_DEFINE.finditer(text)}


def _spelled(m: re.Match[str], macros: dict[str, str]) -> tuple[str, bool] | None:
    """(name, quoted) of an include directive, following ``#include MACRO`` a few levels."""
    if m.group(1) is not None:
        return m.group(1), True
    if m.group(2) is not None:
        return m.group(2), False
    value = m.group(3)
    for _ in range(8):
        value = macros.get(value, "")
        if len(value) > 1 and value[0] == '"' and value[-1] == '"':
            return value[1:-1], True
        if len(value) > 1 and value[0] == "<" and value[-1] == ">":
            return value[1:-1], False
    return None


def _candidates(name: str, quoted: bool, here: str, search: Sequence[str]) -> list[str]:
    if os.path.isabs(name):
        return [name]
    dirs = [here, *search] if quoted else list(search)
    return [os.path.normpath(os.path.join(d, name)) for d in dirs]


def check_includes(path: str, text: str, search: Sequence[str], program_dirs: Sequence[str],
                   toolchain_dirs: Sequence[str] = ()) -> IncludeCheck:
    """Check the includes of *path* (text *text*) and of the program headers it reaches.

    *search* is the include search path in clang's order, *program_dirs* the folders whose
    headers belong to the program, *toolchain_dirs* further header folders clang needs."""
    program = [os.path.realpath(d) for d in program_dirs]
    allowed = [*program, *(os.path.realpath(d) for d in toolchain_dirs), *SYSTEM_ROOTS]
    out = IncludeCheck()
    out.texts.append(text)
    todo = [(path, text)]
    seen = {os.path.realpath(path)}
    while todo and len(seen) <= MAX_INCLUDE_SCAN:
        cur, txt = todo.pop()
        if "include" not in txt and "import" not in txt:
            continue
        macros = _macro_names(txt) if re.search(r"#[ \t]*include[ \t]+[A-Za-z_]", txt) else {}
        for m in _INCLUDE.finditer(txt):
            spelled = _spelled(m, macros)
            if spelled is None:
                continue
            where = f"{cur}:{txt.count(chr(10), 0, m.start()) + 1}"
            hit = _first_existing(_candidates(*spelled, os.path.dirname(cur), search))
            if hit is None:
                continue  # clang reports a missing include itself
            cand, st = hit
            real = os.path.realpath(cand)
            why = None
            if not stat.S_ISREG(st.st_mode):
                why = f"{real} is {_kind(st.st_mode)}"
            elif not _within(real, allowed):
                why = (f"{real} is outside the program's folders, the -I folders and the "
                       "system headers (give its folder with -I to allow it)")
            elif st.st_size > max_source_bytes():
                why = f"{real} is {st.st_size:,} bytes, over the source size limit"
            if why:
                out.overrides[cand] = ""
                out.problems.append(f"{where}: #include {m.group(0).split(None, 1)[-1].strip()}"
                                    f" refused: {why}; read as an empty file")
            elif real not in seen and _within(real, program):
                seen.add(real)
                todo.append((cand, _read(cand)))
                out.texts.append(todo[-1][1])
    return out


def _first_existing(cands: list[str]) -> tuple[str, os.stat_result] | None:
    for c in cands:
        try:
            st = os.stat(c)  # follows links; never opens (a FIFO would block an open)
        except (OSError, ValueError):
            continue
        if not stat.S_ISDIR(st.st_mode):
            return c, st
    return None


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(max_source_bytes() + 1).decode("utf-8", "replace")
    except OSError:
        return ""


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _wait(pid: int, timeout: float) -> int | None:
    """The wait status of *pid*, or None once *timeout* seconds have passed."""
    end = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            left = end - time.monotonic()
            if left <= 0:
                return None
            if fd >= 0:
                select.select([fd], [], [], left)
            else:
                time.sleep(min(left, 0.005))
    finally:
        if fd >= 0:
            os.close(fd)


def _child(fn: Callable[[], object], base: int | None) -> int:
    """Exit status of the worker: 0 done, 3 failed (the caller sees why in its own parse),
    4 failed near the memory budget (libclang turns an allocation failure into a load
    error; the caller must not repeat that parse)."""
    # the resident size the worker starts with is the caller's, inherited through fork (a
    # test process or a batch can hold more than the budget): only growth beyond it counts
    start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    try:
        if base is not None:
            limit = base + PARSE_MEMORY_BYTES
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        fn()
    except BaseException:  # noqa: BLE001 - reported by the caller's own parse
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return 4 if peak - start > PARSE_MEMORY_BYTES // 2 else 3
    return 0


def run_bounded(what: str, fn: Callable[[], object], timeout: float) -> None:
    """Run *fn* in a forked child under *timeout* seconds and the memory budget; raise
    SourceError naming *what* when the child overruns either or dies. Errors *fn* raises are
    not reported (the caller repeats the work in its own process and sees them there)."""
    if timeout <= 0 or not hasattr(os, "fork"):
        fn()
        return
    base = _address_space()
    pid = os.fork()
    if pid == 0:  # the worker: never returns into the caller's code
        os._exit(_child(fn, base))
    status = _wait(pid, timeout)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise SourceError(
            f"{what}: parsing took longer than the {timeout:g} s budget and was stopped (a "
            "macro that expands without bound, or a template or include that never ends?); "
            "raise the budget with $RIDGELINE_PARSE_TIMEOUT (seconds, 0 = none)")
    code = os.waitstatus_to_exitcode(status)
    if code == 4 or code < 0 and -code in (signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL):
        raise SourceError(
            f"{what}: parsing needed more than its memory budget of {PARSE_MEMORY_BYTES:,} "
            f"bytes and was stopped (exit status {code}; a macro that expands without bound?)")
    if code not in (0, 3):
        raise SourceError(f"{what}: the parser died (exit status {code})")
    log.debug("bounded parse of %s finished", what)
