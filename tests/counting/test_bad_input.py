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
        ("thrust-cuda", "unsupported", {}),
        ("thrustonly-cuda", "unsupported", {}),
        ("broken-cuda", "compile", {}),
    ],
)
def test_failure_causes(toolchain: None, programs: Path, program: str, cause: str,
                        kw: dict) -> None:
    with pytest.raises(ProgramRunError) as ei:
        count_run(programs / program, "", **kw)
    assert ei.value.cause == cause, str(ei.value)
    assert program in str(ei.value)
    if program == "thrustonly-cuda":  # ran (PASS) but its kernels are all Thrust's
        assert "Thrust algorithms run on the host" in str(ei.value)
        assert "PASS" in str(ei.value)


def test_a_link_error_is_reported_as_the_undefined_symbol(toolchain: None, libomp: None,
                                                           programs: Path) -> None:
    """lapack-omp calls dgesv_ (its Makefile links -llapack, the counting build does not);
    the rebuild that compiles its C as C++ (the Makefile's driver is clang++) fails on C
    that is not C++. The cause is the link and the first line names the symbol."""
    with pytest.raises(ProgramRunError) as ei:
        count_run(programs / "lapack-omp", "")
    assert ei.value.cause == "link", str(ei.value)
    first = ei.value.detail.splitlines()[0]
    assert first.startswith("link failed") and "undefined reference to `dgesv_'" in first
    assert "cannot initialize" not in str(ei.value)


def test_a_run_for_one_kernel_stops_once_it_is_counted(
        toolchain: None, programs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """idletail-cuda launches fill, then does two minutes of host work: counting fill (as
    predict --count auto does) ends with its launch, not at the time limit."""
    import json
    import time

    from ridgeline.cli import main

    t0 = time.monotonic()
    recs = count_run(programs / "idletail-cuda", "", kernel="fill", launches=1, timeout=90)
    assert [r.kernel for r in recs] == ["fill"] and recs.stopped is None
    assert time.monotonic() - t0 < 45
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    t0 = time.monotonic()
    assert main(["predict", str(programs / "idletail-cuda"), "--kernel", "fill", "--gpu",
                 "rtx3080", "--count", "auto", "--json"]) == 0
    (pred,) = json.loads(capsys.readouterr().out)
    assert "counted" in pred["origin"]["flops"] and time.monotonic() - t0 < 45


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
    assert recs.stopped is not None
    assert recs.stopped.startswith("crash: partial, 1 launch counted; killed by SIGABRT")
    assert recs[0].run_stopped == recs.stopped


def test_stopping_a_run_after_its_launches_is_not_a_failure_but_a_timeout_is(
        toolchain: None, programs: Path) -> None:
    # idle_stop ends the program once no launch has come for a second: on purpose
    recs = count_run(programs / "idletail-cuda", "", idle_stop=1.0, timeout=60)
    assert [r.kernel for r in recs] == ["fill"] and recs.stopped is None
    # the time limit ending it is a failure, though the launch before it is kept
    recs = count_run(programs / "idletail-cuda", "", timeout=5)
    assert [r.kernel for r in recs] == ["fill"]
    assert recs.stopped == "timeout: partial, 1 launch counted; still running after 5 s"
    assert recs[0].run_stopped == recs.stopped


def _processes_running(fragment: str) -> list[int]:
    """Pids of built programs (``.../build/prog``) whose path contains *fragment* (not the
    compiler commands that name the same folder)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                exe = (d / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            except OSError:
                continue
            if fragment in exe and exe.endswith("/build/prog"):
                pids.append(int(d.name))
    return pids


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_program_dies_with_a_killed_count_run(toolchain: None, programs: Path, tmp_path: Path,
                                              sig: str) -> None:
    # the program runs in a session of its own (Ctrl-C does not reach it) and would spin
    # forever: killing the count-run that started it must not leave it behind
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    name = f"orphan{os.getpid()}{sig.lower()}-cuda"
    shutil.copytree(programs / "hang-cuda", tmp_path / name)
    cli = subprocess.Popen([sys.executable, "-m", "ridgeline", "count-run", str(tmp_path / name),
                            "--timeout", "300"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        t0 = time.monotonic()
        while not (running := _processes_running(f"rl-count-{name}-")):
            assert cli.poll() is None, "count-run ended before its program started"
            assert time.monotonic() - t0 < 120, "the program never started"
            time.sleep(0.2)
        cli.send_signal(getattr(signal, sig))
        cli.wait(timeout=30)
        t1 = time.monotonic()
        while _processes_running(f"rl-count-{name}-") and time.monotonic() - t1 < 10:
            time.sleep(0.2)
        left = _processes_running(f"rl-count-{name}-")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert not left, f"program left running after {sig} to count-run: {running}"
    finally:
        if cli.poll() is None:
            cli.kill()
