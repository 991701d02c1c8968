"""The build's definitions reach the predictors' source scan: a kernel behind
``#if defined(OPTION)`` is found with ``-D OPTION`` or when the Makefile defines it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.analysis.kernel import analyze_launch
from ridgeline.errors import KernelNotFoundError
from ridgeline.predictors import KernelRef, Launch
from ridgeline.sources.build import ProgramBuild

SOURCE = """\
#include <cstdlib>
#if defined(WITH_SCALE)
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
#endif
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  float *x;
  cudaMalloc(&x, n * sizeof(float));
#if defined(WITH_SCALE)
  scale<<<(n + 255) / 256, 256>>>(x, n);
#endif
  return 0;
}
"""


def test_kernel_behind_a_build_option_is_found_with_the_builds_definitions(
        tmp_path: Path) -> None:
    d = tmp_path / "opt-cuda"
    d.mkdir()
    (d / "main.cu").write_text(SOURCE)
    launch = Launch.parse(None, None, "1024")
    with pytest.raises(KernelNotFoundError):
        analyze_launch(KernelRef("scale", (d,), build=ProgramBuild()), launch)
    a = analyze_launch(KernelRef("scale", (d,), build=ProgramBuild.from_cli(["WITH_SCALE"])),
                       launch)
    assert (a.grid, a.block) == ((4, 1, 1), (256, 1, 1))
    (d / "Makefile").write_text("CFLAGS = -O3 -DWITH_SCALE\nall:\n\tnvcc $(CFLAGS) main.cu\n")
    a = analyze_launch(KernelRef("scale", (d,), build=ProgramBuild()), launch)
    assert a.threads == 1024
