"""libclang set-up: load the Python bindings, find a clang resource folder, parse text.

libclang from PyPI ships no builtin headers. OpenCL C needs ``opencl-c-base.h`` and C/C++
need ``stddef.h`` & co. from a clang *resource directory*; Debian's ``libclang-common-15-dev``
(pulled in by ``clang-15`` and ``pocl-opencl-icd``) provides one. ``$RIDGELINE_CLANG_RESOURCE_DIR``
overrides the search.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import hashlib
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ridgeline._atomic import atomic_path
from ridgeline.errors import MissingDependencyError
from ridgeline.limits import parse_timeout
from ridgeline.sources._guard import run_bounded

log = logging.getLogger(__name__)

__all__ = [
    "cindex",
    "precompiled",
    "resource_dir",
    "stub_dir",
    "toolchain_dirs",
    "parse_text",
    "binary_operator",
    "unary_operator",
    "clang_available",
]

INSTALL_BINDINGS = "pip install 'ridgeline[clang]'"
INSTALL_HEADERS = "apt-get install libclang-common-15-dev (or clang-15 / pocl-opencl-icd)"

#: CXTranslationUnit_KeepGoing: do not stop at fatal errors such as a missing #include
_KEEP_GOING = 0x200


@functools.cache
def cindex() -> Any:
    """The ``clang.cindex`` module with its shared library loaded."""
    try:
        import clang.cindex as ci
    except ImportError as e:
        raise MissingDependencyError("libclang (Python bindings)", INSTALL_BINDINGS) from e
    try:
        ci.Index.create()
    except Exception as e:  # the library itself failed to load
        raise MissingDependencyError(
            "libclang (shared library)", INSTALL_BINDINGS, detail=str(e)
        ) from e
    lib = ci.conf.lib
    for fn in ("clang_getCursorBinaryOperatorKind", "clang_getCursorUnaryOperatorKind"):
        f = getattr(lib, fn, None)
        if f is not None:
            f.argtypes = [ci.Cursor]
            f.restype = ctypes.c_int
    for fn in ("clang_getBinaryOperatorKindSpelling", "clang_getUnaryOperatorKindSpelling"):
        f = getattr(lib, fn, None)
        if f is not None:
            f.argtypes = [ctypes.c_int]
            f.restype = ci._CXString
            f.errcheck = ci._CXString.from_result
    return ci


def _has_headers(d: Path) -> bool:
    return (d / "include" / "opencl-c-base.h").is_file() and (d / "include" / "stddef.h").is_file()


def _version_key(p: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", p))


@functools.cache
def resource_dir() -> str:
    """A clang resource folder with the builtin headers (``include/opencl-c-base.h``)."""
    env = os.environ.get("RIDGELINE_CLANG_RESOURCE_DIR")
    if env:
        if _has_headers(Path(env)):
            return env
        raise MissingDependencyError(
            "clang resource headers", INSTALL_HEADERS,
            detail=f"$RIDGELINE_CLANG_RESOURCE_DIR={env} has no include/opencl-c-base.h",
        )
    cands: list[str] = []
    for exe in ("clang-15", "clang"):
        path = shutil.which(exe)
        if path:
            try:
                out = subprocess.run([path, "-print-resource-dir"], capture_output=True,
                                     text=True, timeout=20).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                out = ""
            if out:
                cands.append(out)
    pats = ["/usr/lib/llvm-*/lib/clang/*", "/usr/lib/clang/*", "/usr/local/lib/clang/*"]
    for pat in pats:
        cands += sorted(glob.glob(pat), key=_version_key, reverse=True)
    for c in cands:
        if _has_headers(Path(c)):
            return c
    raise MissingDependencyError(
        "clang resource headers (opencl-c-base.h, stddef.h)", INSTALL_HEADERS,
        detail="searched " + ", ".join(pats),
    )


def toolchain_dirs() -> list[str]:
    """Header folders the front ends need besides the program's: stubs, clang builtins and
    the system C headers (clang's search order)."""
    return [stub_dir(), str(Path(resource_dir()) / "include"), "/usr/local/include",
            "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu", "/usr/include"]


def stub_dir() -> str:
    """The folder of small CUDA/OpenMP stub headers shipped with ridgeline."""
    return str(Path(__file__).resolve().parent.parent / "data" / "stubs")


@functools.cache
def precompiled(header: str, args: tuple[str, ...]) -> str | None:
    """A precompiled form of the stub *header* (its C headers cost ~0.4 s a file to parse),
    cached under $RIDGELINE_CACHE/pch; None when it cannot be built (include it as text)."""
    ci = cindex()
    path = Path(stub_dir()) / header
    h = hashlib.sha256(repr((args, resource_dir(), _clang_version())).encode())
    for f in sorted(Path(stub_dir()).iterdir()):  # the header includes its neighbours
        h.update(f.name.encode() + f.read_bytes())
    key = h.hexdigest()[:24]
    root = Path(os.environ.get("RIDGELINE_CACHE") or Path.home() / ".cache" / "ridgeline")
    out = root / "pch" / f"{path.stem}-{key}.pch"
    if out.is_file():
        return str(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tu = ci.Index.create().parse(
            str(path), args=[*args, "-isystem", stub_dir(), "-resource-dir", resource_dir()],
            options=ci.TranslationUnit.PARSE_INCOMPLETE)
        with atomic_path(out) as tmp:
            tu.save(str(tmp))
    except Exception as e:  # a cache, never a failure
        log.debug("no precompiled %s: %s", header, e)
        return None
    return str(out)


def _clang_version() -> str:
    lib = cindex().conf.lib
    f = lib.clang_getClangVersion
    f.restype = cindex()._CXString
    f.errcheck = cindex()._CXString.from_result
    return str(f())


def clang_available() -> bool:
    """True when libclang and a resource folder are both usable."""
    try:
        cindex()
        resource_dir()
    except MissingDependencyError:
        return False
    return True


def parse_text(filename: str, text: str, args: list[str],
               overrides: dict[str, str] | None = None) -> Any:
    """Parse *text* as if it were the file *filename*; returns a TranslationUnit.

    *overrides* gives other files' contents (empty stand-ins for refused includes, see
    :mod:`ridgeline.sources._guard`). The parse runs under the wall-time budget of
    :func:`ridgeline.limits.parse_timeout` and raises SourceError when it overruns."""
    ci = cindex()
    index = ci.Index.create()
    full = [*args, "-resource-dir", resource_dir()]
    opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | _KEEP_GOING
    unsaved = [(filename, text), *(overrides or {}).items()]

    def parse() -> Any:
        def once() -> Any:
            return index.parse(filename, args=full, unsaved_files=unsaved, options=opts)

        run_bounded(filename, once, parse_timeout())
        return once()

    try:
        tu = parse()
    except ci.TranslationUnitLoadError:
        if "-include-pch" not in args:
            raise
        tu = None
    if "-include-pch" in args and (tu is None or any(
        d.severity >= 4 and ("precompiled" in d.spelling or ".pch" in d.spelling)
        for d in tu.diagnostics
    )):  # a stale or unreadable PCH: include the stub header as text instead
        i = full.index("-include-pch")
        header = Path(full[i + 1]).name.rsplit("-", 1)[0] + ".h"
        full[i:i + 2] = ["-include", header]
        log.warning("precompiled stub header rejected; parsing %s without it", filename)
        tu = parse()
    return tu


def binary_operator(cursor: Any) -> str:
    """The spelling of a BinaryOperator / CompoundAssignOperator cursor (``+``, ``*=`` ...)."""
    lib = cindex().conf.lib
    kind = lib.clang_getCursorBinaryOperatorKind(cursor)
    return str(lib.clang_getBinaryOperatorKindSpelling(kind))


def unary_operator(cursor: Any) -> str:
    lib = cindex().conf.lib
    return str(lib.clang_getUnaryOperatorKindSpelling(lib.clang_getCursorUnaryOperatorKind(cursor)))
