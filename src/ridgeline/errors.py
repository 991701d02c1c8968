"""One typed error hierarchy for ridgeline.

Every error a user can cause derives from :class:`RidgelineError`; the CLI prints those
without a traceback and exits non-zero. Messages say what was wrong, the value received,
what is allowed, and where (file and line, row, flag).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "RidgelineError",
    "UsageError",
    "UnknownNameError",
    "DataError",
    "MissingDataError",
    "SchemaError",
    "InputFileError",
    "SourceTooLargeError",
    "SourceError",
    "KernelNotFoundError",
    "CompileError",
    "LaunchError",
    "MissingDependencyError",
    "NotFittedError",
    "BackendError",
    "ExecutionError",
    "closest",
]


class RidgelineError(Exception):
    """Base of every error ridgeline raises on purpose."""

    exit_code = 2


class UsageError(RidgelineError, ValueError):
    """A parameter or flag has a value that is not allowed."""


def closest(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The names in *choices* closest to *name* (case-insensitive), best first."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.4)
    substr = [c for c in choices if name.lower() in c.lower() and c not in hits]
    return [lowered[h] for h in hits] + substr[: max(0, n - len(hits))]


class UnknownNameError(UsageError, KeyError):
    """A name (GPU, rule, predictor, dataset, backend, kernel) that no registry knows."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        known = sorted(known)
        self.kind, self.name, self.known = kind, name, known
        near = closest(name, known)
        msg = f"unknown {kind} {name!r}"
        if near:
            msg += f"; did you mean {', '.join(repr(n) for n in near)}?"
        shown = ", ".join(known[:40]) + (" ..." if len(known) > 40 else "")
        msg += f" Known {kind}s: {shown}"
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would add quotes around the message
        return str(self.args[0])


class DataError(RidgelineError):
    """Input data is unusable."""


class MissingDataError(DataError, FileNotFoundError):
    """A data folder or file that is needed does not exist."""


class SchemaError(DataError):
    """A table lacks columns or has values of the wrong kind."""


class InputFileError(DataError):
    """A file cannot be read (not UTF-8, binary, malformed)."""


class SourceTooLargeError(InputFileError):
    """A source file is over the size limit (every command refuses it; none reads part)."""


class SourceError(RidgelineError):
    """Source code could not be parsed or understood."""


class KernelNotFoundError(SourceError, UnknownNameError):
    """The requested kernel is not in the given sources."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        UnknownNameError.__init__(self, "kernel", name, known)


class CompileError(RidgelineError):
    """A compiler failed on the program."""


class LaunchError(UsageError):
    """A grid, block or argument specification cannot be understood or evaluated."""


class MissingDependencyError(RidgelineError, ImportError):
    """An optional component is not installed; the message names the install command."""

    def __init__(self, component: str, install: str, detail: str = "") -> None:
        msg = f"{component} is not available; install it with: {install}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class NotFittedError(RidgelineError, AttributeError):
    """An estimator was used before ``fit``."""


class BackendError(RidgelineError):
    """An LLM or device backend failed (after retries, where they apply)."""

    #: requests made before giving up (0: none was sent); set by the HTTP layer
    attempts: int = 0


class ExecutionError(RidgelineError):
    """Running a program or kernel failed, hung or exceeded its limits."""
