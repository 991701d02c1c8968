"""Roofline plots: theoretical roofs solid, achievable roofs dashed beside them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ridgeline.hardware import get_gpu

_POINTS = {"flops": np.array([1e9, 1e10]), "bytes": np.array([1e8, 1e8]),
           "time_ns": np.array([2e5, 1e6])}


@pytest.mark.parametrize("gpu,derived", [("mi100", False), ("h100", False), ("l4", True)])
def test_the_roofline_draws_dashed_achievable_roofs(gpu: str, derived: bool) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ridgeline.evaluation.plots import roofline_axes

    g = get_gpu(gpu)
    fig, ax = plt.subplots()
    try:
        roofline_axes(ax, g, _POINTS, _POINTS)
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
    finally:
        plt.close(fig)
    how = " (derived)" if derived else ""
    assert set(lines) == {"SP roof", "DP roof", f"achievable SP roof{how}",
                          f"achievable DP roof{how}"}
    for prec, kind in (("SP", "fp32"), ("DP", "fp64")):
        theo, ach = lines[f"{prec} roof"], lines[f"achievable {prec} roof{how}"]
        assert theo.get_linestyle() == "-" and ach.get_linestyle() == "--"
        assert theo.get_color() == ach.get_color()
        x, y = (np.asarray(v, float) for v in ach.get_data())
        # flat at the achievable peak, the slope of the achievable DRAM bandwidth below it
        assert y.max() == pytest.approx(g.achievable(kind).rate)
        assert y[0] == pytest.approx(x[0] * g.achievable("dram_bandwidth").rate)
        assert np.all(y <= np.asarray(theo.get_data()[1], float) * (1 + 1e-9))


def test_the_roofline_chart_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from ridgeline.evaluation.plots import roofline_chart

    out = roofline_chart(tmp_path / "a100.png", "a100", _POINTS, _POINTS)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 1000
