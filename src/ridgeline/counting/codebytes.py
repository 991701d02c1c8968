"""What the compiled CUDA kernel tells the DRAM model: its machine-code bytes, and whether it
uses local memory at all.

**Code bytes.** Nsight Compute flushes the caches before each profiled launch, so a kernel's
instructions come from DRAM like its data. HeCBench's measured bytes exceed the modelled data
traffic by about the size of the kernel's SASS (16 bytes per instruction since Volta):
secp256k1's kernel is 13,296 instructions (213 kB) and moves 248 kB where its data is 36 kB;
collision's checkDuplicateMask (512-1,056 instructions) moves 19 kB beside 3 kB of data. For
kernels with large data the code is noise; for small launches it is most of the traffic.

**Local memory.** The CPU run finds stack arrays indexed at run time and models their
traffic as GPU local memory (``dram.local_dram_bytes``). nvcc often keeps such arrays in
registers after unrolling the loops that index them; a kernel whose SASS has no stack frame
and no local loads or stores moves no local bytes (wlcpow's bond kernel: 880 bytes of arrays
per thread on the CPU, none on the GPU, measured DRAM equal to its global traffic alone).

Both come from compiling the program's own translation units with nvcc (cubin for
:data:`CODE_ARCH`, read with cuobjdump and ptxas ``-v``; cached like every compile). Template
instances of one kernel name take the mean size, and use local memory if any of them does.
Without nvcc, or when a file does not compile, the kernels concerned keep the CPU-side
figures (``LaunchCount.code_bytes`` and ``gpu_local_memory`` None).
"""

from __future__ import annotations

import logging
import statistics
from pathlib import Path
from typing import Any, NamedTuple

from ridgeline.compile.kernel import functions_named
from ridgeline.compile.nvcc import compile_cuda
from ridgeline.counting.base import LaunchCount
from ridgeline.counting.program import (
    makefile_nvcc_flags,
    sources_of,
)
from ridgeline.counting.records import gpu_local_dram, gpu_threads
from ridgeline.errors import CompileError, MissingDependencyError
from ridgeline.hardware import get_gpu
from ridgeline.sources.build import BuildFlags

log = logging.getLogger(__name__)

__all__ = ["INSTRUCTION_BYTES", "CODE_ARCH", "KernelCode", "program_functions",
           "kernel_code", "apply_kernel_code", "apply_kernel_code_to_launch",
           "apply_kernel_code_to_record"]

#: bytes of one SASS instruction (Volta and later)
INSTRUCTION_BYTES = 16
#: one compile serves every GPU: sizes differ by a few percent between Ampere and Hopper
CODE_ARCH = "sm_86"
_LOCAL_OPCODES = ("LDL", "STL")


class KernelCode(NamedTuple):
    """One compiled function: SASS instructions, and whether it touches local memory."""

    instructions: int
    local_memory: bool


def _has_kernel(path: Path) -> bool:
    try:
        return "__global__" in path.read_text(errors="replace")
    except OSError:
        return False


def program_functions(program_dir: Path, defines: list[str] | None = None,
                      arch: str = CODE_ARCH, includes: list[Path] | None = None,
                      ) -> tuple[dict[str, KernelCode], list[str]]:
    """Every function in the CUDA program's translation units (the Makefile's ``.cu``
    sources, and others whose text defines kernels; a ``.cu`` may define its kernels in an
    included file), and the problems met (one line each: a file nvcc could not compile, or
    nvcc missing)."""
    program_dir = Path(program_dir)
    build = BuildFlags.from_makefile(program_dir, "cuda")
    defs = list(build.defines) if defines is None else defines
    incs = [*build.includes, *(includes or [])]
    flags = makefile_nvcc_flags(program_dir)
    funcs: dict[str, KernelCode] = {}
    problems: list[str] = []
    for src in sources_of(program_dir, "cuda"):
        if src.suffix.lower() != ".cu" and not _has_kernel(src):
            continue
        try:
            data = compile_cuda(src, arch=arch, defines=defs, include_dirs=incs,
                                extra_flags=flags)
        except MissingDependencyError as e:
            return funcs, [f"no compiled kernels: {e}"]
        except CompileError as e:
            problems.append(f"{src.name}: {str(e).splitlines()[0]}")
            continue
        for name, f in data["functions"].items():
            res = f.get("resources") or {}
            local = (res.get("stack_bytes", 0) > 0 or res.get("local_bytes", 0) > 0
                     or any(f["opcodes"].get(o, 0) for o in _LOCAL_OPCODES))
            funcs[name] = KernelCode(int(f["instructions"]), bool(local))
    return funcs, problems


def kernel_code(kernel: str, functions: dict[str, KernelCode]
                ) -> tuple[float | None, bool | None]:
    """(code bytes, uses local memory) of the kernel called *kernel*: the mean size of its
    template instances and whether any of them uses local memory; (None, None) when no
    compiled function is that kernel."""
    names = functions_named(kernel, functions)
    if not names:
        return None, None
    size = INSTRUCTION_BYTES * statistics.fmean(functions[n].instructions for n in names)
    return size, any(functions[n].local_memory for n in names)


def _gpu_terms(gpu: str, code: float, local_bytes: float, footprint: float | None,
               threads: float, scaled: bool) -> tuple[float, float]:
    """(*code* bytes, the local traffic records.to_launch_count modelled) for catalog GPU
    *gpu*, as its profiler counts them (``GPU.dram_bytes_scale``) when *scaled*; unscaled
    code and no local traffic for a GPU of a user's catalog file that is not loaded now."""
    try:
        spec = get_gpu(gpu)
    except KeyError:
        return code, 0.0
    scale = spec.dram_bytes_scale if scaled else 1.0
    return scale * code, scale * gpu_local_dram(spec, local_bytes, footprint, threads)


def apply_kernel_code(by_gpu: dict[str, float], code: float | None,
                      local_memory: bool | None, local_bytes: float,
                      footprint: float | None, threads: float,
                      scaled: bool = True) -> dict[str, float]:
    """DRAM bytes per GPU with the kernel's *code* bytes added and, when its compiled code
    has no local memory, the modelled local traffic of *local_bytes* (the launch's local
    loads plus stores, *footprint* bytes per thread, *threads* on the GPU) taken out; both
    scaled like the figures when *scaled* (DRAM model 5 on, records.upgrade_record)."""
    out = {}
    for g, v in by_gpu.items():
        code_g, local_g = _gpu_terms(g, code or 0.0, local_bytes, footprint, threads, scaled)
        v += code_g
        if local_memory is False:
            v -= local_g
        out[g] = v
    return out


def apply_kernel_code_to_launch(r: LaunchCount, functions: dict[str, KernelCode]) -> None:
    """Give a fresh launch count its kernel's code bytes and local-memory use, and bring its
    DRAM bytes (every GPU's, and the requested one's: the first GPU modelled, as
    ``records.to_launch_count`` takes it) to what they say."""
    r.code_bytes, r.gpu_local_memory = kernel_code(r.kernel, functions)
    r.dram_bytes_by_gpu = apply_kernel_code(
        r.dram_bytes_by_gpu, r.code_bytes, r.gpu_local_memory,
        r.local_load_bytes + r.local_store_bytes, r.local_footprint,
        gpu_threads("cuda", r.grid, r.block))
    if r.dram_bytes is not None and r.dram_bytes_by_gpu:
        r.dram_bytes = next(iter(r.dram_bytes_by_gpu.values()))


def apply_kernel_code_to_record(rec: dict[str, Any], functions: dict[str, KernelCode]
                                ) -> dict[str, Any]:
    """A stored CUDA launch record (``LaunchCount.to_dict``) brought to what count-run gives
    now: code bytes added and local traffic dropped where the compiled kernel has none.
    Records that have ``gpu_local_memory`` (even None) come back unchanged; records that
    have ``code_bytes`` only get the local-memory step."""
    if "gpu_local_memory" in rec or rec.get("backend") != "cuda":
        return rec
    code, local = kernel_code(str(rec["kernel"]), functions)
    had_code = "code_bytes" in rec
    grid, block = rec.get("grid"), rec.get("block")
    threads = gpu_threads("cuda", tuple(grid) if grid else None,
                          tuple(block) if block else None)
    old = dict(rec.get("dram_bytes_by_gpu") or {})
    by_gpu = apply_kernel_code(
        old, None if had_code else code, local,
        float(rec.get("local_load_bytes") or 0) + float(rec.get("local_store_bytes") or 0),
        rec.get("local_footprint"), threads, scaled=rec.get("dram_model", 1) >= 5)
    out = {**rec, "dram_bytes_by_gpu": by_gpu, "gpu_local_memory": local,
           "code_bytes": rec["code_bytes"] if had_code else code}
    dram = rec.get("dram_bytes")
    if dram is not None:
        # the requested GPU's figure: the one by_gpu entry it equals moves with it
        same = [g for g, v in old.items() if v == dram]
        out["dram_bytes"] = by_gpu[same[0]] if same else dram
    return out
