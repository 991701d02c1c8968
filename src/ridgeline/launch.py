"""Which kernel and how it is launched: grid and block sizes (dim3) read and checked against
CUDA's limits, the kernel reference, the launch. The ground floor that predictors, datasets and
counting share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline.errors import LaunchError
from ridgeline.sources.build import ProgramBuild

__all__ = [
    "Dim3",
    "parse_dim3",
    "check_launch_limits",
    "MAX_THREADS_PER_BLOCK",
    "MAX_BLOCK_DIM",
    "MAX_GRID_DIM",
    "KernelRef",
    "Launch",
]

Dim3 = tuple[int, int, int]


def _dim_inner(text: str) -> str:
    """*text* without its blanks and one enclosing bracket of each side ("" when brackets
    remain), read in one pass: the pattern that did it had three runs of blanks in a row,
    which split a long run of blanks every way (cubic time)."""
    s = text.strip()
    if s.startswith(("(", "[")):
        s = s[1:]
    if s.endswith((")", "]")):
        s = s[:-1]
    s = s.strip()
    return "" if any(c in s for c in "()[]") else s


def _shown(text: object, limit: int = 60) -> str:
    """*text* as an error message quotes it: cut to *limit* characters."""
    r = repr(text)
    return r if len(r) <= limit else f"{r[:limit]}... ({len(str(text)):,} characters)"


def parse_dim3(text: str | int | tuple[int, ...] | list[int] | None, what: str = "size") -> Dim3:
    """Read a grid or block size given as ``(256, 1, 1)``, ``256``, ``256,1,1`` or ``256x2``."""
    if text is None:
        raise LaunchError(f"{what} is missing")
    if isinstance(text, int):
        vals = [text]
    elif isinstance(text, tuple | list):
        vals = list(text)
    else:
        parts = [x for x in re.split(r"[,x\s]+", _dim_inner(str(text))) if x]
        try:
            vals = [int(float(x)) if float(x).is_integer() else -1 for x in parts]
        except ValueError:
            raise LaunchError(
                f"{what} {_shown(text)} is not understood; use forms like '(256, 1, 1)', '256' or "
                "'256,1,1'"
            ) from None
    if not 1 <= len(vals) <= 3 or any(v < 1 for v in vals):
        raise LaunchError(
            f"{what} {_shown(text)} must have 1 to 3 positive integers, e.g. '(256, 1, 1)' or '256'"
        )
    vals += [1] * (3 - len(vals))
    return (int(vals[0]), int(vals[1]), int(vals[2]))


#: CUDA's launch limits (compute capability 3.0 and later): threads per block, which every
#: cataloged GPU shares (NVIDIA's and AMD's alike), the block's x, y, z and the grid's x, y, z
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM: Dim3 = (1024, 1024, 64)
MAX_GRID_DIM: Dim3 = (2**31 - 1, 65535, 65535)


def check_launch_limits(grid: Dim3 | None, block: Dim3 | None, grid_name: str = "grid",
                        block_name: str = "block",
                        max_threads: int = MAX_THREADS_PER_BLOCK) -> None:
    """Raise :class:`LaunchError` when *grid* or *block* (None: not given) exceeds what CUDA
    can launch; the names (a flag, a column) say where in the message."""
    if block is not None:
        for axis, v, top in zip("xyz", block, MAX_BLOCK_DIM, strict=True):
            if v > top:
                raise LaunchError(
                    f"{block_name} {_dims(block)}: {_num(v)} threads in {axis}; allowed per block: "
                    f"x <= {MAX_BLOCK_DIM[0]}, y <= {MAX_BLOCK_DIM[1]}, z <= {MAX_BLOCK_DIM[2]}"
                    f" and x*y*z <= {max_threads}")
        if block[0] * block[1] * block[2] > max_threads:
            raise LaunchError(
                f"{block_name} {_dims(block)}: {block[0] * block[1] * block[2]} threads per "
                f"block; allowed at most {max_threads} (x*y*z)")
    if grid is not None:
        for axis, v, top in zip("xyz", grid, MAX_GRID_DIM, strict=True):
            if v > top:
                raise LaunchError(
                    f"{grid_name} {_dims(grid)}: {_num(v)} blocks in {axis}; allowed x <= "
                    f"{MAX_GRID_DIM[0]} (2^31-1), y <= {MAX_GRID_DIM[1]}, z <= {MAX_GRID_DIM[2]}")


def _dims(d: Dim3) -> str:
    return "(" + ", ".join(_num(v) for v in d) + ")"


def _num(v: int) -> str:
    return f"{v:.4g}" if v > 10**12 else str(v)


@dataclass(frozen=True)
class KernelRef:
    """Which kernel: its name and the program that holds it."""

    name: str
    sources: tuple[Path, ...] = ()
    language: str | None = None  # "cuda", "omp", "opencl"; None: detect
    defines: tuple[str, ...] = ()
    #: how the program is built (-D, -I, compile_commands.json; see
    #: :class:`ridgeline.sources.ProgramBuild`); None: the given *defines* alone
    build: ProgramBuild | None = None

    @property
    def program_dir(self) -> Path | None:
        if not self.sources:
            return None
        first = self.sources[0]
        return first if first.is_dir() else first.parent


@dataclass(frozen=True)
class Launch:
    """How the kernel is launched: grid and block (None: take them from the source) and the
    program's command-line arguments."""

    grid: Dim3 | None = None
    block: Dim3 | None = None
    args: str = ""
    #: the mangled name of the instantiation a CPU run launched (``_Z11copy_kernelIdEv...``):
    #: template parameters the launch site does not spell out; "" when unknown
    instance: str = ""

    @classmethod
    def parse(cls, grid: Any = None, block: Any = None, args: str | None = "") -> Launch:
        return cls(
            grid=None if grid in (None, "") else parse_dim3(grid, "grid"),
            block=None if block in (None, "") else parse_dim3(block, "block"),
            args="" if args is None else str(args),
        )

    @property
    def threads(self) -> int | None:
        if self.grid is None or self.block is None:
            return None
        g, b = self.grid, self.block
        return g[0] * g[1] * g[2] * b[0] * b[1] * b[2]
