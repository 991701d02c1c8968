"""Shared fixtures. Optional components skip locally but fail in CI (CI=true)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
ROOT = Path(__file__).resolve().parent.parent


def require(component: str, available: bool | str) -> None:
    """Skip (locally) or fail (in CI) when *component* is missing.

    *available* is a bool, or a module name checked with importlib.
    """
    ok = importlib.util.find_spec(available) is not None if isinstance(available, str) else (
        bool(available)
    )
    if ok:
        return
    msg = f"{component} is not installed (scripts/test.sh installs it)"
    if IN_CI:
        pytest.fail(f"CI=true and {msg}", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared ground-truth folder ($RIDGELINE_DATA)."""
    env = os.environ.get("RIDGELINE_DATA")
    cand = Path(env) if env else ROOT.parent / "shared" / "data"
    require("the shared data folder ($RIDGELINE_DATA)", cand.is_dir())
    return cand


@pytest.fixture(scope="session")
def hecbench_src() -> Path:
    """HeCBench program sources (external/gpuFLOPBench/src), present on developer machines
    after scripts/fetch-hecbench; never in CI. Tests must not depend on it."""
    p = ROOT / "external" / "gpuFLOPBench" / "src"
    if not p.is_dir():
        pytest.skip("HeCBench sources are not fetched (benchmarks only)")
    return p
