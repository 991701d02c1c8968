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
    from ridgeline.learning.count_cache import run_program_counts
    from ridgeline.learning.matching import record_for

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    caplog.set_level(logging.INFO, logger="ridgeline.counting")
    recs, cached = run_program_counts(PROGRAMS / "instances-cuda", "4096", ["int,"],
                                      ["GeForce RTX 3080"], 60.0)
    assert not cached
    assert not [r for r in caplog.records if "re-ran with every launch" in r.getMessage()]
    # the three instantiations, each counted
    assert sorted(r["variant"] for r in recs if r["kernel"] == "scale") == [0, 1, 2]
    assert all(r["flops_sp"] + r["flops_dp"] + r["int_ops"] > 0 for r in recs)
    # a name the sources do not have (the profiled build's) is not waited for either
    caplog.clear()
    run_program_counts(PROGRAMS / "instances-cuda", "4096", ["scale", "scale_v2"],
                       ["GeForce RTX 3080"], 60.0)
    assert not [r for r in caplog.records if "re-ran with every launch" in r.getMessage()]
    # a named kernel is still waited for, and found
    caplog.clear()
    named, _ = run_program_counts(PROGRAMS / "instances-cuda", "4096", ["scale"],
                                  ["GeForce RTX 3080"], 60.0)
    assert record_for(named, "scale", "cuda", "16,1,1", "256,1,1") is not None


def test_the_function_a_kernel_or_region_name_names() -> None:
    from ridgeline.learning.count_wait import expected_kernels, function_of

    assert function_of("_Z12BoxFilterGPUPjS_S_jjiff_l127") == "BoxFilterGPU"
    assert function_of("_ZN9OMPStreamIdE4copyEv_l105") == "OMPStream"
    assert function_of("Z13computeKerneliiPKfPKbiiPfPii_l105") == "computeKernel"
    assert function_of("main_l72") == "main"
    assert function_of("scale") == "scale"
    assert function_of("int,") == function_of("float>") == ""
    folder = PROGRAMS / "instances-cuda"
    assert expected_kernels(folder, ["scale"]) == ["scale"]
    assert expected_kernels(folder, ["scale", "int>"]) == []
    assert expected_kernels(folder, ["scale", "attention_scale"]) == []
    # a region's name end is the runtime's to match, not the sources'
    assert expected_kernels(folder, ["scale", "Pmmi_l117"]) == ["scale", "Pmmi_l117"]
