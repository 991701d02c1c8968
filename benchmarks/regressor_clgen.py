"""Time prediction on held-out kernels (kernel-grouped 90/10, optionally 5-fold too):
GBM (static + Oclgrind + launch features; ``gbm-l1``: absolute error of log time), a
launch-only GBM ablation (sizes and transfer bytes only) and the LLM regressor
(SmolLM2-135M frozen backbone, cached kernel embeddings, MLP head), side by side.

Rows: CLgen's GTX 970 / HD 7970 ``runtime_gpu`` (``--gpus nvidia,amd``; times include
transfers) or a local datagen run (``--pocl DIR``: kernel time on that device).
``affine-floor`` is no prediction: each kernel's own least-relative-error fit of its times,
a + b * global size + c * work-groups, scored on the same samples it was fitted to (how far
the device's times are from smooth in the launch size: a floor under any model that scales
a kernel's cost with its size).

    RIDGELINE_DATA=../shared/data python benchmarks/regressor_clgen.py --models gbm,launch
    python benchmarks/regressor_clgen.py --pocl runs/dg --models gbm,llm --folds 5 \\
        [--pocl-time min]
    python benchmarks/regressor_clgen.py --pocl runs/dg --models affine-floor
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ridgeline.datagen.clgen import CLGEN_GPUS, clgen_rows
from ridgeline.evaluation.regressors import evaluate_folds, evaluate_split, make_regressor
from ridgeline.predictors.gbm_regressor import GBMRegressor


class LaunchOnly(GBMRegressor):
    """Ablation: only global/local size and transfer bytes (no source, no Oclgrind)."""

    def fit(self, rows, progress=False):  # type: ignore[no-untyped-def]
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingRegressor

        y = np.log2(rows["time_us"].to_numpy(dtype=float))
        self.model_ = HistGradientBoostingRegressor(max_iter=self.max_iter,
                                                    random_state=self.random_state)
        self.model_.fit(self._x(rows), y)
        return self

    def predict_rows(self, rows, progress=False):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.exp2(self.model_.predict(self._x(rows)))

    @staticmethod
    def _x(rows):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.log2(rows[["global_size", "local_size", "transfer"]].to_numpy(dtype=float)
                       .clip(min=1))


def _make(kind: str, seed: int) -> Any:
    if kind == "launch":
        return LaunchOnly(random_state=seed)
    if kind == "gbm-l1":  # median of log time instead of its mean
        return GBMRegressor(loss="absolute_error", random_state=seed)
    if kind.startswith("gbm-q"):  # a lower quantile of log time: MAPE punishes over-estimates
        return GBMRegressor(loss="quantile", quantile=int(kind[5:]) / 100, random_state=seed)
    return make_regressor(kind, seed=seed)


def affine_floor(rows: Any) -> dict[str, Any]:
    """In-sample per-kernel affine fit (see the module text); kernels with fewer than four
    samples are left out."""
    import numpy as np
    from scipy.optimize import nnls

    from ridgeline.evaluation.metrics import regression

    y_all, p_all, kernels = [], [], 0
    for _, g in rows.groupby("kernel_file"):
        if len(g) < 4:
            continue
        kernels += 1
        gs = g["global_size"].to_numpy(dtype=float)
        x = np.c_[np.ones(len(g)), gs, np.ceil(gs / g["local_size"].to_numpy(dtype=float))]
        t = g["time_us"].to_numpy(dtype=float)
        coef, _ = nnls(x / t[:, None], np.ones(len(g)))
        y_all += t.tolist()
        p_all += (x @ coef).clip(min=1e-3).tolist()
    m = dict(regression(y_all, p_all))
    m["kernels"] = kernels
    return m


BANDS_US = ((0.0, 1.0), (1.0, 10.0), (10.0, 100.0), (100.0, float("inf")))


def by_band(rows: Any, model: Any, seed: int) -> dict[str, dict[str, float]]:
    """The held-out 10% of :func:`evaluate_split` (same split), scored by measured time band:
    where the error sits (launch-overhead-sized kernels or long ones)."""
    import numpy as np

    from ridgeline.evaluation.regressors import grouped_split

    _, te = grouped_split(rows["kernel_file"].tolist(), 0.1, seed)
    test = rows[te].reset_index(drop=True)
    t = test["time_us"].to_numpy(dtype=float)
    ape = np.abs(np.asarray(model.predict_rows(test, progress=False), dtype=float) - t) / t
    out = {}
    for lo, hi in BANDS_US:
        m = (t >= lo) & (t < hi)
        if m.any():
            out[f"{lo:g}-{hi:g} us"] = {"n": int(m.sum()), "mape": float(ape[m].mean()),
                                        "median_ape": float(np.median(ape[m]))}
    return out


def _first(rows: Any, n: int | None) -> Any:
    if not n:
        return rows
    keep = sorted(rows["kernel_file"].unique())[:n]
    return rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)


def _datasets(a: argparse.Namespace) -> list[tuple[str, Any]]:
    if a.pocl:
        from ridgeline.datagen.store import datagen_rows

        return [(f"PoCL ({a.pocl}, {a.pocl_time} of repeats)", datagen_rows(a.pocl, a.pocl_time))]
    return [(CLGEN_GPUS[w][1], clgen_rows(w)) for w in a.gpus.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="gbm,launch,llm")
    ap.add_argument("--seed", type=int, default=4839)
    ap.add_argument("--gpus", default="nvidia,amd")
    ap.add_argument("--pocl", default=None, metavar="DATAGEN_DIR")
    ap.add_argument("--pocl-time", choices=("median", "min"), default="median",
                    help="a datagen sample's time: the median of its repeats or the fastest")
    ap.add_argument("--folds", type=int, default=0, help="also k-fold (kernel-grouped)")
    ap.add_argument("--limit-kernels", type=int, default=None,
                    help="only the first N kernels (sorted by name), for CPU-bound LLM runs")
    ap.add_argument("--json", default=None, help="also write the results here")
    a = ap.parse_args()
    out: dict[str, Any] = {}
    for name, rows in _datasets(a):
        rows = _first(rows, a.limit_kernels)
        for kind in a.models.split(","):
            key = f"{name} / {kind}" + (f" (first {a.limit_kernels} kernels)"
                                        if a.limit_kernels else "")
            if kind == "affine-floor":
                out[key] = affine_floor(rows)
                print(json.dumps({key: out[key]}), flush=True)
                continue
            t = time.perf_counter()
            m, model = evaluate_split(rows, _make(kind, a.seed), a.seed, progress=False)
            m["fit_predict_s"] = time.perf_counter() - t
            m["by_time_band"] = by_band(rows, model, a.seed)
            out[key] = m
            print(json.dumps({key: m}), flush=True)
            if a.folds:
                m = evaluate_folds(rows, lambda kind=kind: _make(kind, a.seed), a.folds,
                                   a.seed)
                out[f"{key} / {a.folds}-fold"] = m
                print(json.dumps({f"{key} / {a.folds}-fold": m}), flush=True)
    text = json.dumps(out, indent=2)
    print(text)
    if a.json:
        Path(a.json).write_text(text + "\n")


if __name__ == "__main__":
    main()
