"""ridgeline: predict how a GPU kernel performs on a GPU you may not have."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ridgeline")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
