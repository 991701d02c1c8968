"""profile_program runs the user's OpenCL host program in the sandbox (ridgeline.sandbox): a
real host program, built against the ICD loader, launches a kernel under Oclgrind and then
misbehaves."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ridgeline import sandbox
from ridgeline.errors import ExecutionError
from ridgeline.profiles.oclgrind import oclgrind_available, profile_program
from tests.conftest import require

HOST_C = Path(__file__).parent / "programs" / "misbehave_host" / "host.c"
SECRET = "sk-ridgeline-test-secret"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """host.c built with the system C compiler against libOpenCL."""
    require("oclgrind with liboclgrind-dev, llvm-14-dev, g++", oclgrind_available()
            and shutil.which("oclgrind") is not None)
    cc = shutil.which("cc")
    require("a C compiler and the OpenCL headers (CL/cl.h, libOpenCL)",
            cc is not None and Path("/usr/include/CL/cl.h").exists())
    assert cc is not None
    out = tmp_path_factory.mktemp("host") / "host"
    p = subprocess.run([cc, "-O1", str(HOST_C), "-o", str(out), "-lOpenCL"],
                       capture_output=True, text=True)
    require(f"host.c builds against libOpenCL: {p.stderr[-300:]}", p.returncode == 0)
    return out


@pytest.fixture()
def prog(tmp_path: Path, host: Path) -> Path:
    folder = tmp_path / "prog"
    folder.mkdir()
    shutil.copy(host, folder / "host")
    return folder


def test_host_program_writes_nowhere_outside_its_work_folder(
        prog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)
    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    outside = tmp_path / "outside.txt"
    recs = profile_program(prog, ["launch", str(outside)])
    assert [(r.kernel, r.flops_sp, r.global_size) for r in recs] == [("twice", 64, (64, 1, 1))]
    assert not outside.exists()
    assert sorted(p.name for p in prog.iterdir()) == ["host"]  # out.txt went to the work folder


@pytest.mark.parametrize("mode", ["auto", "none"])
def test_host_program_does_not_see_secrets_of_the_environment(
        prog: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv(sandbox.ENV_VAR, mode)
    monkeypatch.setenv("OCLGRIND_MAX_ERRORS", "5")  # Oclgrind's own settings still pass
    with pytest.raises(ExecutionError, match=r"exit 3") as e:
        profile_program(prog / "host", ["env"])
    assert "OPENAI_API_KEY=(absent)" in str(e.value) and SECRET not in str(e.value)
    assert "OCLGRIND_MAX_ERRORS=5" in str(e.value)


def test_a_host_program_that_hangs_is_ended(prog: Path) -> None:
    with pytest.raises(ExecutionError, match="did not finish under Oclgrind within 5"):
        profile_program(prog, ["hang"], timeout=5)


def test_count_run_of_an_opencl_program_goes_through_the_sandbox(
        prog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ridgeline.counting import ProgramRunError, count_run

    require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)
    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    outside = tmp_path / "outside.txt"
    (lc,) = count_run(prog, f"launch {outside}", backend="opencl")
    assert lc.kernel == "twice" and lc.flops_sp == 64
    assert not outside.exists() and sorted(p.name for p in prog.iterdir()) == ["host"]
    with pytest.raises(ProgramRunError) as ei:
        count_run(prog, "hang", backend="opencl", timeout=5)
    assert ei.value.cause == "timeout"
