"""Compiled features of one kernel found by the front ends."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ridgeline.compile.nvcc import compile_cuda
from ridgeline.errors import CompileError
from ridgeline.sources import Kernel

__all__ = ["compiled_features", "match_functions", "functions_named"]


def functions_named(name: str, functions: dict[str, Any], mangled: str | None = None
                    ) -> list[str]:
    """Mangled names in *functions* of the kernel called *name* (one, or each template
    instance; a namespace may precede it); *mangled* first when it is among them."""
    if mangled and mangled in functions:
        return [mangled]
    pre = re.compile(rf"^_Z(?:N\w*?)?{len(name)}{re.escape(name)}(?:I|[A-Za-z])")
    hits = [f for f in functions if pre.match(f)]
    if not hits:
        hits = [f for f in functions if f == name]  # extern "C"
    return sorted(hits)


def match_functions(kernel: Kernel, functions: dict[str, Any]) -> list[str]:
    """Mangled names in *functions* that are *kernel* (one, or each template instance)."""
    return functions_named(kernel.name, functions, kernel.mangled)


def compiled_features(kernel: Kernel, arch: str = "sm_86", defines: list[str] | None = None,
                      use_cache: bool = True) -> dict[str, Any]:
    """SASS opcode histogram and resources of a CUDA kernel (summed over template instances,
    which are also listed one by one)."""
    if kernel.language != "cuda":
        raise CompileError(f"compiled features need a CUDA kernel; {kernel.name!r} is "
                           f"{kernel.language}")
    data = compile_cuda(kernel.file, arch=arch, defines=defines, use_cache=use_cache)
    names = match_functions(kernel, data["functions"])
    if not names:
        raise CompileError(
            f"kernel {kernel.name!r} is not in the compiled code of {kernel.file} for {arch} "
            "(a template never instantiated in that file?); compiled functions: "
            + ", ".join(sorted(data["functions"])[:20]))
    total: Counter[str] = Counter()
    for n in names:
        total.update(data["functions"][n]["opcodes"])
    first = data["functions"][names[0]]
    return {
        "arch": data["arch"], "cached": data["cached"], "functions": names,
        "opcodes": dict(total), "instructions": sum(total.values()),
        "resources": first["resources"],
        "instances": {n: data["functions"][n] for n in names} if len(names) > 1 else {},
    }
