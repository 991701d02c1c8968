"""Every registered predictor passes the same checks of the interface, as every scikit-learn
estimator passes its estimator checks: its registered name is its ``name``; ``predict``
returns a :class:`Prediction` of that kernel on that GPU; ``predict_frame`` gives what a loop
of ``predict`` gives (the learned predictor and the time regressors override it with a batch
path; numbers within float32 rounding); a predictor that must be fitted raises
``NotFittedError`` before ``fit``.

Each predictor runs for real on kernels it is made for: the learned and analytic ones on the
shipped CUDA samples, the time regressors fitted on small OpenCL kernels (Oclgrind counts;
a tiny local transformer as the LLM regressor's backbone), the LLM classifier against the
embedded model (slow)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ridgeline.errors import NotFittedError
from ridgeline.hardware import Counts, Label, get_gpu
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors import Prediction, Predictor, Query, load_predictors
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require
from tests.llm.conftest import embedded_server  # noqa: F401 - the slow LLM case's server
from tests.opencl.kernels import SAXPY, STENCIL, VADD
from tests.predictors.test_llm_regressor import tiny_model  # noqa: F401 - its backbone


def _sample(name: str) -> Path:
    return Path(str(resources.files("ridgeline").joinpath(f"data/samples/{name}")))


def _cuda_queries() -> list[Query]:
    saxpy = KernelRef("saxpy", (_sample("saxpy"),))
    poly = KernelRef("polyeval", (_sample("polyeval"),))
    return [
        (saxpy, Launch.parse(None, None, "16777216 10"), get_gpu("rtx3080")),
        (saxpy, Launch.parse(None, None, "16777216 10"), get_gpu("a100")),
        (saxpy, Launch.parse("(4096,1,1)", "(256,1,1)", "1048576 10"), get_gpu("a10")),
        (poly, Launch.parse(None, None, "1048576 64 16"), get_gpu("h100")),
    ]


def _opencl_rows() -> Any:
    import pandas as pd

    rows = [{"src": src, "global_size": g, "local_size": loc, "transfer": 8 * g,
             "time_us": 5.0 + cost * g / 1000.0, "kernel_file": str(cost)}
            for src, cost in ((VADD, 1.0), (SAXPY, 1.5), (STENCIL, 2.5))
            for g in (1024, 16384, 262144) for loc in (64, 256)]
    return pd.DataFrame(rows)


def _opencl_queries(folder: Path) -> list[Query]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vadd.cl").write_text(VADD)
    (folder / "saxpy.cl").write_text(SAXPY)
    vadd = KernelRef("vadd", (folder / "vadd.cl",), "opencl")
    saxpy = KernelRef("saxpy", (folder / "saxpy.cl",), "opencl")
    return [
        (vadd, Launch.parse("(64,1,1)", "(64,1,1)"), get_gpu("rtx3080")),
        (saxpy, Launch.parse("(1024,1,1)", "(256,1,1)"), get_gpu("a100")),
        (vadd, Launch.parse("(16,1,1)", "(128,1,1)"), get_gpu("a10")),
    ]


def _opencl_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("libclang", "clang")
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def learned_case() -> tuple[Predictor, list[Query]]:
    from ridgeline.predictors.learned import LearnedPredictor

    return LearnedPredictor(), _cuda_queries()


@pytest.fixture
def physical_case() -> tuple[Predictor, list[Query]]:
    from ridgeline.predictors.physical_predictor import PhysicalPredictor

    return PhysicalPredictor(), _cuda_queries()


@pytest.fixture
def analytic_case() -> tuple[Predictor, list[Query]]:
    from ridgeline.predictors.analytic import AnalyticPredictor

    return AnalyticPredictor(), _cuda_queries()


@pytest.fixture
def gbm_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Predictor, list[Query]]:
    from ridgeline.predictors.gbm_regressor import GBMRegressor

    _opencl_env(tmp_path, monkeypatch)
    require("oclgrind with plugin headers", oclgrind_available())
    model = GBMRegressor(max_iter=50, min_samples_leaf=2, random_state=0).fit(_opencl_rows())
    return model, _opencl_queries(tmp_path / "kernels")


@pytest.fixture
def llm_regressor_case(tiny_model: Path, tmp_path: Path,  # noqa: F811 - the imported fixture
                       monkeypatch: pytest.MonkeyPatch) -> tuple[Predictor, list[Query]]:
    from ridgeline.predictors.llm_regressor import LLMRegressor

    _opencl_env(tmp_path, monkeypatch)
    model = LLMRegressor(backbone=str(tiny_model), epochs=20, hidden=16, batch_size=8)
    return model.fit(_opencl_rows()), _opencl_queries(tmp_path / "kernels")


@pytest.fixture
def llm_case(embedded_server: Any,  # noqa: F811 - the imported fixture
             tmp_path: Path) -> Iterator[tuple[Predictor, list[Query]]]:
    from ridgeline.predictors.llm_classifier import LLMClassifier

    model = LLMClassifier("smollm2", embedded_server.base_url,
                          cache_path=str(tmp_path / "cache.sqlite"))
    yield model, _cuda_queries()[:2]


#: registered name -> the fixture giving a ready predictor and rows it is made for
CASES: dict[str, str] = {
    "learned": "learned_case",
    "analytic": "analytic_case",
    "physical": "physical_case",
    "gbm-regressor": "gbm_case",
    "llm-regressor": "llm_regressor_case",
    "llm": "llm_case",
}
SLOW = {"llm", "llm-regressor"}
NAMES = [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CASES]


def test_every_registered_predictor_has_a_case() -> None:
    reg = load_predictors()
    shipped = {n for n in reg.names() if reg.get(n).__module__.startswith("ridgeline.")}
    assert shipped == set(CASES), (
        "a registered predictor has no conformance case (or a case names a predictor that "
        "is gone): add a fixture giving it ready to predict, and a line in CASES (a "
        "predictor a test registers for itself is not counted)")


def _case(request: pytest.FixtureRequest, name: str) -> tuple[Predictor, list[Query]]:
    return request.getfixturevalue(CASES[name])


def _as_text(p: Prediction) -> str:
    return json.dumps(p.to_dict(), sort_keys=True, default=str)


#: how far a number predicted in a batch may be from the one predicted alone: the rounding of
#: a float32 matrix product, which depends on how many rows it holds (the LLM regressor's head)
REL_TOL = 1e-6


def _same(a: Any, b: Any) -> bool:
    """*a* equals *b*, numbers within :data:`REL_TOL` (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=REL_TOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _check_prediction(p: Any, name: str, kernel: KernelRef, gpu: Any) -> None:
    assert isinstance(p, Prediction), f"{name}: predict returned {type(p).__name__}"
    assert (p.predictor, p.kernel, p.gpu) == (name, kernel.name, gpu.name)
    assert isinstance(p.counts, Counts)
    assert p.time_s is None or (math.isfinite(p.time_s) and p.time_s > 0), p.time_s
    assert all(isinstance(v, Label) for v in p.labels.values())
    assert p.confidence is None or 0.0 <= p.confidence <= 1.0
    json.dumps(p.to_dict(), default=str)


@pytest.mark.parametrize("name", NAMES)
def test_name_is_the_registered_one(name: str) -> None:
    cls = load_predictors().get(name)
    assert issubclass(cls, Predictor)
    assert cls.name == name


@pytest.mark.parametrize("name", NAMES)
def test_predict_returns_a_prediction_of_that_kernel_on_that_gpu(
        name: str, request: pytest.FixtureRequest) -> None:
    predictor, queries = _case(request, name)
    for kernel, launch, gpu in queries:
        _check_prediction(predictor.predict(kernel, launch, gpu), name, kernel, gpu)


@pytest.mark.parametrize("name", NAMES)
def test_predict_frame_equals_a_loop_of_predict(name: str,
                                                request: pytest.FixtureRequest) -> None:
    predictor, queries = _case(request, name)
    frame = predictor.predict_frame(queries)
    loop = [predictor.predict(k, la, g) for k, la, g in queries]
    assert len(frame) == len(loop)
    for i, (f, one) in enumerate(zip(frame, loop, strict=True)):
        assert _same(f.to_dict(), one.to_dict()), (
            f"row {i}: predict_frame gave\n  {_as_text(f)}\npredict gave\n  {_as_text(one)}")
    first = predictor.predict_frame(iter(queries[:1]))  # any iterable
    assert len(first) == 1 and _same(first[0].to_dict(), loop[0].to_dict())
    assert predictor.predict_frame([]) == []


def _needs_fit(cls: type[Predictor]) -> bool:
    return callable(getattr(cls, "fit", None))


def _fitted_names() -> list[Any]:
    """The shipped predictors that need a fit (learned, analytic and llm predict as made)."""
    return [p for p in NAMES
            if _needs_fit(load_predictors().get(p if isinstance(p, str) else p.values[0]))]


def test_some_predictors_need_a_fit() -> None:
    assert _fitted_names(), "no shipped predictor has a fit: the check below tests nothing"


@pytest.mark.parametrize("name", _fitted_names())
def test_not_fitted_error_before_fit(name: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cls = load_predictors().get(name)
    _opencl_env(tmp_path, monkeypatch)
    query = _opencl_queries(tmp_path / "kernels")[0]
    fresh: Callable[[], Predictor] = cls
    with pytest.raises(NotFittedError):
        fresh().predict(*query)
    with pytest.raises(NotFittedError):
        fresh().predict_frame([query])
