"""Input sizing by memory analysis: run the kernel under Oclgrind at a few global sizes,
record the highest byte each buffer argument touches, fit it as an affine function of the
global size, and allocate from the fit.

Integer scalars get the global size (the convention of CLgen's driver: a scalar usually
bounds the index range), floating-point scalars 1.0. Out-of-bounds probes are fine: the
plugin records the offset an access asked for even when Oclgrind refuses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ridgeline.datagen.args import ArgSlot, KernelSpec
from ridgeline.errors import RidgelineError
from ridgeline.profiles.oclgrind import Buffer, LocalBuffer, Scalar, count_kernel

__all__ = ["AffineFit", "SizingModel", "size_kernel", "make_args", "PROBE_SIZES"]

PROBE_SIZES = (64, 128, 256)
LOCAL_BYTES = 4096  # per __local buffer argument


@dataclass(frozen=True)
class AffineFit:
    """Highest byte touched (exclusive) = slope * global_size + intercept."""

    slope: float
    intercept: float

    def at(self, g: int) -> float:
        return self.slope * g + self.intercept


@dataclass
class SizingModel:
    """Buffer sizes as functions of the global size, or why the kernel cannot be sized."""

    fits: dict[int, AffineFit] = field(default_factory=dict)
    ok: bool = True
    reason: str = ""
    probes: list[dict[str, Any]] = field(default_factory=list)

    def nbytes(self, slot: ArgSlot, g: int) -> int:
        fit = self.fits.get(slot.index)
        need = fit.at(g) if fit else slot.elem_size * g  # untouched: one element per item
        elems = max(1, math.ceil(max(need, slot.elem_size) / slot.elem_size))
        return elems * slot.elem_size


def scalar_value(slot: ArgSlot, g: int) -> Scalar:
    if any(t in slot.ctype for t in ("float", "double", "half")):
        return Scalar(1.0, slot.ctype, slot.elem_size)
    return Scalar(g, slot.ctype, slot.elem_size)


def make_args(spec: KernelSpec, g: int, sizing: SizingModel | None = None,
              fill: float = 1) -> list[Buffer | LocalBuffer | Scalar]:
    """Arguments for a launch of global size *g* (total work-items)."""
    out: list[Buffer | LocalBuffer | Scalar] = []
    for s in spec.slots:
        if s.kind == "buffer":
            n = sizing.nbytes(s, g) if sizing else s.elem_size * g
            out.append(Buffer(n, fill, ctype=s.ctype))
        elif s.kind == "local":
            out.append(LocalBuffer(LOCAL_BYTES))
        else:
            out.append(scalar_value(s, g))
    return out


def _fit(xs: list[int], ys: list[float]) -> tuple[AffineFit, float]:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    fit = AffineFit(slope, my - slope * mx)
    resid = max(abs(fit.at(x) - y) for x, y in zip(xs, ys, strict=True))
    return fit, resid


def size_kernel(spec: KernelSpec, probes: tuple[int, ...] = PROBE_SIZES,
                timeout: float = 60.0) -> SizingModel:
    """Probe *spec* under Oclgrind and fit each buffer's extent; never raises for a bad
    kernel: the model says ``ok=False`` and why."""
    model = SizingModel()
    touched: dict[int, list[tuple[int, float]]] = {}
    for g in probes:
        local = min(g, 16)
        try:
            c = count_kernel(spec.source, spec.name, g, local, make_args(spec, g),
                             build_options=spec.build_options, timeout=timeout)
        except RidgelineError as e:
            model.ok, model.reason = False, f"{type(e).__name__}: {str(e)[:400]}"
            return model
        model.probes.append({"global": g, "instructions": c.instructions,
                             "errors": len(c.errors)})
        for i, acc in c.args.items():
            touched.setdefault(i, []).append((g, float(acc.hi)))
    for i, pts in touched.items():
        if len(pts) < len(probes):  # touched at some sizes only: size from the largest
            pts = [(g, max(y for _, y in pts)) for g in probes]
        fit, resid = _fit([p[0] for p in pts], [p[1] for p in pts])
        slot = spec.slots[i]
        if resid > max(2 * slot.elem_size, 0.02 * max(p[1] for p in pts)):
            model.ok = False
            model.reason = (f"argument {slot.name!r}: extent is not affine in the global size "
                            f"(probes {pts})")
            return model
        model.fits[i] = AffineFit(max(fit.slope, 0.0), max(fit.intercept, 0.0))
    return model
