"""Options and helpers several commands share."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["add_gpu_file", "add_data_dir", "add_build_options", "build_of", "print_json",
           "print_table"]


def add_gpu_file(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--gpu-file",
        metavar="FILE",
        help="TOML or JSON file of extra GPUs (same fields as the shipped catalog); "
        "entries with a shipped name override it",
    )


def add_build_options(p: argparse.ArgumentParser) -> None:
    """``-D``/``--define``, ``-I``/``--include`` and ``--compile-commands``: how the program is
    built, for the source front ends and the CPU build alike (added to what its Makefile and
    the backend's make fragment say)."""
    p.add_argument("-D", "--define", dest="defines", action="append", default=[],
                   metavar="NAME[=VALUE]",
                   help="preprocessor definition, added to the Makefile's (repeatable)")
    p.add_argument("-I", "--include", dest="include_dirs", action="append", default=[],
                   metavar="DIR", help="include folder, searched after the Makefile's "
                   "(repeatable)")
    p.add_argument("--compile-commands", metavar="FILE",
                   help="a CMake compile_commands.json: each source's entry gives its -D, -I "
                   "and -std in place of the Makefile's (e.g. the build that was profiled); "
                   "-D/-I add to them")


def build_of(args: argparse.Namespace) -> Any:
    """The :class:`ridgeline.sources.ProgramBuild` of the options :func:`add_build_options`
    added."""
    from ridgeline.sources.build import ProgramBuild

    return ProgramBuild.from_cli(getattr(args, "defines", None),
                                 getattr(args, "include_dirs", None),
                                 getattr(args, "compile_commands", None))


def add_data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="ground-truth data folder (default: $RIDGELINE_DATA)",
    )


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    rows = [[_fmt(v) for v in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line.rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1e5 or abs(v) < 1e-3:
            return f"{v:.3e}"
        return f"{v:.4g}"
    return str(v)
