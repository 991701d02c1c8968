"""Feature rows for the time regressors: static source features (libclang front end),
Oclgrind per-work-item dynamic counts (cached by kernel hash), and launch features.

The Oclgrind profile of a kernel is measured at two global sizes with CLgen's argument
convention (every buffer holds one element per work-item, integer scalars equal the global
size) and kept as an affine function of the global size, so any launch's counts are
extrapolated without running it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ridgeline.datagen.args import KernelSpec, kernel_hash, kernel_spec
from ridgeline.errors import LaunchError, RidgelineError

__all__ = ["static_vector", "oclgrind_profile", "launch_row", "infer_global_size",
           "PROFILE_KEYS"]

PROFILE_SIZES = (256, 1024)
PROFILE_KEYS = ("instructions", "flops_sp", "flops_dp", "int_ops", "global_load_bytes",
                "global_store_bytes", "local_load_bytes", "local_store_bytes", "branches",
                "barriers", "atomics_global", "special_sp", "sectors_read", "sectors_written",
                "warp_sector_requests")


def _flatten(prefix: str, obj: Any, out: dict[str, float]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(obj, bool | int | float):
        out[prefix] = float(obj)


def static_vector(source: str, spec: KernelSpec | None = None) -> dict[str, float]:
    """Numeric static features of the first kernel in *source* (empty parts on failure)."""
    out: dict[str, float] = {"src_lines": float(source.count("\n") + 1),
                             "src_chars": float(len(source))}
    try:
        from ridgeline.features import static_features
        from ridgeline.sources import parse_opencl

        k = parse_opencl(source)[0]
        st = static_features(k)
        for key in ("flops", "flops_weighted", "memory", "memory_weighted", "ops"):
            _flatten(f"st.{key}", st.get(key, {}), out)
        for key in ("max_loop_depth", "atomics", "barriers", "branches", "divergent_branches",
                    "unknown_trip_weight"):
            v = st.get(key)
            if isinstance(v, int | float):
                out[f"st.{key}"] = float(v)
        out["st.n_loops"] = float(len(st.get("loops", [])))
        out["st.special"] = float(sum(st.get("special_functions", {}).values()))
    except (RidgelineError, IndexError, ImportError):
        pass
    if spec is not None:
        out["n_buffers"] = float(sum(s.kind == "buffer" for s in spec.slots))
        out["n_scalars"] = float(sum(s.kind == "scalar" for s in spec.slots))
        out["n_local"] = float(sum(s.kind == "local" for s in spec.slots))
        out["buffer_elem_bytes"] = float(sum(s.elem_size for s in spec.slots
                                             if s.kind == "buffer"))
    return out


def _cache_file(h: str) -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    return Path(base) / "oclgrind-profiles" / f"{h}.json"


def oclgrind_profile(source: str, timeout: float = 60.0, cache: bool = True) -> dict[str, Any]:
    """Per-kernel Oclgrind profile: for each count, slope and intercept in the global size;
    ``{"error": reason}`` when the kernel cannot be run."""
    from ridgeline.datagen.sizing import make_args
    from ridgeline.profiles.oclgrind import count_kernel

    h = kernel_hash(source)
    f = _cache_file(h)
    if cache and f.exists():
        return dict(json.loads(f.read_text()))
    try:
        spec = kernel_spec(source)
        runs = [count_kernel(source, spec.name, g, 64, make_args(spec, g), timeout=timeout)
                for g in PROFILE_SIZES]
        g1, g2 = PROFILE_SIZES
        prof: dict[str, Any] = {}
        for k in PROFILE_KEYS:
            a, b = float(getattr(runs[0], k)), float(getattr(runs[1], k))
            slope = (b - a) / (g2 - g1)
            prof[k] = [slope, a - slope * g1]
        prof["oob_errors"] = len(runs[0].errors) + len(runs[1].errors)
    except RidgelineError as e:
        prof = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    if cache:
        f.parent.mkdir(parents=True, exist_ok=True)
        tmp = f.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(prof))
        os.replace(tmp, f)
    return prof


def infer_global_size(dataset: Any, transfer: float, spec: KernelSpec) -> int:
    """The global size of a CLgen-style row: ``dataset`` when numeric, else from the bytes
    transferred (every buffer holds one element per work-item, copied in and out)."""
    try:
        g = int(float(dataset))
        if g > 0:
            return g
    except (TypeError, ValueError):
        pass
    per_item = sum(s.elem_size for s in spec.slots if s.kind == "buffer")
    if per_item <= 0 or not transfer or transfer <= 0:
        raise LaunchError(f"dataset {dataset!r} is not a global size and the size cannot be "
                          f"inferred from transfer={transfer!r} (kernel has "
                          f"{per_item} buffer bytes per item)")
    return max(1, int(round(float(transfer) / (2 * per_item))))


def launch_row(profile: dict[str, Any], global_size: int, local_size: int,
               transfer: float) -> dict[str, float]:
    """Launch features, and the profile's counts extrapolated to *global_size* (log2)."""
    g = float(global_size)
    out = {"log2_global": math.log2(g), "log2_local": math.log2(max(1, local_size)),
           "log2_groups": math.log2(max(1.0, g / max(1, local_size))),
           "log2_transfer": math.log2(max(1.0, float(transfer or 0.0)))}
    ok = "error" not in profile
    out["profile_ok"] = float(ok)
    for k in PROFILE_KEYS:
        if ok and k in profile:
            slope, icpt = profile[k]
            out[f"og.{k}"] = math.log2(1.0 + max(0.0, slope * g + icpt))
            out[f"og.{k}_per_item"] = slope
        else:
            out[f"og.{k}"] = float("nan")
            out[f"og.{k}_per_item"] = float("nan")
    return out
