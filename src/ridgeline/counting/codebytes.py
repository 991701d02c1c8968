"""Machine-code bytes of CUDA kernels: DRAM traffic a profiled launch has besides its data.

Nsight Compute flushes the caches before each profiled launch, so a kernel's instructions
come from DRAM like its data. HeCBench's measured bytes exceed the modelled data traffic by
about the size of the kernel's SASS (16 bytes per instruction since Volta): secp256k1's
kernel is 13,296 instructions (213 kB) and moves 248 kB where its data is 36 kB; collision's
checkDuplicateMask (512-1,056 instructions) moves 19 kB beside 3 kB of data. For kernels with
large data the code is noise; for small launches it is most of the traffic.

The size comes from compiling the program's own translation units with nvcc (cubin for
:data:`CODE_ARCH`, read with cuobjdump; cached like every compile); template instances of
one kernel name take their mean. Without nvcc, or when a file does not compile, the kernels
concerned get no code bytes (``LaunchCount.code_bytes`` None) and their DRAM bytes keep the
data traffic and the launch floor alone.
"""

from __future__ import annotations

import logging
import statistics
from pathlib import Path
from typing import Any

from ridgeline.compile.kernel import functions_named
from ridgeline.compile.nvcc import compile_cuda
from ridgeline.counting.program import (
    makefile_defines,
    makefile_includes,
    makefile_nvcc_flags,
    sources_of,
)
from ridgeline.errors import CompileError, MissingDependencyError

log = logging.getLogger(__name__)

__all__ = ["INSTRUCTION_BYTES", "CODE_ARCH", "program_functions", "code_bytes_of",
           "add_code_bytes", "add_code_bytes_to_record"]

#: bytes of one SASS instruction (Volta and later)
INSTRUCTION_BYTES = 16
#: one compile serves every GPU: sizes differ by a few percent between Ampere and Hopper
CODE_ARCH = "sm_86"


def _has_kernel(path: Path) -> bool:
    try:
        return "__global__" in path.read_text(errors="replace")
    except OSError:
        return False


def program_functions(program_dir: Path, defines: list[str] | None = None,
                      arch: str = CODE_ARCH) -> tuple[dict[str, int], list[str]]:
    """SASS instruction count of every function in the CUDA program's translation units
    (the Makefile's ``.cu`` sources, and others whose text defines kernels; a ``.cu`` may
    define its kernels in an included file), and the problems met (one line each: a
    file nvcc could not compile, or nvcc missing)."""
    program_dir = Path(program_dir)
    defs = makefile_defines(program_dir) if defines is None else defines
    incs = list(makefile_includes(program_dir))
    flags = makefile_nvcc_flags(program_dir)
    funcs: dict[str, int] = {}
    problems: list[str] = []
    for src in sources_of(program_dir, "cuda"):
        if src.suffix.lower() != ".cu" and not _has_kernel(src):
            continue
        try:
            data = compile_cuda(src, arch=arch, defines=defs, include_dirs=incs,
                                extra_flags=flags)
        except MissingDependencyError as e:
            return funcs, [f"no code sizes: {e}"]
        except CompileError as e:
            problems.append(f"{src.name}: {str(e).splitlines()[0]}")
            continue
        for name, f in data["functions"].items():
            funcs[name] = int(f["instructions"])
    return funcs, problems


def code_bytes_of(kernel: str, functions: dict[str, int]) -> float | None:
    """Code bytes of the kernel called *kernel* (mean over its template instances), None when
    no compiled function is that kernel."""
    names = functions_named(kernel, functions)
    if not names:
        return None
    return INSTRUCTION_BYTES * statistics.fmean(functions[n] for n in names)


def add_code_bytes(by_gpu: dict[str, float], dram: float | None, code: float | None
                   ) -> tuple[dict[str, float], float | None]:
    """DRAM bytes per GPU and of the requested GPU with *code* bytes added (once)."""
    if not code:
        return dict(by_gpu), dram
    return ({g: v + code for g, v in by_gpu.items()},
            None if dram is None else dram + code)


def add_code_bytes_to_record(rec: dict[str, Any], functions: dict[str, int]) -> dict[str, Any]:
    """A stored CUDA launch record (``LaunchCount.to_dict``) with its kernel's code bytes;
    records that have them (``code_bytes`` present, even None) come back unchanged."""
    if "code_bytes" in rec or rec.get("backend") != "cuda":
        return rec
    code = code_bytes_of(str(rec["kernel"]), functions)
    by_gpu, dram = add_code_bytes(rec.get("dram_bytes_by_gpu") or {}, rec.get("dram_bytes"),
                                  code)
    return {**rec, "dram_bytes_by_gpu": by_gpu, "dram_bytes": dram, "code_bytes": code}
