"""Which of a batch's kernel names a counting run waits for.

The runtime stops a program once every name it waits for has a counted launch; it knows a
kernel by its whole name, its name before ``@site``, a name end, or (OpenMP) the region's
function with a line within 8 (``ridgeline.counting._exec.expect_matches``). A name it can
never recognise (a fragment of template arguments such as ``int,``, a kernel the profiled
build named otherwise, a region name of another build's mangling) kept the program running
to its end and then again, every launch executed, to the time limit, for rows the batch's
own matching (``record_for``) then paired from the first run's launches anyway. Such a run
now waits for no name: the program runs once to its end (or the limit).
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["expected_kernels", "function_of"]

_REGION = re.compile(r"^(.*)_l\d+$")
_MANGLED = re.compile(r"^_?ZN?(\d+)")
_WORD = re.compile(r"[A-Za-z_]\w*")
_SOURCES = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp", ".inc"}


def function_of(name: str) -> str:
    """The function a kernel or region name names: ``_Z12BoxFilterGPUPjS_S_jjiff_l127`` ->
    ``BoxFilterGPU``, ``_ZN9OMPStreamIdE4copyEv_l105`` -> ``OMPStream``, ``main_l72`` ->
    ``main``, ``scale`` -> ``scale``; "" when it names none (``int,``)."""
    m = _REGION.match(name)
    base = m.group(1) if m else name
    mm = _MANGLED.match(base)
    if mm:
        base = base[mm.end():mm.end() + int(mm.group(1))]
    return base if _WORD.fullmatch(base) else ""


def expected_kernels(program_dir: Path, names: list[str]) -> list[str]:
    """*names*, or none (run to the end) when one of them names a kernel the sources in
    *program_dir* (any depth) do not mention as a word, or no kernel at all. OpenMP region
    names (``..._l127``) are kept: the runtime also takes a region by the end of its name
    (``Pmmi_l117`` is ``_Z6bsearchPmmi_l117``), which the sources cannot tell."""
    funcs = {function_of(n) for n in names if not _REGION.match(n)}
    if not names or "" in funcs:
        return []
    left = set(funcs)
    for p in sorted(program_dir.rglob("*")):
        if not left:
            break
        if p.suffix.lower() in _SOURCES and p.is_file() and p.stat().st_size < 4 << 20:
            text = p.read_text(errors="replace")
            left = {f for f in left if not re.search(rf"\b{re.escape(f)}\b", text)}
    return list(names) if not left else []
