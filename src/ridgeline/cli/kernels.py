"""``ridgeline kernels``: list the kernels of CUDA, OpenMP-offload and OpenCL sources."""

from __future__ import annotations

import argparse
import sys

from ridgeline.cli._common import add_build_options, build_of, print_json, print_table


def add_source_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="source files or program folders")
    add_build_options(p)
    p.add_argument("--language", choices=["cuda", "omp", "opencl"],
                   help="front end for every file (default: by extension and content)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "kernels",
        help="list the kernels in source files",
        description="Find CUDA __global__ kernels, OpenMP target regions and OpenCL __kernel "
        "functions, with their parameters and launch sites.",
        epilog="examples:\n  ridgeline kernels prog-cuda/\n  ridgeline kernels main.cu --json\n"
        "  ridgeline kernels prog-omp/ -D N=1024",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_options(p)
    p.add_argument("--json", action="store_true", help="print a JSON array")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ridgeline.sources import load_program

    prog = load_program(args.paths, language=args.language, build=build_of(args))
    if args.json:
        print_json({"kernels": [k.to_dict() for k in prog.kernels], "problems": prog.problems})
        return 0
    rows = [[k.name, k.language, k.file, k.line,
             ", ".join(f"{p.type} {p.name}".strip() for p in k.params),
             len(k.launches), "; ".join(k.problems)[:80] or "-"] for k in prog.kernels]
    print_table(["name", "language", "file", "line", "parameters", "launches", "problems"], rows)
    for msg in prog.problems:
        print(f"warning: {msg}", file=sys.stderr)
    if not prog.kernels:
        print("no kernels found", file=sys.stderr)
    return 0
