"""Bounds on what the front ends read and do with one source file, in one place.

Every front end (libclang in :mod:`ridgeline.sources`, the text front end in
:mod:`ridgeline.analysis.srcscan`) refuses a file over :func:`max_source_bytes` with the same
:class:`~ridgeline.errors.SourceTooLargeError`, never cuts it. The environment variables named
below raise or lower a limit for one run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ridgeline.errors import InputFileError, SourceTooLargeError, UsageError

__all__ = [
    "MAX_SOURCE_BYTES",
    "MAX_SCANNED_HEADER_BYTES",
    "PARSE_TIMEOUT_S",
    "PARSE_MEMORY_BYTES",
    "MAX_MACRO_DEPTH",
    "MAX_MACRO_EXPANSIONS",
    "MAX_EVAL_EXPANSIONS",
    "MAX_EXPANDED_BYTES",
    "MAX_INCLUDE_SCAN",
    "MAX_MACRO_TOKENS",
    "COUNT_TIMEOUT_S",
    "COUNT_MEMORY_GB",
    "max_source_bytes",
    "parse_timeout",
    "check_source_size",
    "check_regular_source",
    "source_size_error",
]

#: largest source file read (HeCBench's largest is 2.4 MB); $RIDGELINE_MAX_SOURCE_BYTES
MAX_SOURCE_BYTES = 8 * 1024 * 1024
#: the text front end does not scan headers over this size found in a program folder (a
#: warning says so; HeCBench's CImg.h, 2.4 MB, would take it 30 s and adds no kernel)
MAX_SCANNED_HEADER_BYTES = 2_000_000
#: wall-time budget of one libclang parse (a forked worker); $RIDGELINE_PARSE_TIMEOUT, 0 = none
PARSE_TIMEOUT_S = 30.0
#: address space a parse worker may add to its parent's before it is stopped
PARSE_MEMORY_BYTES = 2 * 1024 * 1024 * 1024
#: nesting of macros inside macros the text front end follows when evaluating an expression
MAX_MACRO_DEPTH = 20
#: function-like macro invocations the text front end expands in one file
MAX_MACRO_EXPANSIONS = 20_000
#: macro expansions in the evaluation of one host expression (a doubling macro stops here)
MAX_EVAL_EXPANSIONS = 5_000
#: the text front end stops expanding macros in a file whose text would grow past this
MAX_EXPANDED_BYTES = 16 * 1024 * 1024
#: tokens one macro may expand to before the libclang front end refuses the file
MAX_MACRO_TOKENS = 1_000_000
#: wall-time limit of one counting run (the program's CPU run; its build has its own), the
#: default of count-run --timeout and predict / predict-batch --count-timeout. Chosen from the
#: development programs' counting times (benchmarks/counting_defaults.py): 120 s holds ~95% of
#: them; a longer limit gains a few programs at up to that many more seconds each
COUNT_TIMEOUT_S = 120.0
#: memory a counting run's processes may touch (resident, GiB): two runs side by side fit a
#: 24 GiB machine. Device buffers are reserved, not committed (up to the largest cataloged
#: GPU's memory: counting.runner.device_memory_gb), so only what a program touches counts
COUNT_MEMORY_GB = 8.0
#: program headers the include check of the libclang front end follows per parsed file
MAX_INCLUDE_SCAN = 2_000

_SIZE_ENV = "RIDGELINE_MAX_SOURCE_BYTES"
_TIMEOUT_ENV = "RIDGELINE_PARSE_TIMEOUT"


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"${name}={raw!r} is not a number; give a non-negative number "
                         f"(default {default:g})") from None
    if value < 0 or value != value:
        raise UsageError(f"${name}={raw!r} is negative; give a non-negative number "
                         f"(default {default:g})")
    return value


def max_source_bytes() -> int:
    """The source size limit in bytes (:data:`MAX_SOURCE_BYTES` unless the environment says)."""
    return int(_env_number(_SIZE_ENV, MAX_SOURCE_BYTES))


def parse_timeout() -> float:
    """Seconds one libclang parse may take (0: no worker, no limit)."""
    return _env_number(_TIMEOUT_ENV, PARSE_TIMEOUT_S)


def source_size_error(where: str | Path, size: int) -> SourceTooLargeError:
    """The one error every command gives for an over-size source file."""
    limit = max_source_bytes()
    return SourceTooLargeError(
        f"{where}: source file is {size:,} bytes, over the limit of {limit:,} bytes; "
        f"files are never read in part (raise the limit with ${_SIZE_ENV})"
    )


def check_source_size(path: str | Path, size: int | None = None) -> None:
    """Raise :func:`source_size_error` when *path* (or *size*) is over the limit."""
    if size is None:
        try:
            size = Path(path).stat().st_size
        except OSError:
            return  # the reader reports an unreadable file
    if size > max_source_bytes():
        raise source_size_error(path, size)


#: pseudo file systems whose "regular" files may block or never end (``/proc/kmsg``)
PSEUDO_ROOTS = ("/proc/", "/sys/", "/dev/")


def check_regular_source(path: str | Path) -> os.stat_result:
    """Stat *path*; raise InputFileError unless it is a regular file outside the pseudo file
    systems (a device, FIFO or ``/proc`` file would block the reader or never end)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputFileError(f"{path}: cannot be read ({e.strerror or e})") from e
    real = os.path.realpath(path)
    if not stat.S_ISREG(st.st_mode) or real.startswith(PSEUDO_ROOTS):
        raise InputFileError(f"{path}: not a regular source file ({real}); expected a C, C++, "
                             "CUDA or OpenCL source file, not a device, FIFO, socket or "
                             "/proc, /sys or /dev file")
    return st
