"""Learned predictor: gradient-boosted trees (:mod:`ridgeline.learning`) correcting the
analytic counts.

Targets are log10(1 + count) of SP/DP/HP FLOPs, integer ops, DRAM bytes (as residuals over the
analysed source counts) and log10 time (ns);
features are the analysed launch (featvec.LAUNCH_COLUMNS) and the GPU's catalog numbers
(featvec.GPU_COLUMNS). The class is derived from the predicted counts by rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import pandas as pd

from ridgeline.analysis.kernel import KernelAnalysis, analyze_launch
from ridgeline.hardware import GPU, Counts
from ridgeline.launch import KernelRef, Launch
from ridgeline.learning.columns import features_frame
from ridgeline.learning.confidence import class_confidence
from ridgeline.learning.count_cache import counted_sizes
from ridgeline.learning.counted_columns import COUNTED_COLUMNS, counted_features
from ridgeline.learning.featvec import LAUNCH_COLUMNS, launch_features
from ridgeline.learning.model import CountModel, ExportedCountModel, uses_direct_counts
from ridgeline.learning.shipped import shipped_model
from ridgeline.learning.slow_bound import time_notes
from ridgeline.predictors.analytic import require_sizes
from ridgeline.predictors.base import PREDICTORS, Prediction, Predictor, Query

__all__ = ["LearnedPredictor"]

class LearnedPredictor(Predictor):
    """Default predictor: analysed counts corrected by the shipped boosted-tree model; with
    :attr:`counted` (launch records from :func:`ridgeline.learning.count_cache.run_counts`)
    FLOPs, integer ops and DRAM bytes come from the counts and time is learned from them."""

    name = "learned"

    def __init__(self, model: CountModel | ExportedCountModel | None = None,
                 counted: list[dict[str, Any]] | None = None) -> None:
        self.model = model
        self.counted = counted

    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        return self.predict_frame([(kernel, launch, gpu)])[0]

    def predict_frame(self, queries: Iterable[Query]) -> list[Prediction]:
        """Every row analysed on its own, the model asked once for the whole frame."""
        rows, X, Y = self._frame(queries)
        if not rows:
            return []
        said = time_notes(X, Y)
        return [self._prediction(a, lf, gpu, Y.iloc[i], said[i])
                for i, (a, lf, gpu) in enumerate(rows)]

    def _frame(self, queries: Iterable[Query]
               ) -> tuple[list[tuple[KernelAnalysis, dict[str, float], GPU]], pd.DataFrame,
                          pd.DataFrame]:
        """The rows (analysis, launch and counted features, GPU), their feature frame and the
        model's answers for it (empty frames when there is no row)."""
        rows = [(*self._launch_row(kernel, launch, gpu), gpu) for kernel, launch, gpu in queries]
        if not rows:
            return [], pd.DataFrame(), pd.DataFrame()
        frame = pd.DataFrame([lf for _, lf, _ in rows], columns=LAUNCH_COLUMNS + COUNTED_COLUMNS)
        X = features_frame(frame, [gpu for _, _, gpu in rows])
        return rows, X, (self.model or shipped_model()).predict(X)

    def _launch_row(self, kernel: KernelRef, launch: Launch, gpu: GPU
                    ) -> tuple[KernelAnalysis, dict[str, float]]:
        """The launch analysed from source (sizes from the CPU run when the source does not
        give them) and its launch and counted features on *gpu*."""
        instance = next((str(r.get("instance") or "") for r in self.counted or []), "")
        if instance and not launch.instance:
            # the template instantiation the CPU run launched
            launch = replace(launch, instance=instance)
        a = analyze_launch(kernel, launch)
        sizes = counted_sizes(self.counted) if _sizes_unknown(a) else None
        if sizes is not None:
            # the source does not give them; the CPU run saw the launch
            a = analyze_launch(kernel, replace(launch, grid=sizes[0], block=sizes[1]))
            a.origin.update(grid="counted launch (CPU execution)",
                            block="counted launch (CPU execution)")
        require_sizes(a)
        lf: dict[str, float] = dict(launch_features(a))
        lf.update(counted_features(self.counted, gpu.name, a.grid, a.block))
        return a, lf

    def _prediction(self, a: KernelAnalysis, lf: dict[str, float], gpu: GPU,
                    y: pd.Series, time_note: str = "") -> Prediction:
        counts = Counts(float(y.flops_sp), float(y.flops_dp), float(y.flops_hp),
                        float(y.int_ops), float(y.dram_bytes))
        notes = list(a.notes)
        if a.stats.unknown_loops and not self.counted:
            notes.append(f"{a.stats.unknown_loops} loop(s) with unknown trip counts")
        if time_note:
            notes.append(time_note)
        counted = lf.get("c_has") == 1.0
        if self.counted and uses_direct_counts():
            be = self.counted[0].get("backend", "?")
            origin = {**a.origin,
                      "flops": f"counted ({be} CPU execution)",
                      "dram_bytes": f"counted ({be} CPU execution + L2 and local-memory "
                                    f"model of {gpu.name})",
                      "int_ops": f"counted ({be} CPU execution"
                                 + (" + OpenMP device runtime per thread)" if be == "omp"
                                    else ")"),
                      "time": "learned (from counts + GPU numbers)"}
        else:
            origin = {**a.origin, "counts": "learned (boosted trees over analysed source "
                      "counts)", "time": "learned"}
            if not a.stats.unknown_loops:
                origin["flops"] = "analysed source (every loop's trip count evaluated)"
        lo, hi = float(y.time_lo_ns), float(y.time_hi_ns)
        return Prediction.from_counts(
            a.kernel, gpu, counts, self.name, time_s=float(y.time_ns) * 1e-9,
            confidence=class_confidence(counts, gpu, counted), origin=origin, notes=notes,
            time_range_s=(lo * 1e-9, hi * 1e-9) if math.isfinite(lo) and math.isfinite(hi)
            else None,
        )


def _sizes_unknown(a: KernelAnalysis) -> bool:
    return a.language != "omp" and (a.grid is None or a.block is None
                                    or not math.isfinite(a.threads))


PREDICTORS.add("learned", LearnedPredictor)
