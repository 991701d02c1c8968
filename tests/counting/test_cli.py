"""``ridgeline count-run`` prints one JSON object per counted launch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ridgeline.cli import main
from ridgeline.counting.records import LAUNCH_DRAM_FLOOR

pytestmark = pytest.mark.slow
KEYS = {"kernel", "flops_sp", "flops_dp", "flops_hp", "int_ops", "global_load_bytes",
        "global_store_bytes", "dram_bytes", "backend"}


def test_count_run_json(toolchain: None, programs: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "rescan-cuda"), "--args", "1000", "--gpu", "a10",
               "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1 and set(out[0]) >= KEYS
    assert out[0]["kernel"] == "rescan" and out[0]["backend"] == "cuda"
    assert out[0]["flops_sp"] == 2 * 125  # one add per sector, two passes
    # data read (the 32-byte result stays in the L2 past the launch: l2_exit_kept_mib), the
    # launch floor and the kernel's machine code (nvcc, 16 bytes per instruction), as the
    # A10's profiler counts them (1.15 bytes per byte: catalog dram_bytes_scale)
    assert out[0]["code_bytes"] > 0 and out[0]["code_bytes"] % 16 == 0
    assert out[0]["dram_bytes"] == pytest.approx(
        1.15 * (4000 + LAUNCH_DRAM_FLOOR["cuda"] + out[0]["code_bytes"]))


def test_count_run_table_says_what_the_compiled_kernel_changed(
        toolchain: None, programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "unrolled-cuda"), "--args", "4096", "--gpu",
               "rtx3080"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "machine code" in err and "registers in the compiled kernel" in err
    # the kernel writes: the table says the RTX 3080's L2 keeps some of that past the launch
    assert "leaves out up to 0.5 MiB of each launch's writes" in err
    assert main(["count-run", str(programs / "unrolled-cuda"), "--args", "4096", "--gpu",
                 "h100"]) == 0
    assert "keeps dirty past the launch" not in capsys.readouterr().err  # no such figure


def test_count_run_warns_when_the_program_died_after_some_launches(
        toolchain: None, programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "crashlate-cuda")])
    out = capsys.readouterr()
    assert rc == 0 and "fill" in out.out and "scale" not in out.out
    assert "warning: the program failed after 1 counted launch(es) (crash: partial, 1 " \
        "launch counted; killed by SIGABRT" in out.err
    assert "kernels it would have launched later are not counted" in out.err
    assert "status: crash: partial, 1 launch counted; killed by SIGABRT" in out.out


def test_count_run_cut_by_its_time_limit_says_its_counts_are_partial(
        toolchain: None, programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run the time limit ended keeps the launch it counted, and says beside it that the
    run is partial: in the table's status line and in each JSON record."""
    note = "timeout: partial, 1 launch counted; still running after 4 s"
    assert main(["count-run", str(programs / "idletail-cuda"), "--timeout", "4"]) == 0
    out = capsys.readouterr().out
    assert "fill" in out and f"status: {note}" in out
    assert main(["count-run", str(programs / "idletail-cuda"), "--timeout", "4",
                 "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["kernel"] == "fill" and rec["run_stopped"] == note
    # a run that ends normally says nothing of the kind
    assert main(["count-run", str(programs / "rescan-cuda"), "--args", "1000"]) == 0
    assert "status:" not in capsys.readouterr().out


def test_count_run_error_exit(programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "thrust-cuda")])
    assert rc != 0
    assert "unsupported" in capsys.readouterr().err


def test_count_run_rejects_a_sample_range_that_is_empty(programs: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    rc = main(["count-run", str(programs / "saxpy-cuda"), "--sample-min", "64",
               "--sample-max", "16"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "--sample-min (64)" in err and "--sample-max (16)" in err


def test_count_run_rejects_a_negative_unroll_threshold(programs: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    rc = main(["count-run", str(programs / "taps-cuda"), "--unroll-threshold", "-5"])
    assert rc != 0
    assert "--unroll-threshold must be >= 0, got -5" in capsys.readouterr().err


def test_count_run_unroll_threshold_reaches_the_build(
        toolchain: None, programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ints = []
    for extra in ([], ["--unroll-threshold", "2000"]):
        assert main(["count-run", str(programs / "taps-cuda"), "--args", "256", "--json",
                     *extra]) == 0
        ints.append(json.loads(capsys.readouterr().out)[0]["int_ops"])
    assert ints[1] < ints[0]


def test_count_run_builds_with_the_profiled_builds_definitions(
        toolchain: None, programs: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the Makefile defines SINGLE_PRECISION; a compile_commands.json without it (and with
    # NDEBUG) gives the double build; --define alone replaces the Makefile's definitions
    d = programs / "defines-cuda"
    cc = tmp_path / "compile_commands.json"
    cc.write_text(json.dumps([{"directory": "/b", "file": "/x/src/defines-cuda/main.cu",
                               "command": "clang++ -O3 -DNDEBUG -D__NVCC__ -x cuda -c "
                                          "/x/src/defines-cuda/main.cu"}]))
    runs = {"makefile": [], "compile-commands": ["--compile-commands", str(cc)],
            "define": ["--define", "SINGLE_PRECISION", "--define", "N=2"]}
    got = {}
    for name, extra in runs.items():
        assert main(["count-run", str(d), "--args", "1024", "--json", *extra]) == 0
        (r,) = json.loads(capsys.readouterr().out)
        got[name] = (r["flops_sp"], r["flops_dp"], r["global_load_bytes"])
    assert got["makefile"] == (2048, 0, 2 * 4 * 1024)
    assert got["compile-commands"] == (0, 2048, 2 * 8 * 1024)
    assert got["define"] == got["makefile"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"file": "/x/src/saxpy-cuda/main.cu", "command": "nvcc"}]))
    assert main(["count-run", str(d), "--compile-commands", str(other)]) != 0
    assert "no entry for a file in a folder named 'defines-cuda'" in capsys.readouterr().err


def test_count_run_counts_math_as_the_chosen_gpu_compiler_builds_it(
        toolchain: None, programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # sqrtf(x + 1) * cosf(0.5f) per element: nvcc folds the cosine and keeps the IEEE square
    # root; clang through libdevice keeps the cosine and takes the approximate square root
    from ridgeline.counting.mathops import MATH_FLOPS

    got = {}
    for compiler in ("nvcc", "clang"):
        assert main(["count-run", str(programs / "constmath-cuda"), "--args", "256",
                     "--gpu-compiler", compiler, "--json"]) == 0
        (r,) = json.loads(capsys.readouterr().out)
        got[compiler] = r["flops_sp"]
    assert got == {"nvcc": 256 * (2 + MATH_FLOPS["sqrtf"][1]),
                   "clang": 256 * (2 + MATH_FLOPS["cosf"][1])}
    with pytest.raises(SystemExit):
        main(["count-run", str(programs / "constmath-cuda"), "--gpu-compiler", "icc"])
    assert "invalid choice: 'icc'" in capsys.readouterr().err
