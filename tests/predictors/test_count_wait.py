"""A batch's counting run waits only for kernel names the runtime can recognise."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.conftest import require

PROGRAMS = Path(__file__).resolve().parent.parent / "counting" / "programs"


def _toolchain() -> None:
    from ridgeline.counting.toolchain import find_toolchain
    from ridgeline.errors import MissingDependencyError

    try:
        find_toolchain()
    except MissingDependencyError as e:
        require(f"clang/opt (LLVM >= 15): {e}", False)


def test_a_template_fragment_row_runs_the_program_once_to_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    """Rows named by a fragment of template arguments (``int,``) are matched on launch sizes;
    the run does not wait for that name (which no kernel has): before, the program ran to its
    end, then again with every launch executed (to the time limit on a long program)."""
    _toolchain()
    from ridgeline.predictors.counted import record_for, run_program_counts

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    caplog.set_level(logging.INFO, logger="ridgeline.counting")
    recs, cached = run_program_counts(PROGRAMS / "instances-cuda", "4096", ["int,"],
                                      ["GeForce RTX 3080"], 60.0)
    assert not cached
    assert not [r for r in caplog.records if "re-ran with every launch" in r.getMessage()]
    # the three instantiations, each counted
    assert sorted(r["variant"] for r in recs if r["kernel"] == "scale") == [0, 1, 2]
    assert all(r["flops_sp"] + r["flops_dp"] + r["int_ops"] > 0 for r in recs)
    # a named kernel is still waited for, and found
    caplog.clear()
    named, _ = run_program_counts(PROGRAMS / "instances-cuda", "4096", ["scale"],
                                  ["GeForce RTX 3080"], 60.0)
    assert record_for(named, "scale", "cuda", "16,1,1", "256,1,1") is not None
