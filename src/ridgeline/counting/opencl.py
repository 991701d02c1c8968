"""OpenCL programs: counted by Oclgrind through :mod:`ridgeline.profiles.oclgrind`
(Engineer C's module; this backend only adapts its records)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ridgeline.counting.base import BACKENDS, Backend, LaunchCount, ProgramRunError, RunOptions
from ridgeline.hardware import GPU

__all__ = ["OpenCLBackend", "from_oclgrind_record"]


def from_oclgrind_record(rec: Any, launch: int, gpus: Sequence[str | GPU]) -> LaunchCount:
    """Adapt one oclgrind launch record (attribute or mapping access) to a LaunchCount and
    model its DRAM bytes from its sector counts."""
    from ridgeline.counting.dram import compulsory_dram_bytes

    def get(name: str, default: Any = 0.0) -> Any:
        if isinstance(rec, dict):
            return rec.get(name, default)
        return getattr(rec, name, default)

    out = LaunchCount(
        kernel=str(get("kernel", "kernel")), launch=launch, backend="opencl",
        flops_sp=float(get("flops_sp")), flops_dp=float(get("flops_dp")),
        flops_hp=float(get("flops_hp")), int_ops=float(get("int_ops")),
        global_load_bytes=float(get("global_load_bytes")),
        global_store_bytes=float(get("global_store_bytes")),
        sectors_read=float(get("sectors_read")), sectors_written=float(get("sectors_written")),
        global_loads=float(get("global_loads")), global_stores=float(get("global_stores")),
        atomics=float(get("atomics_global")) + float(get("atomics_local")),
    )
    gs, ls = get("global_size", None), get("local_size", None)
    if gs and ls:
        out.block = (int(ls[0]), int(ls[1]), int(ls[2]))
        out.grid = tuple(max(1, int(g) // max(1, int(b))) for g, b in zip(gs, ls, strict=True))  # type: ignore[assignment]
    from ridgeline.hardware import get_gpu

    for g in gpus:
        spec = get_gpu(g)
        out.dram_bytes_by_gpu[spec.name] = spec.dram_bytes_scale * compulsory_dram_bytes(
            out.sectors_read, out.sectors_written)
    if gpus:
        out.dram_bytes = out.dram_bytes_by_gpu[get_gpu(gpus[0]).name]
    return out


@BACKENDS.register("opencl")
class OpenCLBackend(Backend):
    name = "opencl"

    def detect(self, program_dir: Path) -> bool:
        if any(program_dir.glob("*.cl")):
            return True
        return any(re.search(r"\bclEnqueueNDRangeKernel\b", p.read_text(errors="replace"))
                   for p in program_dir.glob("*.c*") if p.is_file())

    def count(self, program_dir: Path, args: list[str], opts: RunOptions) -> list[LaunchCount]:
        """Run the folder's built OpenCL executable under Oclgrind (Engineer C's
        ``profile_program``); DRAM bytes are the compulsory traffic of its sector counts."""
        from ridgeline.errors import ExecutionError, MissingDependencyError, UsageError
        from ridgeline.profiles import oclgrind

        try:
            recs = oclgrind.profile_program(program_dir, args, kernel=None,
                                            timeout=opts.timeout)
        except MissingDependencyError:
            raise
        except UsageError as e:
            raise ProgramRunError(program_dir.name, "not-found", str(e)) from e
        except ExecutionError as e:
            cause = "timeout" if "did not finish" in str(e) else "crash"
            raise ProgramRunError(program_dir.name, cause, str(e)) from e
        seen: dict[str, int] = {}
        out = []
        for r in recs:
            if opts.kernel and opts.kernel not in r.kernel:
                continue
            lc = from_oclgrind_record(r, seen.get(r.kernel, 0), opts.gpus)
            seen[r.kernel] = lc.launch + 1
            if lc.launch < opts.launches:
                out.append(lc)
        if not out:
            raise ProgramRunError(program_dir.name, "no-launch",
                                  "no OpenCL kernel launch matched the request")
        return out
