"""Feature rows for the time regressors: static source features (libclang front end),
Oclgrind per-work-item dynamic counts (cached by kernel hash), and launch features.

The Oclgrind profile of a kernel is measured at three global sizes with CLgen's argument
convention (every buffer holds one element per work-item, integer scalars equal the global
size), so any launch's counts are extrapolated without running it: linearly, or as a
quadratic when the middle size shows that a size-valued scalar bounds a loop.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from pathlib import Path
from typing import Any

from ridgeline._atomic import write_text_atomic
from ridgeline.datagen.args import KernelSpec, kernel_hash, kernel_spec
from ridgeline.errors import LaunchError, RidgelineError
from ridgeline.profiles.oclgrind_sampling import GROUP_SPREAD
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["static_vector", "oclgrind_profile", "launch_row", "infer_global_size", "extrapolate",
           "profile_note", "PROFILE_KEYS"]

PROFILE_SIZES = (256, 512, 1024)
PROFILE_LOCAL = 64
#: profile launches of more groups run only their first and last group, scaled (a kernel
#: whose loops a size-valued scalar bounds costs the square of the size to run whole)
PROFILE_SAMPLE_ABOVE = 2
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


def static_vector(source: str, spec: KernelSpec | None = None,
                  build: BuildOptions | None = None, own_text: bool = False
                  ) -> dict[str, float]:
    """Numeric static features of *spec*'s kernel in *source*, else of the first (empty
    parts on failure). The text's size is the whole source's, or with *own_text* (a kernel
    named in a program of several) the kernel's own with the functions it calls."""
    out: dict[str, float] = {"src_lines": float(source.count("\n") + 1),
                             "src_chars": float(len(source))}
    try:
        from ridgeline.features import static_features
        from ridgeline.sources import parse_opencl

        ks = parse_opencl(source, build=build)
        k = next((x for x in ks if spec is not None and x.name == spec.name), ks[0])
        text = k.extracted or k.text
        if own_text and text:
            out = {"src_lines": float(text.count("\n") + 1), "src_chars": float(len(text))}
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


def _cache_file(h: str, version: str = "v2") -> Path:
    base = os.environ.get("RIDGELINE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ridgeline")
    sub = "oclgrind-profiles" if version == "v1" else f"oclgrind-profiles-{version}"
    return Path(base) / sub / f"{h}.json"


def _legacy_values(h: str) -> dict[int, dict[str, float]]:
    """Counts at 256 and 1024 work-items recovered from a v1 cache entry (slope and
    intercept of the two-point fit), so they need not be measured again."""
    try:
        old = json.loads(_cache_file(h, "v1").read_text())
    except (OSError, ValueError):  # absent or unreadable: a miss
        return {}
    if not isinstance(old, dict) or "error" in old or any(k not in old for k in PROFILE_KEYS):
        return {}
    return {g: {k: old[k][0] * g + old[k][1] for k in PROFILE_KEYS} for g in (256, 1024)}


def profile_key(source: str, build: BuildOptions | None = None,
                kernel: str | None = None) -> str:
    """Cache key of a kernel's profile: its text, and the build options and kernel name
    when there are any (so profiles cached before either existed stay valid)."""
    text = source
    if build:
        text += f"\n// clBuildProgram: {build.cl_string()}"
    if kernel:
        text += f"\n// kernel: {kernel}"
    return kernel_hash(text)


def oclgrind_profile(source: str, timeout: float = 60.0, cache: bool = True,
                     build: BuildOptions | None = None,
                     kernel: str | None = None) -> dict[str, Any]:
    """Per-kernel Oclgrind profile: every count measured at the global sizes
    ``PROFILE_SIZES`` (``{"sizes": [...], key: [values]}``); ``{"error": reason}`` when the
    kernel cannot be run. :func:`extrapolate` evaluates it at any global size. *build*:
    the host's build options; *kernel*: which kernel of *source* (default the first).
    Sizes of more than two work-groups are sampled (first and last group, scaled;
    ``groups_run`` / ``groups_total`` say so)."""
    from ridgeline.datagen.sizing import make_args
    from ridgeline.profiles.oclgrind import count_kernel

    h = profile_key(source, build, kernel)
    f = _cache_file(h)
    if cache:
        with contextlib.suppress(OSError, ValueError, TypeError):  # absent or unreadable: a miss
            return dict(json.loads(f.read_text()))
    try:
        spec = kernel_spec(source, kernel, build=build)
        known = _legacy_values(h) if cache and not build and not kernel else {}
        vals: dict[int, dict[str, float]] = {}
        oob = 0
        groups: dict[int, tuple[int, int, float]] = {}
        for g in PROFILE_SIZES:
            if g in known:
                vals[g] = known[g]
                continue
            c = count_kernel(source, spec.name, g, PROFILE_LOCAL, make_args(spec, g),
                             build_options=spec.build_options, timeout=timeout,
                             sample_above=PROFILE_SAMPLE_ABOVE)
            vals[g] = {k: float(getattr(c, k)) for k in PROFILE_KEYS}
            oob += len(c.errors)
            hi = c.group_instructions_max
            groups[g] = (c.groups_run, c.groups_total,
                         (hi - c.group_instructions_min) / hi if hi else 0.0)
        prof: dict[str, Any] = {"sizes": list(PROFILE_SIZES), "oob_errors": oob}
        for k in PROFILE_KEYS:
            prof[k] = [vals[g][k] for g in PROFILE_SIZES]
        if any(run < total for run, total, _ in groups.values()):
            prof["groups_run"] = [groups.get(g, (0, 0, 0.0))[0] for g in PROFILE_SIZES]
            prof["groups_total"] = [groups.get(g, (0, 0, 0.0))[1] for g in PROFILE_SIZES]
            prof["group_spread"] = max(v[2] for v in groups.values())
    except RidgelineError as e:
        prof = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    if cache:
        write_text_atomic(f, json.dumps(prof))
    return prof


def profile_note(profile: dict[str, Any]) -> str:
    """How a profile's counts were taken, for a row's output."""
    if "error" in profile:
        return f"no Oclgrind counts: {profile['error']}"
    if "sizes" not in profile:
        return "no Oclgrind counts"
    at = "/".join(str(g) for g in profile["sizes"])
    if "groups_run" not in profile:
        return f"Oclgrind counts at {at} work-items (every work-group), extrapolated"
    run = "/".join(str(n) for n in profile["groups_run"])
    total = "/".join(str(n) for n in profile["groups_total"])
    note = (f"Oclgrind counts sampled at {at} work-items: {run} of {total} work-groups "
            "(first and last), scaled, extrapolated")
    spread = float(profile.get("group_spread", 0.0))
    if spread > GROUP_SPREAD:
        note += f"; the sampled groups' work differs by {spread:.0%}"
    return note


def extrapolate(sizes: list[int], values: list[float], g: float) -> tuple[float, float]:
    """(count at global size *g*, growth exponent) from counts measured at three sizes:
    linear through the outer points unless the middle point shows curvature (a loop
    bounded by a size-valued scalar makes the total quadratic), then the exact quadratic."""
    (x0, x1, x2), (y0, y1, y2) = sizes, values
    slope = (y2 - y0) / (x2 - x0)
    lin_mid = y0 + slope * (x1 - x0)
    expo = math.log2(max(y2, 1.0) / max(y0, 1.0)) / math.log2(x2 / x0)
    if abs(y1 - lin_mid) <= 0.02 * max(abs(y1), 1.0):
        return max(0.0, y0 + slope * (g - x0)), expo
    # Lagrange quadratic through the three points
    v = (y0 * (g - x1) * (g - x2) / ((x0 - x1) * (x0 - x2))
         + y1 * (g - x0) * (g - x2) / ((x1 - x0) * (x1 - x2))
         + y2 * (g - x0) * (g - x1) / ((x2 - x0) * (x2 - x1)))
    return max(0.0, v), expo


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
    """Launch features, and the profile's counts at *global_size* (log2): totals, per
    work-item and per work-group (what one core runs between scheduling decisions)."""
    g = float(global_size)
    groups = max(1.0, g / max(1, local_size))
    out = {"log2_global": math.log2(g), "log2_local": math.log2(max(1, local_size)),
           "log2_groups": math.log2(groups),
           "log2_transfer": math.log2(max(1.0, float(transfer or 0.0)))}
    ok = "error" not in profile and "sizes" in profile
    out["profile_ok"] = float(ok)
    for k in PROFILE_KEYS:
        if ok and k in profile:
            total, expo = extrapolate(profile["sizes"], profile[k], g)
            out[f"og.{k}"] = math.log2(1.0 + total)
            out[f"og.{k}_per_item"] = total / g
            out[f"og.{k}_per_group"] = math.log2(1.0 + total / groups)
            out[f"og.{k}_growth"] = expo
        else:
            for suffix in ("", "_per_item", "_per_group", "_growth"):
                out[f"og.{k}{suffix}"] = float("nan")
    if ok:
        moved = sum(extrapolate(profile["sizes"], profile[k], g)[0]
                    for k in ("global_load_bytes", "global_store_bytes"))
        instr = extrapolate(profile["sizes"], profile["instructions"], g)[0]
        out["og.instr_per_byte"] = instr / max(1.0, moved)
    else:
        out["og.instr_per_byte"] = float("nan")
    return out
