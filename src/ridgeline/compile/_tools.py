"""Finding the CUDA tools: nvcc (PATH, /usr/local/cuda, PyPI nvidia-cuda-nvcc) and
cuobjdump / nvdisasm (PATH, the CUDA folder, PyPI nvidia-cuda-cuobjdump / -nvdisasm)."""

from __future__ import annotations

import functools
import glob
import os
import shutil
import sys
from pathlib import Path

from ridgeline.errors import MissingDependencyError

__all__ = ["find_tool"]

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
