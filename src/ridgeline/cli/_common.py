"""Options and helpers several commands share."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ridgeline.tables import print_table

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
