"""SASS text of one CUDA kernel for the ``sass`` scenario: the front end finds the kernel's
file (:mod:`ridgeline.sources`), nvcc compiles it to a cubin with the tools that
:mod:`ridgeline.compile` finds, and cuobjdump's listing of that function is kept."""

from __future__ import annotations

import re
import tempfile
from functools import lru_cache
from pathlib import Path

from ridgeline.errors import CompileError, UsageError

__all__ = ["kernel_sass", "function_listings"]

_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INSTR = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;?\s*(/\*.*\*/)?\s*$")


def function_listings(dump: str) -> dict[str, str]:
    """cuobjdump -sass output -> {mangled function: its instructions, one per line}."""
    out: dict[str, list[str]] = {}
    cur: list[str] | None = None
    for line in dump.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if cur is not None:
            mi = _INSTR.match(line)
            if mi and mi.group(1):
                cur.append(mi.group(1).rstrip(" ;"))
    return {k: "\n".join(v) for k, v in out.items()}


@lru_cache(maxsize=64)
def _dump(source: str, arch: str, timeout: float = 600) -> dict[str, str]:
    from ridgeline.compile import check_arch, find_tool, run_tool

    src = Path(source)
    args = [f"-arch={check_arch(arch)}", "-cubin", "-std=c++17", "-I", str(src.parent), "-w"]
    with tempfile.TemporaryDirectory(prefix="ridgeline-sass-") as tmp:
        work = Path(tmp)
        cubin = work / "k.cubin"
        r = run_tool([find_tool("nvcc"), *args, "-x", "cu", str(src), "-o", str(cubin)],
                     cwd=src.parent, seconds=timeout, writable=[work])
        if r.timed_out or r.returncode != 0 or not cubin.exists():
            tail = "\n".join((r.stderr or r.stdout).strip().splitlines()[-4:])
            why = f"timed out after {timeout:.0f} s" if r.timed_out else f"exit {r.returncode}"
            raise CompileError(f"nvcc failed on {src} ({why}):\n{tail}")
        d = run_tool([find_tool("cuobjdump"), "-sass", str(cubin)], cwd=work,
                     seconds=timeout, writable=[work])
    if d.timed_out or d.returncode != 0:
        raise CompileError(f"cuobjdump failed on the cubin of {src}: {d.stderr.strip()}")
    return function_listings(d.stdout)


def kernel_sass(program_dir: str | Path, kernel: str, language: str = "cuda",
                arch: str = "sm_86", max_lines: int = 4000) -> str:
    """The SASS of *kernel* (all its template instances), at most *max_lines* lines."""
    if language != "cuda":
        raise UsageError(f"SASS is produced for CUDA kernels only; {kernel!r} is {language}")
    from ridgeline.compile import match_functions
    from ridgeline.sources import get_kernel, load_program

    k = get_kernel(load_program([str(program_dir)]), kernel)
    funcs = _dump(str(Path(k.file).resolve()), arch)
    names = match_functions(k, funcs)
    if not names:
        raise CompileError(f"kernel {kernel!r} is not in the compiled code of {k.file}")
    parts = [f"Function : {n}\n{funcs[n]}" for n in names]
    lines = "\n\n".join(parts).splitlines()
    return "\n".join(lines[:max_lines])
