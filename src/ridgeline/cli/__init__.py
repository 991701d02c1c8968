"""The ``ridgeline`` command: a thin shell over the API."""

from ridgeline.cli._app import build_parser, main

__all__ = ["main", "build_parser"]
