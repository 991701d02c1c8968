"""Mutated kernels never crash the front ends or the feature extractor (a few thousand
cases): every outcome is kernels, recorded problems, or a typed ridgeline error."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ridgeline.errors import RidgelineError
from ridgeline.features import static_features
from ridgeline.sources import parse_opencl
from ridgeline.sources._text import decode_source
from tests.sources.kernels_data import CUDA, OPENCL, OPENMP

pytestmark = pytest.mark.usefixtures("clang")

_PIECES = ["{", "}", "(", ")", ";", "[", "]", "<<<", ">>>", "#define X(", "#include \"", "\\",
           "__global__", "__kernel", "#pragma omp target", "for (", "/*", "*/", "\"", "'",
           "\x00", "\xff", "template <", "__shared__", "if (", "else", "0x", "1e309"]


def _mutate(text: str, ops: list[tuple[int, int, int]]) -> str:
    for kind, pos, arg in ops:
        i = pos % (len(text) + 1)
        if kind == 0:
            text = text[:i] + text[i + arg % 40:]
        elif kind == 1:
            text = text[:i] + _PIECES[arg % len(_PIECES)] + text[i:]
        else:
            j = (i + arg) % (len(text) + 1)
            text = text[:i] + text[j:] + text[i:j]
    return text


_OPS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 10**4)),
                min_size=1, max_size=6)


def _features_or_typed_error(kernels: list) -> None:
    for k in kernels:
        with contextlib.suppress(RidgelineError):
            static_features(k)


@settings(max_examples=1200, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=_OPS)
def test_mutated_opencl(ops: list[tuple[int, int, int]]) -> None:
    _features_or_typed_error(parse_opencl(_mutate(OPENCL, ops)))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=_OPS, which=st.sampled_from(["main.cu", "main.cpp"]))
def test_mutated_cuda_and_openmp(tmp_path_factory, ops, which) -> None:  # type: ignore[no-untyped-def]
    from ridgeline.sources import load_program

    d = tmp_path_factory.mktemp("fz")
    src = CUDA if which == "main.cu" else OPENMP
    (d / which).write_bytes(_mutate(src, ops).encode("utf-8", "surrogateescape"))
    prog = load_program(d)
    _features_or_typed_error(prog.kernels)


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=2000))
def test_random_bytes_decode_or_typed_error(data: bytes) -> None:
    try:
        text, _ = decode_source(data, "<fuzz>")
    except RidgelineError:
        return
    _features_or_typed_error(parse_opencl(text))
