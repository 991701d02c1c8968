"""Time prediction on CLgen's GTX 970 and HD 7970 runtime_gpu rows, kernel-grouped 90/10
(train on 900 kernels, predict the 100 held-out kernels): GBM (static + Oclgrind + launch
features), a launch-only GBM ablation (sizes and transfer bytes only), and the LLM regressor
(SmolLM2-135M frozen backbone, cached kernel embeddings, MLP head).

    RIDGELINE_DATA=../shared/data python benchmarks/regressor_clgen.py [--models gbm,launch,llm]
"""

from __future__ import annotations

import argparse
import json
import time

from ridgeline.datagen.clgen import CLGEN_GPUS, clgen_rows
from ridgeline.datagen.regression import evaluate_split, make_regressor
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="gbm,launch,llm")
    ap.add_argument("--seed", type=int, default=4839)
    ap.add_argument("--gpus", default="nvidia,amd")
    ap.add_argument("--limit-kernels", type=int, default=None,
                    help="only the first N kernels (sorted by name), for CPU-bound LLM runs")
    a = ap.parse_args()
    out = {}
    for which in a.gpus.split(","):
        rows = clgen_rows(which)
        if a.limit_kernels:
            keep = sorted(rows["kernel_file"].unique())[: a.limit_kernels]
            rows = rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)
        for kind in a.models.split(","):
            t = time.perf_counter()
            reg = LaunchOnly(random_state=a.seed) if kind == "launch" else make_regressor(
                kind, seed=a.seed)
            m, _ = evaluate_split(rows, reg, a.seed, progress=False)
            m["fit_predict_s"] = time.perf_counter() - t
            key = f"{CLGEN_GPUS[which][1]} / {kind}"
            if a.limit_kernels:
                key += f" (first {a.limit_kernels} kernels)"
            out[key] = m
            print(json.dumps({key: m}), flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
