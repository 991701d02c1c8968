"""PNG plots for evaluation reports (matplotlib, Agg backend, imported lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ridgeline.hardware import get_gpu

__all__ = ["roofline_chart", "time_scatter", "confusion_plot"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def roofline_chart(path: Path, gpu: str, measured: dict[str, np.ndarray],
                   predicted: dict[str, np.ndarray]) -> Path:
    """FP FLOP/s against FLOP per DRAM byte, measured and predicted, under the GPU's roofs.

    *measured*/*predicted* hold ``flops`` (all precisions), ``bytes`` and ``time_ns`` arrays."""
    plt = _plt()
    g = get_gpu(gpu)
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    xs = np.logspace(-3, 4, 200)
    for prec, style in (("sp", "-"), ("dp", "--")):
        ax.plot(xs, np.minimum(g.peak(prec), xs * g.bandwidth), "k" + style, lw=1,
                label=f"{prec.upper()} roof")
    _achievable_roof(ax, xs, g)
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _achievable_roof(ax: Any, xs: np.ndarray, g: Any) -> None:
    """The achievable SP roof, dashed beside the theoretical ones: achievable DRAM bandwidth
    and FP32 (the theoretical FP32 where the GPU has no achievable figure)."""
    bw, sp = g.achievable("dram_bandwidth"), g.achievable("fp32")
    if bw.value is None and sp.value is None:
        return
    peak = sp.value * 1e12 if sp.value is not None else g.peak("sp")
    est = " (estimated)" if bw.estimated or sp.estimated else ""
    ax.plot(xs, np.minimum(peak, xs * (bw.value or g.dram_bandwidth_gbps) * 1e9), "--",
            color="tab:red", lw=1, label=f"achievable SP roof{est}")


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
