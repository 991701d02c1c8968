"""PNG plots for evaluation reports (matplotlib, Agg backend, imported lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.hardware import GPU, get_gpu

__all__ = ["roofline_chart", "roofline_axes", "achievable_roofs", "time_scatter",
           "confusion_plot"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def roofline_chart(path: Path, gpu: str | GPU, measured: dict[str, np.ndarray],
                   predicted: dict[str, np.ndarray]) -> Path:
    """FP FLOP/s against FLOP per DRAM byte, measured and predicted, under the GPU's roofs.

    *measured*/*predicted* hold ``flops`` (all precisions), ``bytes`` and ``time_ns`` arrays."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    roofline_axes(ax, get_gpu(gpu), measured, predicted)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def roofline_axes(ax: Any, g: GPU, measured: dict[str, np.ndarray],
                  predicted: dict[str, np.ndarray]) -> None:
    """Draw :func:`roofline_chart`'s content on *ax*: the theoretical SP and DP roofs solid,
    the achievable ones dashed, measured and predicted points."""
    xs = np.logspace(-3, 4, 200)
    for prec, color in _ROOF_COLORS.items():
        ax.plot(xs, np.minimum(g.peak(prec), xs * g.bandwidth), "-", color=color, lw=1,
                label=f"{prec.upper()} roof")
    achievable_roofs(ax, xs, g)
    for d, mk, lab in ((measured, "o", "measured"), (predicted, "x", "predicted")):
        f, b, t = (np.asarray(d[k], float) for k in ("flops", "bytes", "time_ns"))
        ok = (f > 0) & (b > 0) & (t > 0)
        ax.scatter(f[ok] / b[ok], f[ok] / (t[ok] * 1e-9), marker=mk, s=12, alpha=0.5,
                   label=f"{lab} ({int(ok.sum())})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("FLOP per DRAM byte")
    ax.set_ylabel("FLOP/s")
    ax.set_title(f"Roofline: {g.name}")
    ax.legend(fontsize=7)


#: roof colour per precision: the theoretical roof solid, the achievable one dashed
_ROOF_COLORS = {"sp": "black", "dp": "tab:blue"}
_ROOF_KIND = {"sp": "fp32", "dp": "fp64"}


def achievable_roofs(ax: Any, xs: np.ndarray, g: Any) -> list[Any]:
    """The achievable SP and DP roofs, dashed beside the theoretical ones: the achievable
    DRAM bandwidth slope under each precision's achievable peak (measured, else derived;
    the label says "derived" where either is). Returns the lines drawn."""
    bw = g.achievable("dram_bandwidth")
    lines = []
    for prec, color in _ROOF_COLORS.items():
        peak = g.achievable(_ROOF_KIND[prec])
        if bw.rate is None and peak.rate is None:
            continue
        slope = bw.rate if bw.rate is not None else g.bandwidth
        top = peak.rate if peak.rate is not None else g.peak(prec)
        how = " (derived)" if bw.estimated or peak.estimated else ""
        lines += ax.plot(xs, np.minimum(top, xs * slope), "--", color=color, lw=1,
                         label=f"achievable {prec.upper()} roof{how}")
    return lines


def time_scatter(path: Path, measured_ns: np.ndarray, predicted_ns: np.ndarray,
                 title: str) -> Path:
    plt = _plt()
    m, p = np.asarray(measured_ns, float), np.asarray(predicted_ns, float)
    ok = (m > 0) & (p > 0) & np.isfinite(m) & np.isfinite(p)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(m[ok], p[ok], s=8, alpha=0.5)
    lo, hi = (min(m[ok].min(), p[ok].min()), max(m[ok].max(), p[ok].max())) if ok.any() \
        else (1, 10)
    ax.plot([lo, hi], [lo, hi], "k-", lw=1)
    ax.plot([lo, hi], [2 * lo, 2 * hi], "k:", lw=0.8)
    ax.plot([lo, hi], [lo / 2, hi / 2], "k:", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured time (ns)")
    ax.set_ylabel("predicted time (ns)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def confusion_plot(path: Path, confusion: list[list[int]], labels: list[str],
                   title: str) -> Path:
    plt = _plt()
    cm = np.asarray(confusion, float)
    fig, ax = plt.subplots(figsize=(3.6, 3.2))
    ax.imshow(cm, cmap="Blues")
    for i in range(cm.shape[0]):
        for j in range(cm.shape[1]):
            ax.text(j, i, f"{int(cm[i, j])}", ha="center", va="center")
    ax.set_xticks(range(cm.shape[1]), labels[: cm.shape[1]])
    ax.set_yticks(range(cm.shape[0]), labels[: cm.shape[0]])
    ax.set_xlabel("predicted")
    ax.set_ylabel("measured")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
