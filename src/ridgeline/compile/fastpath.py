"""Counted FLOPs on a SASS kernel's fast path: what one call of a math function costs on the
GPU, read from the instructions nvcc emits.

    flops, predicated = fast_path_flops(sass_of(source, "sm_86"))["k_expf"]

In each kernel of a ``cuobjdump -sass`` listing, the FADD/FMUL (1) and FFMA (2) instructions
(with their ``32I`` immediate forms) and their DADD/DMUL/DFMA double twins are summed from the
kernel's start to its first unpredicated EXIT (the fast path; slow paths sit after it), leaving
out predicated instructions (fix-ups for denormal or huge inputs, off for ordinary ones). A
subroutine the fast path calls unconditionally (no conditional branch jumps over the call:
double ``pow``'s logarithm and exponential) is summed the same way from its entry to its first
RET. A loop is counted once.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from ridgeline.compile._tools import find_tool

#: SASS opcode -> (precision, counted FLOPs)
WEIGHTS = {"FADD": ("sp", 1), "FMUL": ("sp", 1), "FFMA": ("sp", 2), "FADD32I": ("sp", 1),
           "FMUL32I": ("sp", 1), "FFMA32I": ("sp", 2), "DADD": ("dp", 1), "DMUL": ("dp", 1),
           "DFMA": ("dp", 2)}
#: address, guard predicate, opcode, branch/call target (after an optional predicate operand)
_INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(?:\.[\w.]+)?\s*"
                   r"(?:!?U?P\w+,\s*)?(0x[0-9a-f]+)?")

Insn = tuple[int, str, str, str]


def _count(insns: list[Insn], start: int, stop: str) -> tuple[dict[str, int], int]:
    """({precision: FLOPs}, predicated FLOPs) from address *start* to the first unpredicated
    *stop* (EXIT or RET), with the subroutines called unconditionally on the way."""
    main = {"sp": 0, "dp": 0}
    pred = 0
    skipped_to = -1  # a conditional branch ahead jumps to here: what lies before may not run
    for addr, guard, op, target in insns:
        if addr < start:
            continue
        if op == stop and not guard:
            break
        if op == "BRA" and guard and target:
            skipped_to = max(skipped_to, int(target, 16))
        if op == "CALL" and not guard and target and stop == "EXIT" and addr >= skipped_to:
            m, p = _count(insns, int(target, 16), "RET")
            main = {k: main[k] + m[k] for k in main}
            pred += p
        prec, w = WEIGHTS.get(op, ("sp", 0))
        if guard:
            pred += w
        else:
            main[prec] += w
    return main, pred


def fast_path_flops(sass: str) -> dict[str, tuple[dict[str, int], int]]:
    """{kernel name as the listing spells it: ({precision: FLOPs to the first EXIT},
    predicated FLOPs left out)}."""
    res = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name = part.split(None, 1)[0] if part.strip() else ""
        if not name:
            continue
        insns = [(int(i.group(1), 16), i.group(2) or "", i.group(3), i.group(4) or "")
                 for i in map(_INSN.search, part.split("\n")) if i]
        res[name] = _count(insns, 0, "EXIT")
    return res


def sass_of(source: str, arch: str, flags: list[str] | None = None) -> str:
    """The ``cuobjdump -sass`` listing of CUDA *source* compiled for *arch* with *flags*
    (raises ``subprocess.CalledProcessError`` when nvcc or cuobjdump fails)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "m.cu", Path(tmp) / "m.cubin"
        src.write_text(source)
        subprocess.run([find_tool("nvcc"), f"-arch={arch}", *(flags or []), "-cubin",
                        "-o", str(cubin), str(src)], check=True)
        return subprocess.run([find_tool("cuobjdump"), "-sass", str(cubin)], check=True,
                              capture_output=True, text=True).stdout
