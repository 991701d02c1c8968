"""Finding the CUDA tools: nvcc (PATH, /usr/local/cuda, PyPI nvidia-cuda-nvcc) and
cuobjdump / nvdisasm (PATH, the CUDA folder, PyPI nvidia-cuda-cuobjdump / -nvdisasm); running
them in the sandbox (:func:`run_tool`)."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from ridgeline import sandbox
from ridgeline.errors import MissingDependencyError
from ridgeline.sandbox import Limits

__all__ = ["find_tool", "run_tool"]

#: output kept per stream of a CUDA tool: all of it (a 13,000-instruction kernel lists 2 MB)
_LISTING_BYTES = 256 << 20

_INSTALL = {
    "nvcc": "pip install nvidia-cuda-nvcc (or install the CUDA toolkit)",
    "cuobjdump": "pip install 'ridgeline[cuda]'",
    "nvdisasm": "pip install 'ridgeline[cuda]'",
}


@functools.cache
def find_tool(name: str) -> str:
    """Absolute path of a CUDA tool; raises MissingDependencyError naming the install."""
    hit = shutil.which(name)
    if hit:
        return hit
    cands = [f"/usr/local/cuda/bin/{name}", *sorted(glob.glob(f"/usr/local/cuda-*/bin/{name}"))]
    for sp in {Path(p) for p in sys.path if p.endswith("site-packages")}:
        cands += sorted(glob.glob(str(sp / "nvidia" / "*" / "bin" / name)))
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        cands.insert(0, str(Path(cuda_home) / "bin" / name))
    for c in cands:
        if os.access(c, os.X_OK):
            return c
    raise MissingDependencyError(name, _INSTALL.get(name, "install the CUDA toolkit"))


def _toolkit_dirs(tool: str) -> list[Path]:
    """The folders a CUDA tool reads besides the sources: its install (``bin/..``; the whole
    ``nvidia`` folder for the PyPI wheels, whose headers and libraries lie in sibling
    packages) and ``$CUDA_HOME``."""
    root = Path(tool).resolve().parent.parent
    if root.parent.name == "nvidia":
        root = root.parent
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    return [root, *(Path(h) for h in homes if h and Path(h).is_dir())]



def run_tool(cmd: Sequence[str], *, cwd: Path, seconds: float, readable: Sequence[Path] = (),
             writable: Sequence[Path] = ()) -> sandbox.Outcome:
    """Run the CUDA tool ``cmd[0]`` in the sandbox (:func:`ridgeline.sandbox.run`): *readable*
    (the sources and include folders) and the tool's install read-only, *writable* (the
    run's temporary folder) the only place it writes, no network, a scrubbed environment,
    ended after *seconds*. Like the counting build's compiler it keeps its uid (a source may
    lie in root's private folders)."""
    return sandbox.run(list(cmd), cwd=cwd, limits=Limits(seconds=seconds),
                       readable=[*readable, *_toolkit_dirs(cmd[0])], writable=writable,
                       unprivileged=False, keep_bytes=_LISTING_BYTES)
