"""Gradient-boosted time regressor on static source features, Oclgrind per-work-item
counts (extrapolated to the launch's global size) and launch features. Target: log2 of the
run time in microseconds.

Rows are tables with ``src`` (OpenCL source of one kernel), ``global_size``, ``local_size``,
``transfer`` (bytes), optionally ``build_options`` (the host's ``clBuildProgram`` options the
kernel needs), ``kernel`` (which kernel of ``src``; default the first) and, for fitting,
``time_us``.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ridgeline.errors import MissingDataError, NotFittedError, SchemaError
from ridgeline.hardware import GPU, Counts
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors.base import PREDICTORS, Prediction, Predictor, Query
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["GBMRegressor", "featurize", "REQUIRED", "kernel_source", "time_predictions"]

REQUIRED = ("src", "global_size", "local_size", "transfer")


def _keys(rows: Any) -> list[tuple[str, str, str]]:
    """(source, build options, kernel name) of each row: the unit a profile is measured
    for (an empty name: the source's first kernel)."""
    opts = rows["build_options"] if "build_options" in rows.columns else [""] * len(rows)
    names = rows["kernel"] if "kernel" in rows.columns else [""] * len(rows)
    return [(str(s), str(o or ""), str(k or "")) for s, o, k in zip(rows["src"], opts, names,
                                                                    strict=True)]


def _profiles(rows: Any, use_oclgrind: bool, progress: bool
              ) -> dict[tuple[str, str, str], tuple[dict[str, float], dict[str, Any]]]:
    """Static features and Oclgrind profile of each distinct kernel of *rows*; the bar
    counts rows (a kernel's rows are done when its profile is)."""
    from collections import Counter

    from tqdm import tqdm

    from ridgeline.datagen.features import oclgrind_profile

    missing = [c for c in REQUIRED if c not in rows.columns]
    if missing:
        raise SchemaError(f"rows lack columns {missing}; required: {list(REQUIRED)}")
    out = {}
    with tqdm(total=len(rows), desc="features", unit="row", disable=not progress,
              leave=False) as bar:
        for key, n in Counter(_keys(rows)).items():
            src, opts, name = key
            build = BuildOptions.parse(opts) if opts else None
            prof = (oclgrind_profile(src, build=build, kernel=name or None) if use_oclgrind
                    else {"error": "disabled"})
            out[key] = (_static_cached(src, build, name or None), prof)
            bar.update(n)
    return out


def featurize(rows: Any, use_oclgrind: bool = True, progress: bool = False) -> Any:
    """Feature table (one row per input row) for the time regressors."""
    import pandas as pd

    from ridgeline.datagen.features import launch_row

    per_key = _profiles(rows, use_oclgrind, progress)
    out = []
    for key, g, loc, tr in zip(_keys(rows), rows["global_size"], rows["local_size"],
                               rows["transfer"], strict=True):
        st, prof = per_key[key]
        out.append({**st, **launch_row(prof, int(g), int(loc), float(tr))})
    return pd.DataFrame(out)


_STATIC: dict[tuple[str, str, str], dict[str, float]] = {}


def _static_cached(src: str, build: BuildOptions | None = None,
                   kernel: str | None = None) -> dict[str, float]:
    from ridgeline.datagen.args import kernel_spec
    from ridgeline.datagen.features import static_vector

    key = (src, build.cl_string() if build else "", kernel or "")
    if key not in _STATIC:
        try:
            spec = kernel_spec(src, kernel, build=build)
        except Exception:  # unparsable kernel: static text features only
            spec = None
        _STATIC[key] = static_vector(src, spec, build, own_text=bool(kernel))
    return _STATIC[key]


class GBMRegressor(Predictor):
    """Histogram gradient boosting (scikit-learn) on log2 of microseconds."""

    name = "gbm-regressor"

    def __init__(self, max_iter: int = 600, learning_rate: float = 0.05,
                 max_leaf_nodes: int = 31, l2_regularization: float = 1.0,
                 min_samples_leaf: int = 10, use_oclgrind: bool = True,
                 loss: str = "squared_error", quantile: float = 0.5,
                 random_state: int = 0) -> None:
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.l2_regularization = l2_regularization
        self.min_samples_leaf = min_samples_leaf
        self.use_oclgrind = use_oclgrind
        # of log2 time: "squared_error", "absolute_error" (median) or "quantile" (at
        # *quantile*; below 0.5 suits MAPE, which punishes over-prediction more)
        self.loss = loss
        self.quantile = quantile
        self.random_state = random_state

    def get_params(self) -> dict[str, Any]:
        keys = ("max_iter", "learning_rate", "max_leaf_nodes", "l2_regularization",
                "min_samples_leaf", "use_oclgrind", "loss", "quantile", "random_state")
        return {k: getattr(self, k) for k in keys}

    def fit(self, rows: Any, progress: bool = False) -> GBMRegressor:
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingRegressor

        if "time_us" not in rows.columns:
            raise SchemaError("training rows need a time_us column")
        X = featurize(rows, self.use_oclgrind, progress)
        X = X.loc[:, X.notna().any()]  # a column without any value cannot be binned
        y = np.log2(np.maximum(rows["time_us"].to_numpy(dtype=float), 1e-3))
        self.feature_names_ = list(X.columns)
        self.model_ = HistGradientBoostingRegressor(
            max_iter=self.max_iter, learning_rate=self.learning_rate,
            max_leaf_nodes=self.max_leaf_nodes, l2_regularization=self.l2_regularization,
            min_samples_leaf=self.min_samples_leaf, loss=getattr(self, "loss", "squared_error"),
            quantile=getattr(self, "quantile", 0.5) if getattr(self, "loss", "") == "quantile"
            else None, random_state=self.random_state)
        self.model_.fit(X.to_numpy(dtype=float), y)
        return self

    def predict_rows(self, rows: Any, progress: bool = False) -> Any:
        """Predicted time in microseconds for each row."""
        import numpy as np

        if not hasattr(self, "model_"):
            raise NotFittedError("GBMRegressor is not fitted: call fit() or load() first")
        X = featurize(rows, self.use_oclgrind, progress).reindex(columns=self.feature_names_)
        return np.exp2(self.model_.predict(X.to_numpy(dtype=float)))

    def count_notes(self, rows: Any) -> list[str]:
        """How each row's Oclgrind counts were taken (sampled work-groups, failures)."""
        from ridgeline.datagen.features import profile_note

        if not self.use_oclgrind:
            return ["Oclgrind counts not used by this model"] * len(rows)
        notes = {k: profile_note(prof) for k, (_, prof) in _profiles(rows, True, False).items()}
        return [notes[k] for k in _keys(rows)]

    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        return self.predict_frame([(kernel, launch, gpu)])[0]

    def predict_frame(self, queries: Iterable[Query]) -> list[Prediction]:
        """The rows' features built together and the model asked once."""
        return time_predictions(self, list(queries), _launch_row)

    def save(self, out: str | Path) -> Path:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "gbm.pkl").write_bytes(pickle.dumps(self))
        return d

    @classmethod
    def load(cls, model_dir: str | Path) -> GBMRegressor:
        f = Path(model_dir) / "gbm.pkl"
        if not f.exists():
            raise MissingDataError(f"no GBM regressor in {str(model_dir)!r} (expected gbm.pkl)")
        obj = pickle.loads(f.read_bytes())
        if not isinstance(obj, cls):
            raise SchemaError(f"{f} does not hold a GBMRegressor")
        return obj

    target_: str = "unknown"


def _launch_row(kernel: KernelRef, launch: Launch) -> dict[str, Any]:
    """The regressor's row of one launch: the kernel's source, global and local size."""
    g = launch.threads or (launch.grid[0] if launch.grid else 1024)
    loc = launch.block[0] if launch.block else 64
    return {"src": kernel_source(kernel), "global_size": g, "local_size": loc, "transfer": 0}


def time_predictions(reg: Any, queries: list[Query],
                     row: Callable[[KernelRef, Launch], dict[str, Any]]) -> list[Prediction]:
    """A time regressor's predictions of *queries*: one :meth:`predict_rows` over the rows
    *row* makes of them."""
    import pandas as pd

    if not queries:
        return []
    us = reg.predict_rows(pd.DataFrame([row(kernel, launch) for kernel, launch, _ in queries]))
    return [Prediction(kernel.name, gpu.name, Counts(), float(t) * 1e-6, reg.name,
                       origin={"time_s": f"{reg.name} (trained on {reg.target_})"})
            for (kernel, _, gpu), t in zip(queries, us, strict=True)]


def kernel_source(kernel: KernelRef) -> str:
    for p in kernel.sources:
        if p.is_file():
            return p.read_text(errors="replace")
        if p.is_dir():
            for f in sorted(p.glob("*.cl")):
                return f.read_text(errors="replace")
    raise MissingDataError(f"no OpenCL source for kernel {kernel.name!r} in {kernel.sources}")


def _json(v: Any) -> str:
    return json.dumps(v, default=lambda x: None if isinstance(x, float) and math.isnan(x) else x)


PREDICTORS.add("gbm-regressor", GBMRegressor)
