from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.errors import (
    InputFileError,
    KernelNotFoundError,
    RidgelineError,
    SourceTooLargeError,
)
from ridgeline.sources import get_kernel, load_program, read_source
from ridgeline.sources._text import MAX_BYTES

pytestmark = pytest.mark.usefixtures("clang")

GOOD = "__global__ void ok(float *a) { a[threadIdx.x] = 1.0f; }\n"


def _prog(tmp_path: Path, name: str, data: bytes) -> Path:
    d = tmp_path / "prog"
    d.mkdir(exist_ok=True)
    (d / "good.cu").write_text(GOOD)
    (d / name).write_bytes(data)
    return d


def test_non_utf8_is_read_as_latin1_with_a_warning(tmp_path: Path) -> None:
    d = _prog(tmp_path, "latin.cu", b"// caf\xe9\n__global__ void lat(int *a) { a[0] = 1; }\n")
    prog = load_program(d)
    assert {k.name for k in prog.kernels} == {"ok", "lat"}
    assert any("not UTF-8" in p and "0xe9" in p for p in prog.problems)


def test_binary_file_is_refused_but_others_load(tmp_path: Path) -> None:
    d = _prog(tmp_path, "blob.cu", b"\x7fELF\x00\x01\x02" + bytes(range(256)))
    prog = load_program(d)
    assert [k.name for k in prog.kernels] == ["ok"]
    assert any("looks binary" in p and "blob.cu" in p for p in prog.problems)
    with pytest.raises(InputFileError, match="NUL byte"):
        read_source(d / "blob.cu")


def test_empty_file(tmp_path: Path) -> None:
    d = _prog(tmp_path, "empty.cu", b"")
    prog = load_program(d)
    assert [k.name for k in prog.kernels] == ["ok"]
    assert not prog.problems


def test_huge_file_is_refused_with_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.cu"
    with big.open("wb") as f:
        f.write(b"// x\n" * (20 * 1024 * 1024 // 5))
    assert big.stat().st_size > MAX_BYTES
    with pytest.raises(SourceTooLargeError, match=f"big.cu.*{big.stat().st_size:,} bytes.*"
                       f"limit of {MAX_BYTES:,}"):
        load_program(big)


def test_unbalanced_braces_and_unknown_include(tmp_path: Path) -> None:
    src = ('#include "does/not/exist.h"\n#include <nowhere.hpp>\n'
           "__global__ void a(float *x) { x[0] = 1; \n"
           "__global__ void b(float *x) { { x[1] = 2; }\n")
    d = _prog(tmp_path, "broken.cu", src.encode())
    prog = load_program(d)
    assert "ok" in prog.names()
    for k in prog.kernels:
        assert isinstance(k.problems, list)


def test_unknown_kernel_lists_the_known_ones(tmp_path: Path) -> None:
    prog = load_program(_prog(tmp_path, "x.cu", b"__global__ void okay2(int *a) {}\n"))
    with pytest.raises(KernelNotFoundError) as e:
        get_kernel(prog, "okk")
    msg = str(e.value)
    assert "'okk'" in msg and "ok" in msg and "okay2" in msg


def test_missing_path_and_bad_language(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        load_program(tmp_path / "nope.cu")
    with pytest.raises(RidgelineError, match="language"):
        load_program(tmp_path, language="fortran")  # type: ignore[arg-type]
