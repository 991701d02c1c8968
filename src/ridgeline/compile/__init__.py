"""Compiled features: nvcc -> SASS opcode histogram and ptxas resource usage per kernel,
cached by content hash (``$RIDGELINE_CACHE``, default ~/.cache/ridgeline).

    from ridgeline.compile import compile_cuda, compiled_features
    compile_cuda("prog/main.cu", arch="sm_86")["functions"]   # every kernel of the file
    compiled_features(kernel, arch="sm_86")                   # one Kernel from sources
"""

from __future__ import annotations

from ridgeline.compile._tools import find_tool, run_tool
from ridgeline.compile.kernel import compiled_features, match_functions
from ridgeline.compile.nvcc import cache_dir, check_arch, compile_cuda, parse_ptxas, parse_sass

__all__ = [
    "cache_dir",
    "check_arch",
    "compile_cuda",
    "compiled_features",
    "find_tool",
    "match_functions",
    "parse_ptxas",
    "parse_sass",
    "run_tool",
]
