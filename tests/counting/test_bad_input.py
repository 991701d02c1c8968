"""Programs that crash, hang, need files, exhaust memory or cannot be built: typed errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.counting import ProgramRunError, count_run
from ridgeline.errors import UsageError

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("program", "cause", "kw"),
    [
        ("crash-cuda", "crash", {}),
        ("hang-cuda", "timeout", {"timeout": 3}),
        ("needsfile-cuda", "missing-input", {}),
        ("hog-cuda", "memory", {"memory_gb": 1.0}),
        ("bigalloc-cuda", "memory", {"memory_gb": 1.0}),
        ("thrust-cuda", "unsupported", {}),
        ("broken-cuda", "compile", {}),
    ],
)
def test_failure_causes(toolchain: None, programs: Path, program: str, cause: str,
                        kw: dict) -> None:
    with pytest.raises(ProgramRunError) as ei:
        count_run(programs / program, "", **kw)
    assert ei.value.cause == cause, str(ei.value)
    assert program in str(ei.value)
    if program == "bigalloc-cuda":  # the refused size is named
        assert "allocation of 4096 MiB failed" in str(ei.value)


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        count_run(tmp_path / "absent", "")
    with pytest.raises(UsageError):
        count_run(tmp_path, "", launches=0)


def test_batch_continues_after_failures(toolchain: None, programs: Path) -> None:
    results = {}
    for prog in ("crash-cuda", "rescan-cuda"):
        try:
            results[prog] = count_run(programs / prog, "1000")
        except ProgramRunError as e:
            results[prog] = e.cause
    assert results["crash-cuda"] == "crash"
    assert len(results["rescan-cuda"]) == 1
    assert results["rescan-cuda"].stopped is None  # it ended normally


def test_a_program_that_dies_after_a_launch_keeps_it_and_says_why(
        toolchain: None, programs: Path) -> None:
    recs = count_run(programs / "crashlate-cuda", "")
    assert [r.kernel for r in recs] == ["fill"]
    assert recs[0].global_store_bytes == 4 * 1024
    # scale was never launched: the result says the program died, and how
    assert recs.stopped is not None and recs.stopped.startswith("crash: killed by SIGABRT")


def test_stopping_a_run_after_its_launches_is_not_a_failure_but_a_timeout_is(
        toolchain: None, programs: Path) -> None:
    # idle_stop ends the program once no launch has come for a second: on purpose
    recs = count_run(programs / "idletail-cuda", "", idle_stop=1.0, timeout=60)
    assert [r.kernel for r in recs] == ["fill"] and recs.stopped is None
    # the time limit ending it is a failure, though the launch before it is kept
    recs = count_run(programs / "idletail-cuda", "", timeout=5)
    assert [r.kernel for r in recs] == ["fill"]
    assert recs.stopped == "timeout: still running after 5 s"
