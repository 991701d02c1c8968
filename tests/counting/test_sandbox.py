"""The sandbox of count-run (ridgeline.sandbox): real misbehaving programs, compiled and run
through it, each stopped or refused with its reason, within its limit, leaving nothing
behind. What both isolations promise (a scrubbed environment, no process left, the process,
memory, CPU and time limits) is checked under bwrap and under the fallback
(``RIDGELINE_SANDBOX=none``); what only bwrap gives (filesystem and network) under bwrap.
The file passes whatever ``$RIDGELINE_SANDBOX`` says."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from ridgeline import sandbox
from ridgeline.counting.runner import RunResult, classify_failure, run_limited
from ridgeline.errors import MissingDependencyError, UsageError
from ridgeline.sandbox import Limits
from tests.conftest import require
from tests.counting.conftest import PROGRAMS

pytestmark = pytest.mark.slow
#: seconds a stopped run may take beyond its limit
GRACE = 2.0
log = logging.getLogger(__name__)


@pytest.fixture(scope="module")
def bwrap() -> None:
    require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)


@pytest.fixture(params=["bwrap", "none"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each isolation in turn: bubblewrap, and the fallback without it."""
    if request.param == "bwrap":
        require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)
    return str(request.param)


@pytest.fixture(scope="module")
def misbehave(toolchain: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """misbehave.c built by clang through the sandbox (the build's path)."""
    from ridgeline.counting.toolchain import find_toolchain

    out = tmp_path_factory.mktemp("build")
    res = sandbox.run([find_toolchain().clang, "-O1", str(PROGRAMS / "misbehave" /
                                                          "misbehave.c"), "-o", "misbehave"],
                      cwd=out, limits=Limits(seconds=120), readable=[PROGRAMS / "misbehave"],
                      writable=[out], unprivileged=False)
    assert res.returncode == 0, res.stderr
    return out / "misbehave"


@pytest.fixture()
def box(tmp_path: Path, misbehave: Path) -> dict:
    """A program folder (the working directory) and a work folder, as count-run has."""
    prog, work = tmp_path / "prog", tmp_path / "work"
    prog.mkdir()
    work.mkdir()
    (prog / "input.txt").write_text("input data\n")
    shutil.copy(misbehave, work / "misbehave")
    return {"prog": prog, "work": work, "exe": work / "misbehave"}


def _run(box: dict, *args: str, mode: str = "bwrap", seconds: float = 20.0,
         **limits: int) -> sandbox.Outcome:
    lim = Limits(seconds=seconds, **limits)
    return sandbox.run([str(box["exe"]), *args], cwd=box["prog"], limits=lim,
                       writable=[box["work"]], cwd_overlay=box["work"] / "cwd", mode=mode)


def _alive(marker: str) -> list[int]:
    """Processes whose command line holds *marker*."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    out.append(int(pid))
        except OSError:
            continue
    return out


def test_writes_outside_the_work_folder_fail_and_leave_nothing(box: dict, tmp_path: Path,
                                                                bwrap: None) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    for target in (outside / "x.txt", box["prog"] / "input.txt", Path.cwd() / "escaped.txt"):
        res = _run(box, "write", str(target))
        assert "write=failed" in res.stdout, (target, res.stdout)
        assert res.returncode == 1
    assert not (outside / "x.txt").exists()
    assert (box["prog"] / "input.txt").read_text() == "input data\n"
    assert not (Path.cwd() / "escaped.txt").exists()
    # its inputs read as before; what it writes in its folder lands in the work folder
    assert "read=input data" in _run(box, "read", "input.txt").stdout
    assert "write=ok" in _run(box, "write", "result.txt").stdout
    assert "write=ok" in _run(box, "write", str(box["prog"] / "x.txt")).stdout
    for name in ("result.txt", "x.txt"):
        assert (box["work"] / "cwd" / name).read_text() == "escaped\n"
    assert sorted(p.name for p in box["prog"].iterdir()) == ["input.txt"]


def test_a_work_folder_inside_the_program_folder_stays_writable(box: dict, bwrap: None
                                                                  ) -> None:
    work = box["prog"] / ".work"
    work.mkdir()
    shutil.copy(box["exe"], work / "misbehave")
    res = sandbox.run([str(work / "misbehave"), "write", str(work / "counts.jsonl")],
                      cwd=box["prog"], limits=Limits(seconds=20), writable=[work],
                      cwd_overlay=work / "cwd", mode="bwrap")
    assert "write=ok" in res.stdout and (work / "counts.jsonl").exists()


def test_secrets_in_the_environment_are_out_of_reach(
        box: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.setenv("RL_L2_WAYS", "8")  # the runtime's own knobs still pass
    assert "env=(unset)" in _run(box, "env", "OPENAI_API_KEY", mode=mode).stdout
    assert "env=8" in _run(box, "env", "RL_L2_WAYS", mode=mode).stdout
    # HOME is the private /tmp (bwrap) or the work folder (fallback), never the user's
    seen = _run(box, "env", "HOME", mode=mode).stdout
    assert seen == ("env=/tmp\n" if mode == "bwrap" else f"env={box['work'].resolve()}\n")


def test_secrets_in_home_are_out_of_reach(box: dict, tmp_path: Path, bwrap: None,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\ttoken = hunter2\n")
    monkeypatch.setenv("HOME", str(home))
    res = _run(box, "read", str(home / ".gitconfig"))
    assert "read=failed" in res.stdout and "hunter2" not in res.stdout


def test_no_network_not_even_loopback(box: dict, bwrap: None) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        res = _run(box, "connect", str(server.getsockname()[1]))
        assert "connect=failed" in res.stdout, res.stdout
        with pytest.raises(BlockingIOError):
            server.accept()


def test_detached_children_end_with_the_run(box: dict, mode: str) -> None:
    marker = f"detach-{uuid.uuid4().hex[:8]}"
    t0 = time.monotonic()
    res = _run(box, "detach", "8", marker, mode=mode)
    assert "detached=8" in res.stdout and res.returncode == 0
    assert time.monotonic() - t0 < 5
    assert _alive(marker) == []


def test_a_fork_bomb_meets_the_process_limit(box: dict, mode: str) -> None:
    marker = f"bomb-{uuid.uuid4().hex[:8]}"
    res = _run(box, "forkbomb", marker, processes=64, mode=mode)
    assert "fork=failed" in res.stdout and "Resource temporarily unavailable" in res.stdout
    forked = int(res.stdout.split("after ")[1].split(":")[0])
    assert 32 <= forked < 64
    assert res.returncode == 3 and not res.timed_out and res.seconds < 10
    assert _alive(marker) == []
    err = classify_failure("bomb", _as_run_result(res), 20, 1)
    assert err.cause == "crash" and "process limit" in err.detail


def test_a_real_fork_bomb_is_held_at_the_process_limit_and_ended(box: dict, mode: str
                                                                   ) -> None:
    """Every process forks on and on: their number stays within the process limit (as root
    too: the fallback runs the program as a uid of its own, which the limit binds) until the
    time limit ends them all."""
    if os.geteuid() == 0:  # as root, the bomb may only run where the limit binds
        uid = _run(box, "uid", mode=mode).stdout
        assert uid.startswith("uid=") and uid != "uid=0\n", uid
    marker = f"bomb-{uuid.uuid4().hex[:8]}"
    peak = [0]
    watching = threading.Event()

    def watch() -> None:
        while not watching.is_set():
            peak[0] = max(peak[0], len(_alive(marker)))
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    t0 = time.monotonic()
    try:
        res = _run(box, "bomb", marker, processes=32, seconds=3, mode=mode)
    finally:
        watching.set()
        watcher.join()
    assert res.timed_out and time.monotonic() - t0 < 3 + GRACE
    assert 2 <= peak[0] <= 32 + 2, peak  # (+2: bwrap's two processes carry the marker too)
    assert _alive(marker) == []


def test_memory_beyond_the_limit_is_refused(box: dict, mode: str) -> None:
    res = _run(box, "alloc", memory_bytes=1 << 30, mode=mode)
    assert res.returncode == 2 and "cannot allocate memory" in res.stderr
    err = classify_failure("alloc", _as_run_result(res), 20, 1)
    assert err.cause == "memory" and "an allocation was refused" in str(err)


def test_touching_more_than_the_resident_budget_stops_the_tree(box: dict, mode: str) -> None:
    """No address-space limit: the memory the program touches (1 GiB of written pages and
    more) is what stops it, within a second or two, with the figures named."""
    t0 = time.monotonic()
    res = _run(box, "alloc", resident_bytes=1 << 30, mode=mode)
    assert res.over_memory is not None and not res.timed_out, res.stderr
    assert "more than the 1 GiB budget" in res.over_memory
    touched = float(res.over_memory.split("touched ")[1].split(" GiB")[0])
    assert 1.0 <= touched < 4.0  # polled: caught soon after it passed the budget
    assert time.monotonic() - t0 < 10 and "allocated=" not in res.stdout
    err = classify_failure("alloc", _as_run_result(res), 20, 1)
    assert err.cause == "memory" and err.detail == res.over_memory


def test_a_hang_with_detached_children_is_killed_at_its_limit(box: dict, mode: str) -> None:
    marker = f"hang-{uuid.uuid4().hex[:8]}"
    t0 = time.monotonic()
    res = _run(box, "hang", "4", marker, seconds=3, mode=mode)
    assert res.timed_out and 3 <= res.seconds < 3 + GRACE
    assert time.monotonic() - t0 < 3 + GRACE
    assert _alive(marker) == []
    assert classify_failure("hang", _as_run_result(res), 3, 1).cause == "timeout"


def test_the_cpu_limit_stops_a_spinning_program(box: dict, mode: str) -> None:
    res = _run(box, "hang", seconds=20, cpu_seconds=1, mode=mode)
    assert res.returncode == -signal.SIGXCPU and not res.timed_out and res.seconds < 10
    assert classify_failure("spin", _as_run_result(res), 20, 1).cause == "timeout"


def test_the_fallback_kills_the_whole_tree(box: dict, caplog: pytest.LogCaptureFixture
                                           ) -> None:
    """Without bwrap: its own session, killed as a group at the limit, and the children
    that left it with setsid found by the run's token in their environment."""
    sandbox._warn_once.cache_clear()
    marker = f"fallback-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.WARNING, logger="ridgeline.sandbox"):
        res = _run(box, "detach", "4", marker, mode="none")
        assert res.isolation == "none" and "detached=4" in res.stdout
        assert _alive(marker) == []
        t0 = time.monotonic()
        res = _run(box, "hang", "4", marker, mode="none", seconds=2)
        assert res.timed_out and time.monotonic() - t0 < 2 + GRACE
        assert _alive(marker) == []
    warned = [r for r in caplog.records if "WITHOUT filesystem" in r.getMessage()]
    assert len(warned) == 1 and "RIDGELINE_SANDBOX=none" in warned[0].getMessage()


def test_the_mode_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sandbox.ENV_VAR, "docker")
    with pytest.raises(UsageError, match=r"'docker' \(\$RIDGELINE_SANDBOX\): one of auto"):
        sandbox.isolation()
    monkeypatch.setenv(sandbox.ENV_VAR, "none")
    assert sandbox.isolation() == "none"


def test_a_required_sandbox_that_cannot_start_is_an_error(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """bwrap missing from PATH (as on a machine without it): required, an error naming the
    install; automatic, the fallback with one warning naming why."""
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox.bwrap_problem.cache_clear()
    sandbox._warn_once.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"bwrap, prlimit.* not found"):
            sandbox.isolation("bwrap")
        with caplog.at_level(logging.WARNING, logger="ridgeline.sandbox"):
            assert sandbox.isolation("auto") == sandbox.isolation("auto") == "none"
        (warned,) = caplog.records
        assert "bubblewrap cannot start" in warned.getMessage()
        assert "not found on PATH" in warned.getMessage()
    finally:
        sandbox.bwrap_problem.cache_clear()


def test_run_limited_records_the_isolation_and_stops_when_idle(
        box: dict, bwrap: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    out = box["work"] / "counts.jsonl"
    out.write_text('{"kernel": "k"}\n')
    res = run_limited(box["exe"], ["hang"], box["prog"], {"RL_OUT": str(out)}, timeout=20,
                      memory_gb=1, idle_stop=1.0)
    assert res.isolation == "bwrap" and res.idle_stopped and not res.timed_out
    assert res.seconds < 1 + GRACE


def test_count_run_sandboxes_the_build_and_the_run(
        toolchain: None, bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real entry point: the launch is counted; the key, the home and the folder
    outside stay untouched; the detached child is gone."""
    from ridgeline.counting import count_run

    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret").write_text("hunter2\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    prog = tmp_path / "escape-cuda"
    shutil.copytree(PROGRAMS / "escape-cuda", prog)
    outside, marker = tmp_path / "outside.txt", f"escape-{uuid.uuid4().hex[:8]}"
    recs = count_run(prog, [str(outside), str(home / "secret"), marker], code_size=False,
                     timeout=60, workdir=tmp_path / "work")
    assert [r.kernel for r in recs] == ["scale"]
    assert getattr(recs, "isolation", None) == "bwrap"
    assert recs[0].flops_sp == 1024
    assert not outside.exists()
    assert sorted(p.name for p in prog.iterdir()) == ["main.cu"]
    assert _alive(marker) == []
    (out,) = (tmp_path / "work").glob("*/cwd/output.txt")
    assert out.read_text() == "result\n"
    # the work folder the run wrote in serves the next build
    again = count_run(prog, [str(outside), str(home / "secret"), marker], code_size=False,
                      timeout=60, workdir=tmp_path / "work")
    assert [r.flops_sp for r in again] == [1024]


def _as_run_result(res: sandbox.Outcome) -> RunResult:
    return RunResult(res.returncode, res.seconds, res.stdout, res.stderr, res.timed_out,
                     res.stopped is not None, res.isolation, res.over_memory)


def test_count_run_ends_a_hanging_program_and_its_children_at_the_limit(
        toolchain: None, bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported case: a program that detached children and hung ran 39.7 s against a
    15 s limit. Its counted launch stands, marked as stopped by the time limit."""
    from ridgeline.counting import count_run

    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    prog = tmp_path / "escape-cuda"
    shutil.copytree(PROGRAMS / "escape-cuda", prog)
    marker = f"escape-{uuid.uuid4().hex[:8]}"
    args = [str(tmp_path / "o.txt"), str(tmp_path / "s.txt"), marker, "hang"]
    t0 = time.monotonic()
    recs = count_run(prog, args, code_size=False, timeout=4, workdir=tmp_path / "work")
    took = time.monotonic() - t0
    assert [r.kernel for r in recs] == ["scale"]
    assert (getattr(recs, "stopped", "") or "").startswith("timeout")
    assert _alive(marker) == []
    log.info("count_run with a 4 s limit took %.1f s (build included)", took)
    assert took < 4 + 60  # the build's share varies with the machine's load


def test_flag_dirs_are_the_existing_absolute_folders_the_flags_name(tmp_path: Path) -> None:
    from ridgeline.sandbox import flag_dirs

    header = tmp_path / "inc" / "h.h"
    header.parent.mkdir()
    header.write_text("")
    flags = [f"-I{tmp_path}", "-idirafter", str(header.parent), "-include", str(header),
             "-Irelative", f"-L{tmp_path / 'absent'}", "-O2"]
    assert flag_dirs(flags) == [tmp_path, header.parent, header.parent]
    assert flag_dirs([]) == []
