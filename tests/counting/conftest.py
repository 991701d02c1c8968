"""Helpers for the counting tests: the toolchain is required (skips locally, fails in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require

PROGRAMS = Path(__file__).parent / "programs"


def _toolchain_ok() -> bool:
    from ridgeline.counting.toolchain import find_toolchain
    from ridgeline.errors import MissingDependencyError

    try:
        find_toolchain()
    except MissingDependencyError:
        return False
    return True


def _libomp_ok() -> bool:
    return any(Path(f"/usr/lib/llvm-{v}/lib/libomp.so").exists() for v in (15, 16, 17, 18, 19))


@pytest.fixture(scope="session")
def toolchain() -> None:
    require("clang/opt (LLVM >= 15)", _toolchain_ok())


@pytest.fixture(scope="session")
def libomp(toolchain: None) -> None:
    require("LLVM libomp (libomp-15-dev)", _libomp_ok())


@pytest.fixture(scope="session")
def programs() -> Path:
    return PROGRAMS
