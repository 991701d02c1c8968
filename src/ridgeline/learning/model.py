"""The estimator: per target, boosted trees over the feature frame
(:mod:`ridgeline.learning.columns`), learned as corrections of the analysed counts and over
the time bound, counts taken straight from CPU execution where a row has them, and its
export to numpy trees (what ships)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ridgeline.errors import NotFittedError, SchemaError, UsageError
from ridgeline.learning.columns import (
    FEATURES,
    TARGETS,
    TIME_ONLY_COLUMNS,
    roofline_log_ns,
    with_uncounted_copies,
)
from ridgeline.learning.counted_columns import has_counts
from ridgeline.learning.slow_bound import within_slow_bound
from ridgeline.learning.trees import (
    TreeEnsemble,
    average_ensembles,
    export_hgb,
    load_ensembles,
    save_ensembles,
)

__all__ = ["CountModel", "ExportedCountModel", "TIME_RANGE", "use_direct_counts",
           "use_slow_bound", "uses_direct_counts"]

#: targets taken straight from the counts where a row has them (CPU execution counts FLOPs
#: and integer operations and models DRAM against the GPU's L2); time stays learned. Taking
#: the counted integer ops too (rather than learning them from the counts) raised the paper-A
#: class on counted rows from 79% to 92% (paper-a set) and 87% to 91% (unseen GPU+program,
#: RTX 3080) under program-grouped CV.
DIRECT = {"flops_sp": "c_sp", "flops_dp": "c_dp", "flops_hp": "c_hp", "int_ops": "c_int",
          "dram_bytes": "c_dram"}
_USE_DIRECT = {"on": True}


_USE_SLOW_BOUND = {"on": True}


def use_slow_bound(on: bool) -> None:
    """Whether a time above the slow bound of its counts without a named reason is brought
    down to it (:func:`ridgeline.learning.slow_bound.within_slow_bound`; default on)."""
    _USE_SLOW_BOUND["on"] = on


def _slow_bounded(X: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    return within_slow_bound(X, df) if _USE_SLOW_BOUND["on"] else df.assign(time_capped=0.0)


def uses_direct_counts() -> bool:
    """Whether counted FLOPs/DRAM bytes replace the learned ones (:func:`use_direct_counts`)."""
    return _USE_DIRECT["on"]


def use_direct_counts(on: bool) -> None:
    """Whether counted FLOPs/DRAM bytes replace the learned ones where present (default on)."""
    _USE_DIRECT["on"] = on


#: FLOPs taken from the analysed source where every loop's trip count evaluated (program-
#: grouped CV on the paper-a set: SP FLOPs within 2x 27% -> 34%, class 68.2% -> 69.0%)
EXACT_SOURCE = {"flops_sp": "a_sp", "flops_dp": "a_dp", "flops_hp": "a_hp"}


def source_exact(X: pd.DataFrame) -> np.ndarray:
    """Rows whose analysed FLOPs stand as they are (no loop with an unknown trip count)."""
    if "unknown_loops" not in X:
        return np.zeros(len(X), bool)
    return X["unknown_loops"].to_numpy(float) == 0


def _with_direct(X: pd.DataFrame, out: dict[str, np.ndarray]) -> pd.DataFrame:
    df = pd.DataFrame(out, index=X.index)
    sure = source_exact(X)
    for t, c in EXACT_SOURCE.items():
        if c in X and sure.any():
            df.loc[sure, t] = _counts(X[c].to_numpy(float)[sure])
    if not _USE_DIRECT["on"] or "c_has" not in X:
        return df
    has = has_counts(X)
    for t, c in DIRECT.items():
        v = X[c].to_numpy(float)
        ok = has & np.isfinite(v)
        df.loc[ok, t] = _counts(v[ok])
    return df


def _within_roofline(X: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """*df* with every predicted time at least the roofline time of its own predicted counts
    (DRAM bytes / bandwidth, each precision's FLOPs / peak, integer ops / peak: the GPU columns
    of *X*, as in ``roof_t_ns``). Time and counts come from separate models; without this a
    row could be predicted to move its bytes faster than the GPU's bandwidth allows (1.4% of
    the HeCBench rows under program-grouped CV, 11.5% of those without CPU counts; floored,
    their median APE 74.7% -> 74.0%, all rows 39.8% -> 39.6%)."""
    with np.errstate(divide="ignore"):
        dram, sp, dp, int_ops = (np.log10(df[t].to_numpy(float))
                                 for t in ("dram_bytes", "flops_sp", "flops_dp", "int_ops"))
    roof_ns = 10.0 ** roofline_log_ns(dram, sp, dp, int_ops, X)
    return df.assign(time_ns=np.fmax(df["time_ns"].to_numpy(float), roof_ns))


#: count targets are learned as corrections of the analysed source counts (log10 residuals):
#: where the trees know little the analysed count stands. Program-grouped CV on the paper-a
#: set: 68.2% / MCC 0.368 against 62.8% / 0.269 for learning the counts outright.
OFFSETS = {"flops_sp": "a_sp", "flops_dp": "a_dp", "flops_hp": "a_hp", "int_ops": "a_int",
           "dram_bytes": "a_bytes"}


#: time is learned over half the log time bound, floored at 2 us (10**3.3 ns): program-
#: grouped 5-fold CV on the 3298 timed HeCBench rows, median APE 71.3% -> 63.5%, within 2x
#: 46.1% -> 50.6%, MAPE 274% -> 287% with the roofline bound; the full bound as offset gave
#: 63.2% / 51.3% but MAPE 395% (it trusts analysed counts that are far too high on some
#: programs). The latency bound of counted rows (LATENCY_COLUMNS) took it from 61.5% /
#: 53.7% to 52.9% / 58.9% (MAPE 276% -> 383%).
TIME_OFFSET_SHARE, TIME_FLOOR_LOG_NS = 0.5, 3.3
#: rows with CPU-execution counts learn time over their whole roofline bound instead
#: (``roof_t_ns``, floored the same way): from counted FLOPs, integer ops and DRAM bytes it is
#: a true lower bound (measured time under it by more than 2x on 0.9% of the 3035 counted
#: HeCBench rows; the latency bound, a heuristic, on 15%), so what is learned is how far a
#: kernel runs above its roofline. Program-grouped 5-fold CV, five-model mean, 3391 rows:
#: median APE 41.3% -> 39.5%, within 2x 66.5% -> 69.2% (seed 4839); 43.8% -> 41.9%,
#: 64.1% -> 67.6% (seed 7).
COUNTED_TIME_OFFSET = "roof_t_ns"


def _offset(X: pd.DataFrame, target: str) -> np.ndarray | float:
    if target == "time_ns":
        if "time_bound_ns" not in X:
            return 0.0
        b = np.nan_to_num(X["time_bound_ns"].to_numpy(float), nan=TIME_FLOOR_LOG_NS)
        share = np.full(len(X), TIME_OFFSET_SHARE)
        if COUNTED_TIME_OFFSET in X:
            roof = X[COUNTED_TIME_OFFSET].to_numpy(float)
            counted = has_counts(X) & np.isfinite(roof)
            b = np.where(counted, roof, b)
            share[counted] = 1.0
        return share * np.maximum(b, TIME_FLOOR_LOG_NS)
    col = OFFSETS.get(target)
    if col is None or col not in X:
        return 0.0
    return np.nan_to_num(X[col].to_numpy(float), nan=0.0)


def _counts(log1p: np.ndarray) -> np.ndarray:
    """Back from log10(1 + y); under one operation or byte is zero (not a fraction)."""
    v = 10.0 ** np.asarray(log1p, float) - 1.0
    return np.where(v < 1.0, 0.0, v)


#: boosted models averaged per target (each on its own random share of the training rows):
#: a single model's predictions for rows without CPU counts swung by several points of
#: paper-a accuracy from one refit to the next as counts elsewhere changed
BAGS = 5
BAG_SHARE = 0.8


#: time is fitted at this quantile of log time, not at its median (absolute error). On
#: programs it has not seen, the median fit lands high: under program-grouped 5-fold CV of
#: time over the 3391 timed HeCBench rows, the median log10(predicted / measured) is +0.032
#: (8% high) with the median fit and 0.001 at the 0.4 quantile, and median APE / within 2x /
#: MAPE go 35.8% / 73.3% / 93% -> 32.5% / 74.5% / 87% (fold seed 4839) and 37.4% / 71.6% /
#: 115% -> 35.7% / 73.0% / 99% (seed 7). 0.45: 34.4% / 74.2%, 36.3% / 73.1%; 0.35: 32.3% /
#: 73.2%, 33.9% / 73.4%; 0.25: 32.1% / 71.2%, 32.4% / 71.0% (lower quantiles trade rows
#: within 2x for median APE). The count targets keep the median fit.
TIME_QUANTILE = 0.4


class CountModel:
    """Per target on log10(1 + y), the mean of ``bags`` HistGradientBoostingRegressors, each
    fitted on a random ``bag_share`` of the training rows (all of them when ``bags`` is 1):
    the counts at their median, time at ``time_quantile``; with the rows' programs, also the
    time's range (``time_range_``, see :meth:`_time_range`). ``extra_features`` are columns
    the trees see besides FEATURES (for experiments such as ``benchmarks/time_ceiling.py
    --profiler``; a model with them cannot be exported as the shipped model)."""

    def __init__(self, max_iter: int = 200, learning_rate: float = 0.08,
                 max_leaf_nodes: int = 15, min_samples_leaf: int = 10,
                 random_state: int = 0, augment_uncounted: bool = True,
                 bags: int = BAGS, bag_share: float = BAG_SHARE,
                 time_quantile: float = TIME_QUANTILE,
                 extra_features: tuple[str, ...] = ()) -> None:
        if bags < 1 or not 0 < bag_share <= 1:
            raise UsageError(f"bags must be 1 or more and bag_share in (0, 1], got {bags} and "
                             f"{bag_share}")
        if not 0 < time_quantile < 1:
            raise UsageError(f"time_quantile must be in (0, 1), got {time_quantile}")
        self.time_quantile = time_quantile
        self.features = FEATURES + [c for c in extra_features if c not in FEATURES]
        self.bags, self.bag_share = bags, bag_share
        self.augment_uncounted = augment_uncounted
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def fit(self, X: pd.DataFrame, Y: pd.DataFrame, groups: Any = None) -> CountModel:
        """Fit every target on *X* (``features``) and *Y* (TARGETS). With *groups* (each row's
        program) the time's range is calibrated too (:meth:`_time_range`)."""
        feats = self.features
        missing = [c for c in feats if c not in X] + [t for t in TARGETS if t not in Y]
        if missing:
            raise SchemaError(f"training table lacks columns {missing}")
        if len(X) < 20:
            raise SchemaError(f"training table has {len(X)} rows; need at least 20")
        if groups is not None and len(groups) != len(X):
            raise SchemaError(f"{len(groups)} groups for {len(X)} training rows")
        n_own = len(X)
        counted = has_counts(X)
        if self.augment_uncounted:
            X, Y = with_uncounted_copies(X, Y)
        X_all = X[feats].to_numpy(float)
        # a column with no values at all (e.g. no counted rows) cannot be binned: constant
        X_all[:, np.isnan(X_all).all(axis=0)] = 0.0
        X_counts = X_all.copy()  # the count models never split on the time-only columns
        X_counts[:, [feats.index(c) for c in TIME_ONLY_COLUMNS if c in feats]] = 0.0
        self.models_: dict[str, Any] = {}
        self.time_range_: np.ndarray | None = None
        for t in TARGETS:
            Xn = X_all if t == "time_ns" else X_counts
            y = np.log10(1.0 + np.clip(Y[t].to_numpy(float), 0, None)) - _offset(X, t)
            ok = np.isfinite(y)
            if t == "time_ns":
                # time keeps the rows as they are: with the uncounted copies its counted
                # rows lost 5.7 points of median APE under program-grouped CV
                ok[n_own:] = False
            rows = np.flatnonzero(ok)
            self.models_[t] = self._members(t, Xn, y, rows, self.bags)
            if t == "time_ns" and groups is not None:
                self.time_range_ = self._time_range(Xn, y, rows, np.asarray(groups), counted)
        return self

    def _members(self, target: str, Xn: np.ndarray, y: np.ndarray, rows: np.ndarray,
                 bags: int) -> list[Any]:
        from sklearn.ensemble import HistGradientBoostingRegressor

        rng = np.random.default_rng(self.random_state)
        members = []
        for _ in range(bags):
            take = rows if bags == 1 else np.sort(rng.choice(
                rows, size=max(1, round(self.bag_share * len(rows))), replace=False))
            m = HistGradientBoostingRegressor(
                max_iter=self.max_iter, learning_rate=self.learning_rate,
                max_leaf_nodes=self.max_leaf_nodes, min_samples_leaf=self.min_samples_leaf,
                random_state=self.random_state,
                # absolute error in log space: robust to rows whose measured count is zero
                # where the source has operations (program-grouped CV: paper-a class
                # 68.2% / MCC 0.368 against 67.4% / 0.345; time median APE 0.85 / 38.7%
                # within 2x against 0.91 / 36.0% with squared error); time at a quantile
                # below the median (TIME_QUANTILE)
                **({"loss": "quantile", "quantile": self.time_quantile}
                   if target == "time_ns" else {"loss": "absolute_error"}),
            )
            members.append(m.fit(Xn[take], y[take]))
        return members

    def _time_range(self, Xn: np.ndarray, y: np.ndarray, rows: np.ndarray, groups: np.ndarray,
                    counted: np.ndarray) -> np.ndarray | None:
        """log10 factors (low, high) around a predicted time that hold the measured one in
        TIME_RANGE of cases, for rows with CPU counts and rows without: quantiles of the
        time model's errors on programs it did not see (RANGE_FOLDS program-grouped folds
        of the training rows, one model each). None with fewer programs than folds."""
        from sklearn.model_selection import GroupKFold

        g = groups[rows]
        if len(np.unique(g)) < RANGE_FOLDS:
            return None
        err = np.full(len(rows), np.nan)
        for tr, te in GroupKFold(RANGE_FOLDS).split(rows, groups=g):
            m = self._members("time_ns", Xn, y, rows[tr], 1)[0]
            err[te] = y[rows[te]] - m.predict(Xn[rows[te]])
        q = [(1.0 - TIME_RANGE) / 2.0, (1.0 + TIME_RANGE) / 2.0]
        out = []
        for sel in (counted[rows], ~counted[rows]):
            e = err[sel] if sel.sum() >= RANGE_MIN_ROWS else err
            lo, hi = np.quantile(e, q)
            out.append([min(lo, 0.0), max(hi, 0.0)])
        return np.array(out)

    def predict(self, X: pd.DataFrame) -> pd.DataFrame:
        if not hasattr(self, "models_"):
            raise NotFittedError("CountModel.predict called before fit")
        Xn = X[self.features].to_numpy(float)
        out = {t: _counts(np.mean([m.predict(Xn) for m in self.models_[t]], axis=0)
                          + _offset(X, t)) for t in TARGETS}
        return _with_time_range(
            X, _slow_bounded(X, _within_roofline(X, _with_direct(X, out))), self.time_range_)

    def export(self) -> ExportedCountModel:
        """The same model as numpy trees (no scikit-learn needed to predict)."""
        if not hasattr(self, "models_"):
            raise NotFittedError("CountModel.export called before fit")
        return ExportedCountModel(
            {t: average_ensembles([export_hgb(m) for m in ms]) for t, ms in self.models_.items()},
            self.features, self.time_range_)


#: the share of measured times a predicted time's range is to hold, and the program-grouped
#: folds of the training rows that calibrate it (rows with and without CPU counts apart, each
#: from at least RANGE_MIN_ROWS rows, else from all)
TIME_RANGE = 0.8
RANGE_FOLDS = 3
RANGE_MIN_ROWS = 30


def _with_time_range(X: pd.DataFrame, df: pd.DataFrame,
                     time_range: np.ndarray | None) -> pd.DataFrame:
    """*df* with ``time_lo_ns`` and ``time_hi_ns``: its time scaled by the model's range
    factors (row 0 for rows with CPU counts, row 1 for the others); NaN without a range."""
    if time_range is None:
        return df.assign(time_lo_ns=np.nan, time_hi_ns=np.nan)
    counted = has_counts(X)
    f = np.where(counted[:, None], time_range[0], time_range[1])
    t = df["time_ns"].to_numpy(float)
    return df.assign(time_lo_ns=t * 10.0 ** f[:, 0], time_hi_ns=t * 10.0 ** f[:, 1])


class ExportedCountModel:
    """A fitted CountModel as numpy tree arrays (what ships in ridgeline/models)."""

    def __init__(self, ensembles: dict[str, TreeEnsemble], features: list[str],
                 time_range: np.ndarray | None = None) -> None:
        self.ensembles, self.features, self.time_range = ensembles, features, time_range

    def predict(self, X: pd.DataFrame) -> pd.DataFrame:
        Xn = X[self.features].to_numpy(float)
        out = {t: _counts(self.ensembles[t].predict(Xn) + _offset(X, t)) for t in TARGETS}
        return _with_time_range(
            X, _slow_bounded(X, _within_roofline(X, _with_direct(X, out))), self.time_range)

    def to_bytes(self) -> bytes:
        extra = {} if self.time_range is None else {"time_range": self.time_range}
        return save_ensembles(self.ensembles, self.features, extra)

    @classmethod
    def from_bytes(cls, data: bytes) -> ExportedCountModel:
        ens, feats, extra = load_ensembles(data)
        missing = [t for t in TARGETS if t not in ens]
        if missing or feats != FEATURES:
            raise SchemaError(f"model file does not match this ridgeline version (targets "
                              f"missing {missing}, {len(feats)} features vs {len(FEATURES)}); "
                              "rebuild it with `ridgeline train`")
        return cls(ens, feats, extra.get("time_range"))
