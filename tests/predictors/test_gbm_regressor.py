"""GBM time regressor and the regress-batch contract, on kernels written for the tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ridgeline.errors import NotFittedError
from ridgeline.predictors import PREDICTORS
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require
from tests.opencl.kernels import MATMUL, SAXPY, STENCIL, VADD

COST = {VADD: 1.0, SAXPY: 1.5, STENCIL: 2.5}


def _rows() -> pd.DataFrame:
    rows = []
    for src, cost in COST.items():
        for g in (1024, 4096, 16384, 65536, 262144):
            for loc in (64, 256):
                t = 5.0 + cost * g / 1000.0 * (1.2 if loc == 64 else 1.0)
                rows.append({"src": src, "global_size": g, "local_size": loc,
                             "transfer": 8 * g, "time_us": t, "kernel_file": str(cost)})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")  # Oclgrind profiles shared by this module


@pytest.fixture
def _env(_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("oclgrind with plugin headers", oclgrind_available())
    require("libclang", "clang")
    monkeypatch.setenv("RIDGELINE_CACHE", str(_cache_dir))


def test_registered_and_not_fitted() -> None:
    from ridgeline.predictors.gbm_regressor import GBMRegressor

    assert PREDICTORS.get("gbm-regressor") is GBMRegressor
    with pytest.raises(NotFittedError):
        GBMRegressor().predict_rows(_rows())


@pytest.mark.usefixtures("_env")
def test_fit_predict_save_load(tmp_path: Path) -> None:
    from ridgeline.predictors.gbm_regressor import GBMRegressor, featurize

    rows = _rows()
    feats = featurize(rows.head(1))
    assert feats.loc[0, "profile_ok"] == 1.0
    assert feats.loc[0, "og.flops_sp"] == pytest.approx(np.log2(1 + 1024))  # one add per item
    m = GBMRegressor(max_iter=200, min_samples_leaf=2, random_state=0).fit(rows)
    pred = m.predict_rows(rows)
    ratio = pred / rows["time_us"].to_numpy()
    assert np.all((ratio > 0.5) & (ratio < 2.0))
    m.save(tmp_path / "m")
    again = GBMRegressor.load(tmp_path / "m")
    assert np.allclose(again.predict_rows(rows), pred)


@pytest.mark.usefixtures("_env")
def test_regress_batch_contract(tmp_path: Path) -> None:
    import json

    from ridgeline.cli._app import main
    from ridgeline.predictors.gbm_regressor import GBMRegressor
    from ridgeline.workflows.regressors import predict_batch

    model = GBMRegressor(max_iter=100, min_samples_leaf=2).fit(_rows())
    model.save(tmp_path / "model")
    (tmp_path / "model" / "meta.json").write_text(json.dumps({"model": "gbm"}))
    batch = pd.DataFrame([
        {"src": VADD, "wgsize": "64", "transfer": "98304", "dataset": "4096"},
        {"src": VADD, "wgsize": "64", "transfer": "98304", "dataset": "large"},  # 4096 items
        {"src": "", "wgsize": "64", "transfer": "1", "dataset": "1"},
        {"src": MATMUL, "wgsize": "abc", "transfer": "1", "dataset": "1"},
        {"src": SAXPY, "wgsize": "64", "transfer": "", "dataset": "huge"},
        {"src": VADD.replace(";", "", 1), "wgsize": "64", "transfer": "98304",
         "dataset": "4096"},  # a syntax error: an error, not a prediction
    ])
    out = predict_batch(model, batch)
    assert list(out.columns) == [*batch.columns, "pred_runtime_ms", "error", "counts_note",
                                 "includes"]
    assert out.loc[0, "includes"].startswith("as the model's training target: ")
    assert out.loc[0, "error"] == "" and out.loc[1, "error"] == ""
    assert "Oclgrind counts" in out.loc[0, "counts_note"] and out.loc[2, "counts_note"] == ""
    assert out.loc[0, "pred_runtime_ms"] == pytest.approx(out.loc[1, "pred_runtime_ms"])
    assert "empty" in out.loc[2, "error"] and "wgsize" in out.loc[3, "error"]
    assert "cannot be inferred" in out.loc[4, "error"] and out.loc[4, "pred_runtime_ms"] == ""
    assert "does not compile" in out.loc[5, "error"] and out.loc[5, "pred_runtime_ms"] == ""
    csv = tmp_path / "rows.csv"
    batch.to_csv(csv, index=False)
    rc = main(["regress-batch", str(csv), "--model", str(tmp_path / "model"),
               "--out", str(tmp_path / "out.csv")])
    assert rc == 0
    got = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    assert len(got) == 6 and (got["error"] == "").sum() == 2


@pytest.mark.usefixtures("_env")
def test_regress_batch_kernel_column_picks_a_kernel_of_a_program(tmp_path: Path) -> None:
    """A suite program's text holds several kernels: ``kernel`` names the launched one, and
    its row predicts as that kernel's text alone, named, would; an unknown name is that row's error,
    listing the kernels there are."""
    from ridgeline.predictors.gbm_regressor import GBMRegressor
    from ridgeline.workflows.regressors import predict_batch

    model = GBMRegressor(max_iter=100, min_samples_leaf=2).fit(_rows())
    program = VADD + STENCIL
    launch = {"wgsize": "64", "transfer": "98304", "dataset": "4096"}
    batch = pd.DataFrame([{"src": STENCIL, "kernel": "stencil", **launch},
                          {"src": program, "kernel": "stencil", **launch},
                          {"src": program, "kernel": "", **launch},  # the first: vadd
                          {"src": VADD, **launch},
                          {"src": program, "kernel": "nope", **launch}])
    batch["kernel"] = batch["kernel"].fillna("")
    out = predict_batch(model, batch)
    assert list(out["error"][:4]) == ["", "", "", ""]
    p = out["pred_runtime_ms"]
    assert p[1] == pytest.approx(p[0]) and p[2] == pytest.approx(p[3]) and p[1] != p[2]
    assert "nope" in out.loc[4, "error"] and "vadd" in out.loc[4, "error"]
    assert "stencil" in out.loc[4, "error"] and out.loc[4, "pred_runtime_ms"] == ""
