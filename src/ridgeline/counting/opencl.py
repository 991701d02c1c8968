"""OpenCL programs: counted by Oclgrind through :mod:`ridgeline.profiles.oclgrind`
(Engineer C's module; this backend only adapts its records)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ridgeline.counting.base import BACKENDS, Backend, LaunchCount, ProgramRunError, RunOptions

__all__ = ["OpenCLBackend", "from_oclgrind_record"]


def from_oclgrind_record(rec: Any, launch: int, gpus: list[str]) -> LaunchCount:
    """Adapt one oclgrind launch record (attribute or mapping access) to a LaunchCount and
    model its DRAM bytes from its sector counts."""
    from ridgeline.counting.dram import compulsory_dram_bytes

    def get(name: str, default: float = 0.0) -> Any:
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
    )
    for g in gpus:
        out.dram_bytes_by_gpu[g] = compulsory_dram_bytes(out.sectors_read, out.sectors_written)
    if gpus:
        out.dram_bytes = out.dram_bytes_by_gpu[gpus[0]]
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
        try:
            from ridgeline.profiles import oclgrind  # type: ignore[attr-defined]
        except ImportError as e:
            raise ProgramRunError(program_dir.name, "unsupported",
                                  "the OpenCL counter ridgeline.profiles.oclgrind is not "
                                  "available in this installation") from e
        run = getattr(oclgrind, "profile_program", None)
        if run is None:
            raise ProgramRunError(program_dir.name, "unsupported",
                                  "ridgeline.profiles.oclgrind has no profile_program(); "
                                  "count single kernels with it directly")
        recs = run(program_dir, args, kernel=opts.kernel, timeout=opts.timeout)
        seen: dict[str, int] = {}
        out = []
        for r in recs:
            lc = from_oclgrind_record(r, 0, opts.gpus)
            lc.launch = seen.get(lc.kernel, 0)
            seen[lc.kernel] = lc.launch + 1
            if lc.launch < opts.launches:
                out.append(lc)
        return out
