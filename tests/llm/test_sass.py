"""SASS of one kernel for the sass scenario (real nvcc + cuobjdump, real front end)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ridgeline.errors import UsageError
from ridgeline.llm.sass import function_listings, kernel_sass
from ridgeline.llm.scenarios import KernelPrompt, get_scenario
from tests.conftest import require

DUMP = """
	code for sm_86
		Function : _Z5scalePfi
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED"
        /*0000*/  MOV R1, c[0x0][0x28] ;  /* 0x00000a0000017a02 */
        /*0010*/  S2R R0, SR_CTAID.X ;  /* 0x0000000000007919 */
        /*0020*/  EXIT ;  /* 0x000000000000794d */
		Function : _Z5otherPi
        /*0000*/  STG.E [R2.64], R5 ;  /* 0x0000000502007986 */
"""


def test_function_listings() -> None:
    f = function_listings(DUMP)
    assert list(f) == ["_Z5scalePfi", "_Z5otherPi"]
    assert f["_Z5scalePfi"].splitlines() == ["MOV R1, c[0x0][0x28]", "S2R R0, SR_CTAID.X",
                                             "EXIT"]
    assert f["_Z5otherPi"] == "STG.E [R2.64], R5"


@pytest.mark.slow
def test_kernel_sass_real_nvcc(tmp_path: Path) -> None:
    from ridgeline import sources

    require("nvcc", shutil.which("nvcc") is not None)
    require("libclang with builtin headers", sources.clang_available())
    (tmp_path / "k.cu").write_text(
        "__global__ void scale(float *a, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) a[i] = 2.0f * a[i];\n}\n"
        "__global__ void other(int *b) { b[0] = 1; }\n"
        "int main() { scale<<<1, 32>>>(0, 32); return 0; }\n")
    text = kernel_sass(tmp_path, "scale")
    assert text.startswith("Function : _Z5scalePfi")
    assert "EXIT" in text and ("FMUL" in text or "FADD" in text)
    assert "_Z5otherPi" not in text
    with pytest.raises(UsageError, match="CUDA kernels only"):
        kernel_sass(tmp_path, "scale", language="omp")
    prompt = KernelPrompt("scale", "cuda", "RTX 3080", {"sp": 1.0, "dp": 1.0, "int": 1.0},
                          760.3, "(32, 1, 1)", "(1, 1, 1)", "", sass=text)
    msgs = get_scenario("sass").render(prompt)
    assert "SASS" in msgs[0]["content"] and "Function : _Z5scalePfi" in msgs[2]["content"]
