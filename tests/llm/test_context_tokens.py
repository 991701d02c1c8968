"""Program context as the paper built it, and offline o200k token counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ridgeline.errors import InputFileError, UsageError
from ridgeline.sources.context import SEPARATOR, build_context, program_context, program_files
from ridgeline.sources.tokens import (
    PAPER_CUTOFF,
    count_tokens,
    encode,
    truncate_tokens,
    within_cutoff,
)
from tests.conftest import require


def _program(tmp_path: Path) -> Path:
    (tmp_path / "src" / "inc").mkdir(parents=True)
    (tmp_path / "src" / "main.cu").write_text("__global__ void k(float *a) { a[0] = 1; }\n")
    (tmp_path / "src" / "inc" / "util.h").write_text("#define N 4\n")
    (tmp_path / "src" / "inc" / "b.cuh").write_text("// cuh\n")
    (tmp_path / "src" / "host.cpp").write_bytes(b"int main() { return 0; } // \xff\n")
    (tmp_path / "src" / "Makefile").write_text("all:\n")
    (tmp_path / "src" / "notes.txt").write_text("not source\n")
    return tmp_path / "src"


def test_context_concatenates_all_sources_under_headers(tmp_path: Path) -> None:
    d = _program(tmp_path)
    names = [p.name for p in program_files(d)]
    assert names == ["host.cpp", "b.cuh", "util.h", "main.cu"]  # sorted by path
    text = program_context(d)
    assert text.startswith(f"{SEPARATOR}\nhost.cpp\n{SEPARATOR}\nint main()")
    assert f"{SEPARATOR}\nmain.cu\n{SEPARATOR}\n__global__ void k" in text
    assert "Makefile" not in text and "not source" not in text
    assert "\ufffd" in text  # undecodable bytes replaced, as the paper read them
    assert text.endswith("a[0] = 1; }\n\n\n")


def test_context_errors(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        program_context(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputFileError, match="no source files"):
        program_context(tmp_path / "empty")


def test_o200k_counts() -> None:
    require("an offline o200k tokenizer (quicktok-v1)", "quicktok")
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert encode("hello world") == [24912, 2375]  # tiktoken o200k_base ids
    assert count_tokens("<|endoftext|>") > 1  # special-token text counted as plain text
    long = "for (int i = 0; i < n; i++) { a[i] = b[i] * c; }\n" * 600
    assert not within_cutoff(long) and count_tokens(long) > PAPER_CUTOFF
    cut = truncate_tokens(long, 100)
    assert count_tokens(cut) <= 100 and long.startswith(cut)
    with pytest.raises(UsageError):
        truncate_tokens(long, 0)


def test_two_tokenizer_packages_agree(tmp_path: Path) -> None:
    require("quicktok-v1", "quicktok")
    require("bpe-openai", "bpe_openai")
    if importlib.util.find_spec("bpe_openai") is None:
        return
    import bpe_openai
    import quicktok

    text = program_context(_program(tmp_path)) + "naïve ünïcode → ∑ 12345 \t\t  spaces\n"
    a = quicktok.get_encoding("o200k_base").encode(text)
    b = bpe_openai.get_encoding("o200k_base").encode_ordinary(text)
    assert list(a) == list(b)


def test_build_context_reports_cutoff(tmp_path: Path) -> None:
    require("quicktok-v1", "quicktok")
    ctx = build_context(_program(tmp_path))
    assert 20 < ctx.num_tokens < PAPER_CUTOFF and not ctx.over_cutoff


def test_kernel_only_context(tmp_path: Path) -> None:
    from ridgeline import sources

    require("libclang with builtin headers", sources.clang_available())
    from ridgeline.sources.context import kernel_context

    d = tmp_path / "p"
    d.mkdir()
    (d / "k.cu").write_text(
        "#define SCALE 2.0f\n"
        "__device__ float twice(float v) { return SCALE * v; }\n"
        "__global__ void scale(float *a, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) a[i] = twice(a[i]);\n}\n"
        "__global__ void other(int *b) { b[0] = 1; }\n"
        "int main() { scale<<<1, 32>>>(0, 32); return 0; }\n")
    text = kernel_context(d, "scale")
    assert text.startswith(f"{SEPARATOR}\nk.cu\n{SEPARATOR}\n")
    assert "void scale" in text and "twice" in text
    assert "void other" not in text and "int main" not in text
