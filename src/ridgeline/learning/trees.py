"""Boosted-tree ensembles as plain numpy arrays: exported from scikit-learn's
HistGradientBoostingRegressor, evaluated without scikit-learn (fast start, no pickle, no
version coupling)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

__all__ = ["TreeEnsemble", "export_hgb", "average_ensembles", "save_ensembles",
           "load_ensembles"]


class TreeEnsemble:
    """Sum of regression trees plus a baseline; numerical splits only (x <= threshold goes
    left, NaN follows missing_go_to_left), as scikit-learn's HistGradientBoosting does."""

    def __init__(self, feature: np.ndarray, threshold: np.ndarray, left: np.ndarray,
                 right: np.ndarray, missing_left: np.ndarray, is_leaf: np.ndarray,
                 value: np.ndarray, roots: np.ndarray, baseline: float) -> None:
        self.feature, self.threshold = feature, threshold
        self.left, self.right, self.missing_left = left, right, missing_left
        self.is_leaf, self.value, self.roots, self.baseline = is_leaf, value, roots, baseline

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, float)
        n = X.shape[0]
        if n <= 16:
            return np.array([self._one(row) for row in X.tolist()], float)
        rows = np.arange(n)
        out = np.full(n, self.baseline, float)
        for root in self.roots:
            idx = np.full(n, root, np.int64)
            for _ in range(64):
                leaf = self.is_leaf[idx]
                if leaf.all():
                    break
                x = X[rows, self.feature[idx]]
                go_left = np.where(np.isnan(x), self.missing_left[idx], x <= self.threshold[idx])
                nxt = np.where(go_left, self.left[idx], self.right[idx])
                idx = np.where(leaf, idx, nxt)
            out += self.value[idx]
        return out

    def _one(self, x: list[float]) -> float:
        """One row in plain Python (much faster than numpy for a handful of rows)."""
        if not hasattr(self, "_lists"):
            self._lists = tuple(a.tolist() for a in (
                self.feature, self.threshold, self.left, self.right, self.missing_left,
                self.is_leaf, self.value))
        feat, thr, left, right, miss, leaf, value = self._lists
        total = self.baseline
        for root in self.roots.tolist():
            i = root
            while not leaf[i]:
                v = x[feat[i]]
                go_left = miss[i] if v != v else v <= thr[i]
                i = left[i] if go_left else right[i]
            total += value[i]
        return total

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}.{k}": np.asarray(getattr(self, k)) for k in
                ("feature", "threshold", "left", "right", "missing_left", "is_leaf", "value",
                 "roots")} | {f"{prefix}.baseline": np.asarray([self.baseline])}

    @classmethod
    def from_arrays(cls, arrs: Any, prefix: str) -> TreeEnsemble:
        g = {k: arrs[f"{prefix}.{k}"] for k in ("feature", "threshold", "left", "right",
                                                 "missing_left", "is_leaf", "value", "roots")}
        return cls(**g, baseline=float(arrs[f"{prefix}.baseline"][0]))


def export_hgb(model: Any) -> TreeEnsemble:
    """Flatten a fitted HistGradientBoostingRegressor (numerical features only)."""
    parts, roots, off = [], [], 0
    for per_iter in model._predictors:
        nodes = per_iter[0].nodes
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported by the export")
        parts.append((nodes, off))
        roots.append(off)
        off += len(nodes)
    cat = np.concatenate([p for p, _ in parts]) if parts else None
    shift = np.concatenate([np.full(len(p), o) for p, o in parts]) if parts else None
    assert cat is not None and shift is not None
    return TreeEnsemble(
        feature=cat["feature_idx"].astype(np.int64),
        threshold=cat["num_threshold"].astype(float),
        left=cat["left"].astype(np.int64) + shift,
        right=cat["right"].astype(np.int64) + shift,
        missing_left=cat["missing_go_to_left"].astype(bool),
        is_leaf=cat["is_leaf"].astype(bool),
        value=cat["value"].astype(float),
        roots=np.asarray(roots, np.int64),
        baseline=float(np.ravel(model._baseline_prediction)[0]),
    )


def average_ensembles(members: list[TreeEnsemble]) -> TreeEnsemble:
    """One ensemble predicting the mean of *members*' predictions: their trees side by side,
    leaf values and baselines divided by their number."""
    if not members:
        raise ValueError("no ensembles to average")
    k = len(members)
    offs = np.cumsum([0] + [len(m.value) for m in members[:-1]])
    cat = {name: np.concatenate([getattr(m, name) for m in members])
           for name in ("feature", "threshold", "missing_left", "is_leaf")}
    return TreeEnsemble(
        left=np.concatenate([m.left + o for m, o in zip(members, offs, strict=True)]),
        right=np.concatenate([m.right + o for m, o in zip(members, offs, strict=True)]),
        value=np.concatenate([m.value for m in members]) / k,
        roots=np.concatenate([m.roots + o for m, o in zip(members, offs, strict=True)]),
        baseline=float(np.mean([m.baseline for m in members])), **cat)


def save_ensembles(ens: dict[str, TreeEnsemble], features: list[str],
                   extra: dict[str, np.ndarray] | None = None) -> bytes:
    """*ens* and the feature names as one compressed npz; *extra* arrays ride along."""
    arrs: dict[str, np.ndarray] = {"features": np.asarray(features),
                                   "targets": np.asarray(list(ens))}
    for name, e in ens.items():
        arrs |= e.arrays(name)
    for name, a in (extra or {}).items():
        arrs[f"extra.{name}"] = np.asarray(a)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrs)  # type: ignore[arg-type]
    return buf.getvalue()


def load_ensembles(data: bytes) -> tuple[dict[str, TreeEnsemble], list[str],
                                         dict[str, np.ndarray]]:
    """What :func:`save_ensembles` wrote: ensembles, feature names, extra arrays."""
    arrs = np.load(io.BytesIO(data), allow_pickle=False)
    targets = [str(t) for t in arrs["targets"]]
    extra = {k[len("extra."):]: arrs[k] for k in arrs.files if k.startswith("extra.")}
    return ({t: TreeEnsemble.from_arrays(arrs, t) for t in targets},
            [str(f) for f in arrs["features"]], extra)
