"""The whole feature record of one kernel: identity, launches, static and compiled features."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ridgeline.errors import CompileError, MissingDependencyError
from ridgeline.features.static import static_features
from ridgeline.sources import Kernel, Program, get_kernel, load_program

log = logging.getLogger(__name__)

__all__ = ["kernel_record", "kernel_features"]


def kernel_record(kernel: Kernel, program: Program | None = None, arch: str | None = None,
                  defines: Iterable[str] = ()) -> dict[str, Any]:
    """Identity + static features (+ compiled features for CUDA when *arch* is given)."""
    rec: dict[str, Any] = kernel.to_dict()
    rec["static"] = static_features(kernel)
    rec["compiled"] = None
    if arch:
        if kernel.language != "cuda":
            rec["compiled_note"] = (f"no compiled features for {kernel.language} kernels "
                                    "(no offload compiler used); source features only")
        else:
            from ridgeline.compile import compiled_features

            try:
                rec["compiled"] = compiled_features(kernel, arch=arch, defines=list(defines))
            except (CompileError, MissingDependencyError) as e:
                rec["compiled_note"] = f"compiled features unavailable: {e}"
    return rec


def kernel_features(paths: Sequence[str | Path] | str | Path, name: str,
                    arch: str | None = None, defines: Iterable[str] = ()) -> dict[str, Any]:
    """Load the program at *paths*, find kernel *name* and return its feature record."""
    defs = list(defines)
    prog = load_program(paths, defines=defs)
    return kernel_record(get_kernel(prog, name), prog, arch=arch, defines=defs)
