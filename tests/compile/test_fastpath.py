from __future__ import annotations

from ridgeline.compile._tools import find_tool
from ridgeline.compile.fastpath import fast_path_flops, sass_of
from tests.conftest import require

# fast path: FFMA (2) + DMUL (1) + the unconditionally called subroutine's FADD32I (1);
# a predicated FFMA and the DFMA after the first unpredicated EXIT are left out; the
# subroutine reached only behind a conditional branch is not followed
LISTING = """
		Function : k_walk
        /*0000*/                   FFMA R2, R3, R4, R5 ;
        /*0010*/               @P0 FFMA R2, R3, R4, R5 ;
        /*0020*/                   DMUL R2, R4, R6 ;
        /*0030*/                   CALL.REL.NOINC 0x80 ;
        /*0040*/               @P1 BRA 0x60 ;
        /*0050*/                   CALL.REL.NOINC 0xa0 ;
        /*0060*/                   EXIT ;
        /*0070*/                   DFMA R2, R4, R6, R8 ;
        /*0080*/                   FADD32I R2, R3, 1 ;
        /*0090*/                   RET.REL.NODEC R20 0x0 ;
        /*00a0*/                   FMUL R2, R3, R4 ;
        /*00b0*/                   RET.REL.NODEC R20 0x0 ;
		Function : k_none
        /*0000*/                   EXIT ;
"""


def test_fast_path_sums_to_first_exit_with_unconditional_calls() -> None:
    res = fast_path_flops(LISTING)
    assert res["k_walk"] == ({"sp": 3, "dp": 1}, 2)
    assert res["k_none"] == ({"sp": 0, "dp": 0}, 0)


def test_fast_path_of_a_real_compile() -> None:
    require("nvcc and cuobjdump", _has("nvcc") and _has("cuobjdump"))
    src = ('extern "C" __global__ void k_fma(const float*a,const float*b,float*o)'
           "{int i=threadIdx.x;o[i]=a[i]*b[i]+1.0f;}\n"
           'extern "C" __global__ void k_dadd(const double*a,double*o)'
           "{int i=threadIdx.x;o[i]=a[i]+2.0;}\n")
    res = fast_path_flops(sass_of(src, "sm_86"))
    assert res["k_fma"][0] == {"sp": 2, "dp": 0}
    assert res["k_dadd"][0] == {"sp": 0, "dp": 1}


def _has(tool: str) -> bool:
    try:
        find_tool(tool)
    except Exception:
        return False
    return True
