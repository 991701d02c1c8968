"""The GPU catalog: a data file inside the package, extendable with the user's own file."""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ridgeline.errors import InputFileError, SchemaError, UnknownNameError
from ridgeline.hardware.achievable import (
    ALIASES,
    KINDS,
    Measured,
    Roof,
    parse_achievable,
    roof,
    share_groups,
)

__all__ = ["GPU", "Catalog", "load_catalog", "get_gpu", "PRECISIONS"]

#: precisions the catalog has peaks for, in the order used everywhere
PRECISIONS = ("sp", "dp", "hp", "int")
_PEAK_FIELD = {
    "sp": "peak_fp32_tflops",
    "dp": "peak_fp64_tflops",
    "hp": "peak_fp16_tflops",
    "int": "peak_int32_tops",
}
_REQUIRED = (
    "name",
    "vendor",
    "architecture",
    "sm_count",
    "base_clock_mhz",
    "boost_clock_mhz",
    "peak_fp32_tflops",
    "peak_fp64_tflops",
    "peak_fp16_tflops",
    "peak_int32_tops",
    "dram_bandwidth_gbps",
    "memory_gb",
    "l2_mb",
    "source",
)


@dataclass(frozen=True)
class GPU:
    """One GPU as numbers: peaks, bandwidth, SMs, caches."""

    name: str
    vendor: str
    architecture: str
    sm_count: int
    base_clock_mhz: float
    boost_clock_mhz: float
    peak_fp32_tflops: float
    peak_fp64_tflops: float
    peak_fp16_tflops: float
    peak_int32_tops: float
    dram_bandwidth_gbps: float
    memory_gb: float
    l2_mb: float
    source: str
    aliases: tuple[str, ...] = ()
    compute_capability: str | None = None
    gfx_target: str | None = None
    fp32_lanes_per_sm: int | None = None
    fp64_lanes_per_sm: int | None = None
    int32_lanes_per_sm: int | None = None
    #: threads an SM (CU) keeps resident at once; None: 2048 (see resident_threads_per_sm)
    max_threads_per_sm: int | None = None
    #: the share (0..1; true = 1, false = 0) of the dirty L2 sectors a kernel leaves behind
    #: that count as DRAM writes of that kernel (written back within its measured span).
    #: 1 for GA102 (RTX 3080, A10) in the HeCBench profiles; 0.25 for GA100 (40 MB L2), whose
    #: measured DRAM bytes sit between the read misses plus evictions and the full write-back
    #: (see the catalog file)
    l2_exit_writeback: float = 1.0
    #: KiB of what a store-only launch (one that reads at most one global sector for every
    #: fifty it writes) leaves dirty in the L2 at its end, not written back within its
    #: measured span; 0: the l2_exit_writeback share alone. 512 for GA102 (see the catalog file)
    l2_store_only_kept_kib: float = 0.0
    #: MiB of written data the GPU's L2 still holds dirty at the end of a launch, not
    #: written back within its measured span (a launch that writes less keeps all of it):
    #: 0.5 for GA102, 11.5 for GA100 in the HeCBench profiles (see the catalog file). When
    #: set (above 0) it replaces the two fields above, which stand for an earlier model
    l2_exit_kept_mib: float = 0.0
    #: DRAM bytes the GPU's profiler counts for every byte a kernel's data needs: 1 for most
    #: GPUs; 1.15 for the A10, which measured that much more than the RTX 3080 (same GA102
    #: L2) for the same HeCBench kernels, small and large, reading and writing (see the
    #: catalog file)
    dram_bytes_scale: float = 1.0
    #: measured achievable figures {kind: (value, source, note)} (hardware/achievable.py)
    achievable_measured: Mapping[str, Measured] = field(
        default_factory=dict, compare=False, hash=False)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def achievable(self, kind: str) -> Roof:
        """The achievable figure of *kind*: ``dram_bandwidth``, ``fp32``, ``fp64``,
        ``int32`` or ``l2_bandwidth`` (or ``sp``, ``dp``, ``int``, ``l2``, ``dram``):
        measured, with its source, else derived by the rule of hardware/achievable.py
        (``estimated``); ``.rate`` gives it per second in bytes, FLOP or operations. The
        one accessor timing code reads achievable peaks through."""
        kind = ALIASES.get(kind, kind)
        if kind not in KINDS:
            raise UnknownNameError("achievable kind", kind, [*KINDS, *ALIASES])
        return roof(kind, self.achievable_measured, float(getattr(self, KINDS[kind][2])),
                    _shares(), self.architecture, self.vendor)

    @property
    def achievable_bandwidth(self) -> float:
        """Achievable DRAM bandwidth in bytes per second (the theoretical one when the GPU
        has neither a figure nor an estimate)."""
        v = self.achievable("dram_bandwidth").value
        return (v or self.dram_bandwidth_gbps) * 1e9

    @property
    def bandwidth(self) -> float:
        """DRAM bandwidth in bytes per second."""
        return self.dram_bandwidth_gbps * 1e9

    @property
    def l2_bytes(self) -> int:
        return int(self.l2_mb * 1024 * 1024)

    @property
    def resident_threads_per_sm(self) -> int:
        """Threads one SM (CU) holds at once: the catalog's max_threads_per_sm, else 2048
        (the most common figure across NVIDIA compute capabilities)."""
        return self.max_threads_per_sm or 2048

    @property
    def sm_arch(self) -> str | None:
        """nvcc architecture name (``sm_86``) for NVIDIA GPUs."""
        if not self.compute_capability:
            return None
        return "sm_" + self.compute_capability.replace(".", "")

    def peak(self, precision: str, clock: str = "boost", int_lanes: str = "int32") -> float:
        """Peak rate in operations per second (FLOP/s with FMA = 2; integer op/s).

        ``clock="base"`` scales to the base clock: from the per-SM lane counts where the
        catalog has them, else by base/boost. ``int_lanes="fp32"`` counts one integer
        operation per FP32 lane per clock (how the 2025 roofline paper computed it).
        """
        if precision not in _PEAK_FIELD:
            raise UnknownNameError("precision", precision, PRECISIONS)
        if clock not in ("base", "boost"):
            raise UnknownNameError("clock", clock, ("base", "boost"))
        mhz = self.base_clock_mhz if clock == "base" else self.boost_clock_mhz
        lanes = {
            "sp": self.fp32_lanes_per_sm,
            "dp": self.fp64_lanes_per_sm,
            "int": self.fp32_lanes_per_sm if int_lanes == "fp32" else self.int32_lanes_per_sm,
        }.get(precision)
        if lanes is not None and (clock == "base" or precision == "int"):
            per_lane = 1 if precision == "int" else 2
            return float(self.sm_count * lanes * per_lane * mhz * 1e6)
        boost_peak = float(getattr(self, _PEAK_FIELD[precision])) * 1e12
        return boost_peak * mhz / self.boost_clock_mhz

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["aliases"] = list(self.aliases)
        extra = d.pop("extra")
        d.pop("achievable_measured")
        d.update(extra)
        d["achievable"] = {
            k: {**self.achievable(k).to_dict(),
                "theoretical": getattr(self, theo) if (theo := KINDS[k][1]) else None}
            for k in KINDS}
        return d

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], where: str) -> GPU:
        missing = [k for k in _REQUIRED if k not in raw]
        if missing:
            raise SchemaError(
                f"{where}: GPU {raw.get('name', '?')!r} lacks required fields {missing}"
            )
        known = {f.name for f in fields(cls)} - {"extra", "achievable_measured"}
        kwargs = {k: v for k, v in raw.items() if k in known}
        kwargs["aliases"] = tuple(raw.get("aliases", ()))
        kwargs["extra"] = {k: v for k, v in raw.items()
                           if k not in known and not str(k).startswith("achievable_")}
        kwargs["achievable_measured"] = parse_achievable(raw, where)
        share = kwargs.get("l2_exit_writeback", 1.0)
        if not isinstance(share, bool | int | float) or not 0 <= share <= 1:
            raise SchemaError(f"{where}: GPU {raw['name']!r} field l2_exit_writeback must be "
                              f"true, false or a share from 0 to 1, got {share!r}")
        kwargs["l2_exit_writeback"] = float(share)
        for key, default, lo, hi, what in (
                ("l2_store_only_kept_kib", 0.0, 0.0, math.inf, "a number of KiB, 0 or more"),
                ("l2_exit_kept_mib", 0.0, 0.0, math.inf, "a number of MiB, 0 or more"),
                ("dram_bytes_scale", 1.0, 0.5, 2.0, "a factor from 0.5 to 2")):
            v = kwargs.get(key, default)
            if not isinstance(v, int | float) or isinstance(v, bool) or not lo <= v <= hi:
                raise SchemaError(f"{where}: GPU {raw['name']!r} field {key} must be {what}, "
                                  f"got {v!r}")
            kwargs[key] = float(v)
        mt = kwargs.get("max_threads_per_sm")
        if mt is not None and (not isinstance(mt, int) or isinstance(mt, bool) or mt < 32):
            raise SchemaError(f"{where}: GPU {raw['name']!r} field max_threads_per_sm must be "
                              f"a whole number of threads (at least one warp, 32), got {mt!r}")
        for k in _REQUIRED[3:13]:
            v = kwargs[k]
            if not isinstance(v, int | float) or v <= 0:
                raise SchemaError(
                    f"{where}: GPU {raw['name']!r} field {k} must be a positive number, got {v!r}"
                )
        return cls(**kwargs)


def _key(name: str) -> str:
    """Normalise a GPU name for lookups: case, spaces, dashes and vendor words ignored."""
    s = name.lower()
    s = re.sub(r"\b(nvidia|geforce|tesla|amd|radeon|instinct)\b", " ", s)
    return re.sub(r"[^a-z0-9]", "", s)


class Catalog:
    """GPUs by name and alias, case-insensitive."""

    def __init__(self, gpus: Iterable[GPU] = ()) -> None:
        self._gpus: dict[str, GPU] = {}
        self._index: dict[str, str] = {}
        for g in gpus:
            self.add(g)

    def add(self, gpu: GPU) -> None:
        """Add or replace a GPU (a user's file overrides the shipped entry of the same name)."""
        old = self._gpus.get(gpu.name)
        if old is not None:
            self._index = {k: v for k, v in self._index.items() if v != old.name}
        self._gpus[gpu.name] = gpu
        for alias in (gpu.name, *gpu.aliases):
            self._index[_key(alias)] = gpu.name
            self._index[alias.lower()] = gpu.name

    def get(self, name: str | GPU) -> GPU:
        if isinstance(name, GPU):
            return name
        hit = self._index.get(name.lower()) or self._index.get(_key(name))
        if hit is None:
            raise UnknownNameError("GPU", name, self._gpus)
        return self._gpus[hit]

    def __iter__(self) -> Iterator[GPU]:
        return iter(self._gpus.values())

    def __len__(self) -> int:
        return len(self._gpus)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (
            name.lower() in self._index or _key(name) in self._index
        )

    def extended(self, path: str | Path) -> Catalog:
        """A new catalog with the GPUs of a user's TOML or JSON file added or overriding."""
        new = Catalog(self)
        for g in _read_file(Path(path)):
            new.add(g)
        return new


def _read_file(path: Path) -> list[GPU]:
    if not path.is_file():
        raise InputFileError(f"GPU file {str(path)!r} does not exist or is not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"GPU file {path}: not UTF-8 (byte {e.start})") from None
    return _parse(text, str(path), json_format=path.suffix.lower() == ".json")


def _parse(text: str, where: str, json_format: bool) -> list[GPU]:
    try:
        data: Any = json.loads(text) if json_format else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputFileError(f"GPU file {where}: {e}") from None
    items = data.get("gpu", data.get("gpus")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise SchemaError(
            f"GPU file {where}: expected a list of GPUs ([[gpu]] tables in TOML, "
            "or a JSON array / {{\"gpus\": [...]}})"
        )
    return [GPU.from_mapping(g, f"{where} entry {i}") for i, g in enumerate(items)]


@lru_cache(maxsize=1)
def _builtin() -> Catalog:
    text = resources.files("ridgeline").joinpath("data/hardware/gpus.toml").read_text("utf-8")
    return Catalog(_parse(text, "ridgeline/data/hardware/gpus.toml", json_format=False))


@lru_cache(maxsize=1)
def _shares() -> dict[tuple[str, str, str], tuple[float, int]]:
    """The derived figures' shares over the shipped GPUs (achievable.share_groups)."""
    return share_groups(_builtin())


def load_catalog(gpu_file: str | Path | None = None) -> Catalog:
    """The shipped catalog, extended by *gpu_file* when given."""
    cat = _builtin()
    return cat.extended(gpu_file) if gpu_file else Catalog(cat)


def get_gpu(name: str | GPU, gpu_file: str | Path | None = None) -> GPU:
    return load_catalog(gpu_file).get(name)
