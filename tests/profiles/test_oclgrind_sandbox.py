"""profile_program runs the user's OpenCL host program in the sandbox (ridgeline.sandbox): a
real host program, built against the ICD loader, launches a kernel under Oclgrind and then
misbehaves. count_kernel runs Oclgrind on one kernel there too: its build sees the kernel's
own folder and its -I folders, not the user's files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ridgeline import sandbox
from ridgeline.errors import CompileError, ExecutionError
from ridgeline.profiles.oclgrind import (
    Buffer,
    count_kernel,
    oclgrind_available,
    profile_program,
)
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


def _kernel_including(header: Path) -> str:
    return (f'#include "{header}"\n'
            "__kernel void scale(__global float *a) {\n"
            "  a[get_global_id(0)] *= SCALE;\n}\n")


def test_a_kernel_build_reads_its_own_folder_not_the_users_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("oclgrind with liboclgrind-dev, llvm-14-dev, g++", oclgrind_available())
    require(f"bubblewrap ({sandbox.INSTALL})", sandbox.bwrap_problem() is None)
    monkeypatch.setenv(sandbox.ENV_VAR, "bwrap")
    home, folder, inc = tmp_path / "home", tmp_path / "kernel", tmp_path / "inc"
    for d in (home, folder, inc):
        d.mkdir()
    (home / "secret.h").write_text("#define SCALE 2.0f /* sk-ridgeline-test-secret */\n")
    (folder / "own.h").write_text("#define SCALE 2.0f\n")
    (inc / "given.h").write_text("#define SCALE 2.0f\n")
    args = [Buffer(64 * 4)]
    # a header beside the kernel, and one in a folder the build options name, are read
    (folder / "k.cl").write_text(_kernel_including(folder / "own.h"))
    assert count_kernel(folder / "k.cl", "scale", 64, 16, args).flops_sp == 64
    (folder / "k.cl").write_text('#include "given.h"\n' + _kernel_including(inc / "given.h")
                                 .split("\n", 1)[1])
    counts = count_kernel(folder / "k.cl", "scale", 64, 16, args, build_options=f"-I {inc}")
    assert counts.flops_sp == 64
    # a folder outside the kernel's (here under /tmp, private in the sandbox, as are the
    # homes) is not there: the include fails, and nothing of the file shows
    (folder / "k.cl").write_text(_kernel_including(home / "secret.h"))
    with pytest.raises(CompileError, match="did not build") as e:
        count_kernel(folder / "k.cl", "scale", 64, 16, args)
    assert "secret.h" in str(e.value) and "sk-ridgeline-test-secret" not in str(e.value)
    # the same kernel given as text builds in a private folder: the same refusal
    with pytest.raises(CompileError):
        count_kernel(_kernel_including(home / "secret.h"), "scale", 64, 16, args)


def test_a_kernel_that_never_ends_is_stopped_at_its_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    require("oclgrind with liboclgrind-dev, llvm-14-dev, g++", oclgrind_available())
    spin = ("__kernel void spin(__global int *a) {\n"
            "  for (;;) { a[0] += 1; barrier(CLK_GLOBAL_MEM_FENCE); }\n}\n")
    with pytest.raises(ExecutionError, match="did not finish under Oclgrind within 3"):
        count_kernel(spin, "spin", 1, 1, [Buffer(4, fill=0, ctype="int")], timeout=3)
