"""The counted kernel-time model: each launch counted under Oclgrind at its real arguments
(:mod:`~ridgeline.opencl.launchcount`), bounded at the device's peaks
(:mod:`~ridgeline.opencl.counted_time`), and corrected by gradient boosting trained on
launches of other kernels timed on that device. Kernel time only; transfers are predicted
apart (:func:`~ridgeline.opencl.counted_time.transfer_time`).

    model = CountedTimeModel(device="pocl").fit(launches, seconds)
    for r in model.predict_launches(launches): r.kernel_s, r.bound_s, r.note, r.error
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline.errors import MissingDataError, NotFittedError, RidgelineError, SchemaError
from ridgeline.opencl.counted_time import FEATURES, bounds, feature_row
from ridgeline.opencl.launchargs import RecordedLaunch
from ridgeline.opencl.launchcount import LaunchCounts, count_launch
from ridgeline.opencl.peaks import DevicePeaks, device_peaks

__all__ = ["CountedTimeModel", "CountedPrediction", "count_all"]


@dataclass
class CountedPrediction:
    """One launch's predicted kernel time (seconds, no transfers), its bound, how its counts
    were taken, and the error that kept it from a prediction ("" when predicted)."""

    kernel_s: float | None
    bound_s: float | None
    note: str = ""
    error: str = ""
    count_s: float = 0.0


def count_all(launches: Sequence[RecordedLaunch], progress: bool = False, desc: str = "counting"
              ) -> list[LaunchCounts | str]:
    """Counts of every launch, or the error of each launch that could not be counted; the
    bar shows rows per second."""
    from tqdm import tqdm

    out: list[LaunchCounts | str] = []
    for launch in tqdm(launches, desc=desc, unit="row", disable=not progress,
                       dynamic_ncols=True):
        try:
            out.append(count_launch(launch))
        except RidgelineError as e:
            out.append(f"{type(e).__name__}: {e}"[:400])
    return out


class CountedTimeModel:
    """Bound at the device's peaks times a learned factor (log2), see the module doc."""

    name = "counted"

    def __init__(self, device: str = "pocl", correction: bool = True, max_iter: int = 300,
                 learning_rate: float = 0.05, max_leaf_nodes: int = 15,
                 min_samples_leaf: int = 20, random_state: int = 0) -> None:
        self.device = device
        self.correction = correction
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def get_params(self) -> dict[str, Any]:
        keys = ("device", "correction", "max_iter", "learning_rate", "max_leaf_nodes",
                "min_samples_leaf", "random_state")
        return {k: getattr(self, k) for k in keys}

    def _peaks(self) -> DevicePeaks:
        return getattr(self, "peaks_", None) or device_peaks(self.device)

    def fit(self, launches: Sequence[RecordedLaunch], seconds: Sequence[float],
            progress: bool = False, counts: Sequence[LaunchCounts | str] | None = None
            ) -> CountedTimeModel:
        """Learn the correction from *launches* timed at *seconds* (launches that cannot
        be counted are left out; ``n_fit_`` says how many were used)."""
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingRegressor

        if len(launches) != len(seconds):
            raise SchemaError(f"{len(launches)} launches but {len(seconds)} times")
        self.peaks_ = device_peaks(self.device)
        counts = counts if counts is not None else count_all(launches, progress)
        X, y = [], []
        for lc, t in zip(counts, seconds, strict=True):
            if isinstance(lc, str) or not t or t <= 0:
                continue
            b = bounds(lc.counts, self.peaks_)["bound"]
            X.append(feature_row(lc.counts, self.peaks_))
            y.append(math.log2(float(t) / b))
        if self.correction and len(X) < 20:
            raise MissingDataError(f"only {len(X)} launches could be counted and timed; the "
                                   "correction needs at least 20")
        self.n_fit_ = len(X)
        self.feature_names_ = list(FEATURES)
        if self.correction:
            self.model_: Any = HistGradientBoostingRegressor(
                max_iter=self.max_iter, learning_rate=self.learning_rate,
                max_leaf_nodes=self.max_leaf_nodes, min_samples_leaf=self.min_samples_leaf,
                random_state=self.random_state).fit(np.array(X), np.array(y))
        else:
            self.model_ = None
        return self

    def predict_launches(self, launches: Sequence[RecordedLaunch], progress: bool = False,
                         counts: Sequence[LaunchCounts | str] | None = None
                         ) -> list[CountedPrediction]:
        """One prediction per launch, in order; a launch that cannot be counted gets its
        error and no time."""
        import numpy as np

        if not hasattr(self, "model_"):
            raise NotFittedError("CountedTimeModel is not fitted: call fit() or load() first")
        peaks = self._peaks()
        counts = counts if counts is not None else count_all(launches, progress, "counting")
        out: list[CountedPrediction] = []
        rows, at = [], []
        for i, lc in enumerate(counts):
            if isinstance(lc, str):
                out.append(CountedPrediction(None, None, error=lc))
                continue
            b = bounds(lc.counts, peaks)["bound"]
            out.append(CountedPrediction(b, b, lc.note, count_s=lc.seconds))
            rows.append(feature_row(lc.counts, peaks))
            at.append(i)
        if rows and self.model_ is not None:
            factor = np.exp2(self.model_.predict(np.array(rows)))
            for i, f in zip(at, factor, strict=True):
                out[i].kernel_s = float(out[i].bound_s or 0.0) * float(f)
        return out

    def save(self, out: str | Path) -> Path:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "counted.pkl").write_bytes(pickle.dumps(self))
        return d

    @classmethod
    def load(cls, model_dir: str | Path) -> CountedTimeModel:
        f = Path(model_dir) / "counted.pkl"
        if not f.exists():
            raise MissingDataError(f"no counted time model in {str(model_dir)!r} (expected "
                                   "counted.pkl)")
        obj = pickle.loads(f.read_bytes())
        if not isinstance(obj, cls):
            raise SchemaError(f"{f} does not hold a CountedTimeModel")
        return obj

    @classmethod
    def bounds_only(cls, device: str = "pocl") -> CountedTimeModel:
        """The model without a correction: the bound at the device's measured peaks."""
        m = cls(device=device, correction=False)
        m.peaks_ = device_peaks(device)
        m.model_ = None
        m.n_fit_ = 0
        m.feature_names_ = list(FEATURES)
        return m
