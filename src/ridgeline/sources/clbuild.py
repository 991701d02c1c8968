"""OpenCL build options: what a host passes to ``clBuildProgram`` (``-D NAME=VALUE``,
``-I DIR``, ``-cl-*`` flags), so that a kernel which only compiles inside its host build can
be parsed by the libclang front end and run under Oclgrind.

    opts = BuildOptions.parse("-DBLOCK=16 -I inc -cl-mad-enable")
    opts = BuildOptions(defines=("BLOCK=16",)).merged(row_opts)
    opts.clang_args()     # for the libclang front end
    opts.cl_string()      # for clBuildProgram / ``oclgrind --build-options``
    undefined_names(errors)   # what a failed parse lacks: [(name, line, message)]
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ridgeline.errors import UsageError

__all__ = ["BuildOptions", "undefined_names", "describe_parse_errors"]

_NAME = re.compile(r"^[A-Za-z_]\w*$")


@dataclass(frozen=True)
class BuildOptions:
    """``defines`` are ``NAME`` or ``NAME=VALUE`` (what ``-D`` gets), ``include_dirs``
    absolute folders, ``extra`` the other compiler options in order (``-cl-mad-enable``)."""

    defines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str, base_dir: str | Path | None = None,
              where: str = "build options") -> BuildOptions:
        """Options from a ``clBuildProgram`` string; relative ``-I`` folders are taken from
        *base_dir* (default: the working folder)."""
        try:
            words = shlex.split(text or "")
        except ValueError as e:
            raise UsageError(f"{where} {text!r} cannot be split into options: {e}") from None
        defines: list[str] = []
        incs: list[str] = []
        extra: list[str] = []
        i = 0
        while i < len(words):
            w = words[i]
            if w in ("-D", "-I"):
                if i + 1 >= len(words):
                    raise UsageError(f"{where} {text!r}: {w} needs a value")
                w, i = w + words[i + 1], i + 1
            if w.startswith("-D"):
                defines.append(check_define(w[2:], where))
            elif w.startswith("-I"):
                incs.append(_absolute(w[2:], base_dir))
            else:
                extra.append(w)
            i += 1
        return cls(tuple(defines), tuple(incs), tuple(extra))

    @classmethod
    def from_flags(cls, defines: list[str] | None = None, include_dirs: list[str] | None = None,
                   options: str = "", base_dir: str | Path | None = None) -> BuildOptions:
        """The CLI's ``-D``, ``-I`` and ``--build-options`` together."""
        own = cls(tuple(check_define(d, "-D") for d in defines or ()),
                  tuple(_absolute(d, base_dir) for d in include_dirs or ()))
        return own.merged(cls.parse(options, base_dir, "--build-options"))

    def merged(self, other: BuildOptions | None) -> BuildOptions:
        """These options followed by *other*'s (a later ``-D`` of a name wins)."""
        if other is None or not other:
            return self
        return BuildOptions(self.defines + other.defines, self.include_dirs + other.include_dirs,
                            self.extra + other.extra)

    def __bool__(self) -> bool:
        return bool(self.defines or self.include_dirs or self.extra)

    def cl_std(self) -> str | None:
        """The ``-cl-std=`` value asked for, if any (``CL2.0``)."""
        stds = [w.split("=", 1)[1] for w in self.extra if w.startswith("-cl-std=")]
        return stds[-1] if stds else None

    def clang_args(self) -> list[str]:
        """Front-end arguments: macros and include folders (code generation flags such as
        ``-cl-mad-enable`` do not change what parses)."""
        args = [f"-D{d}" for d in self.defines]
        for d in self.include_dirs:
            args += ["-I", d]
        return args

    def cl_string(self) -> str:
        """The options as one ``clBuildProgram`` string (also the cache key's part)."""
        words = [f"-D{d}" for d in self.defines] + [f"-I{d}" for d in self.include_dirs]
        return shlex.join(words + list(self.extra))


def check_define(d: str, where: str = "-D") -> str:
    name = d.split("=", 1)[0]
    if not _NAME.match(name):
        raise UsageError(f"{where}: {d!r} is not NAME or NAME=VALUE (a macro name is a C "
                         "identifier)")
    return d


def _absolute(d: str, base_dir: str | Path | None) -> str:
    if not d:
        raise UsageError("-I needs a folder")
    p = Path(d).expanduser()
    if not p.is_absolute():
        p = Path(base_dir or os.getcwd()) / p
    return os.path.normpath(p)


_UNDEFINED = (
    (re.compile(r"use of undeclared identifier '(\w+)'"), "undeclared identifier"),
    (re.compile(r"unknown type name '(\w+)'"), "unknown type name"),
    (re.compile(r"'([^']+)' file not found"), "missing include"),
    (re.compile(r"implicit declaration of function '(\w+)'"), "undeclared function"),
)


def undefined_names(errors: list[tuple[int, str]]) -> list[tuple[str, int, str]]:
    """What the host build would have defined: (name, first line, kind) for each undeclared
    identifier, unknown type name or missing include among parse *errors* (line, message)."""
    seen: dict[str, tuple[str, int, str]] = {}
    for line, msg in errors:
        for pat, kind in _UNDEFINED:
            m = pat.search(msg)
            if m and m.group(1) not in seen:
                seen[m.group(1)] = (m.group(1), line, kind)
    return list(seen.values())


def describe_parse_errors(errors: list[tuple[int, str]], limit: int = 6,
                          column_hint: bool = True) -> str:
    """One line for an error message (a batch row's, with *column_hint* the per-row
    ``build_options`` column): what is undefined and where, else the first errors as the
    compiler said them."""
    if not errors:
        return ""
    undef = undefined_names(errors)
    if undef:
        parts = [f"{name} ({kind}, line {line})" for name, line, kind in undef[:limit]]
        more = f" and {len(undef) - limit} more" if len(undef) > limit else ""
        includes = any(kind == "missing include" for _, _, kind in undef)
        hint = "give the macros with -D NAME=VALUE" + (", include folders with -I DIR" if
                                                        includes else "")
        column = " (or a build_options column)" if column_hint else ""
        return (f"undefined without the host build's options: {', '.join(parts)}{more}; "
                f"{hint}{column}")
    first = "; ".join(f"line {line}: {msg}" for line, msg in errors[:2])
    return f"{len(errors)} parse error(s), first: {first}"
