"""Parser assembly and error handling. Each command group lives in its own module with a
``register(subparsers)`` function; adding a command is one module plus one line below."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from ridgeline import __version__
from ridgeline.errors import RidgelineError

log = logging.getLogger("ridgeline")

#: modules that register subcommands, in the order --help lists them
COMMAND_MODULES = [
    "ridgeline.cli.predict",
    "ridgeline.cli.gpus",
    "ridgeline.cli.label",
    "ridgeline.cli.datasets",
    "ridgeline.cli.eval",
    "ridgeline.cli.opencl",
    "ridgeline.cli.llm",
    "ridgeline.cli.kernels",
    "ridgeline.cli.features",
    "ridgeline.cli.count",
]

EPILOG = """examples:
  ridgeline predict --sample saxpy --gpu rtx3080 --gpu a100
  ridgeline gpus --json
  ridgeline label profiles.csv --gpu rtx3080 --rule paper-a --out labelled.csv
  ridgeline datasets
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ridgeline",
        description="Predict how a GPU kernel performs on a GPU you may not have.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"ridgeline {__version__}")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
    except RidgelineError as e:
        print(f"ridgeline {args.command}: error: {e}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
