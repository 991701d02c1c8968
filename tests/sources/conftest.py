from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require
from tests.sources.kernels_data import CUDA, OPENCL, OPENMP


@pytest.fixture(scope="session")
def clang() -> None:
    """Use in test modules of the front ends: ``pytestmark = pytest.mark.usefixtures("clang")``."""
    from ridgeline.sources import clang_available

    require("libclang with a clang resource folder", clang_available())


@pytest.fixture()
def cuda_file(tmp_path: Path) -> Path:
    p = tmp_path / "prog-cuda" / "main.cu"
    p.parent.mkdir()
    p.write_text(CUDA)
    return p


@pytest.fixture()
def omp_file(tmp_path: Path) -> Path:
    p = tmp_path / "prog-omp" / "main.cpp"
    p.parent.mkdir()
    p.write_text(OPENMP)
    return p


@pytest.fixture()
def cl_file(tmp_path: Path) -> Path:
    p = tmp_path / "k.cl"
    p.write_text(OPENCL)
    return p
