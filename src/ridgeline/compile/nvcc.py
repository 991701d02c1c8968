"""Compile a CUDA source with nvcc for one architecture; read the per-kernel SASS opcode
histogram (cuobjdump -sass) and ptxas resource usage (registers, shared memory, spills).
Results are cached by content hash under ``$RIDGELINE_CACHE`` (default ~/.cache/ridgeline).
The tools run in the sandbox (:mod:`ridgeline.sandbox`); a result records its ``isolation``
(``"bwrap"`` or ``"none"``; absent in entries cached before the tools were sandboxed)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ridgeline._atomic import write_text_atomic
from ridgeline.compile._tools import find_tool, run_tool
from ridgeline.errors import CompileError, UsageError
from ridgeline.sandbox import flag_dirs

log = logging.getLogger(__name__)

__all__ = ["compile_cuda", "parse_sass", "parse_ptxas", "cache_dir", "check_arch"]

_ARCH_RE = re.compile(r"^(sm|compute)_(\d{2,3})[a-z]?$")
_FUNC_RE = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INSTR_RE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
_PTXAS_FN = re.compile(r"(?:Compiling entry function|Function properties for) '?([^'\s]+)'?")
_SRC_EXTS = {".cu", ".cuh", ".h", ".hpp", ".hh", ".inc", ".c", ".cc", ".cpp", ".cxx"}
CACHE_VERSION = 1


def cache_dir() -> Path:
    root = os.environ.get("RIDGELINE_CACHE") or str(Path.home() / ".cache" / "ridgeline")
    return Path(root) / "compile"


def check_arch(arch: str) -> str:
    if not _ARCH_RE.match(arch):
        raise UsageError(f"architecture {arch!r} is not understood; use forms like sm_80, sm_86, "
                         "sm_90")
    return arch.replace("compute_", "sm_")


def parse_sass(text: str) -> dict[str, dict[str, int]]:
    """cuobjdump -sass output -> {mangled function: {opcode: count}}."""
    out: dict[str, Counter[str]] = {}
    cur: Counter[str] | None = None
    for line in text.splitlines():
        m = _FUNC_RE.match(line)
        if m:
            cur = out.setdefault(m.group(1), Counter())
            continue
        if cur is not None:
            mi = _INSTR_RE.match(line)
            if mi:
                cur[mi.group(1)] += 1
    return {k: dict(v) for k, v in out.items()}


def parse_ptxas(text: str) -> dict[str, dict[str, int]]:
    """ptxas -v output -> {mangled function: registers, shared_bytes, spill_stores, ...}."""
    out: dict[str, dict[str, int]] = {}
    cur: dict[str, int] | None = None
    for line in text.splitlines():
        m = _PTXAS_FN.search(line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is None:
            continue
        for pat, key in ((r"Used (\d+) registers", "registers"),
                         (r"(\d+) bytes smem", "shared_bytes"),
                         (r"(\d+) bytes stack frame", "stack_bytes"),
                         (r"(\d+) bytes spill stores", "spill_stores"),
                         (r"(\d+) bytes spill loads", "spill_loads"),
                         (r"(\d+) bytes lmem", "local_bytes")):
            mm = re.search(pat, line)
            if mm:
                cur[key] = int(mm.group(1))
    return out


def _program_hash(source: Path, args: list[str]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([CACHE_VERSION, args]).encode())
    for f in sorted(source.parent.rglob("*")):
        if f.suffix.lower() in _SRC_EXTS and f.is_file():
            h.update(str(f.relative_to(source.parent)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:40]


def compile_cuda(source: str | Path, arch: str = "sm_86", defines: list[str] | None = None,
                 use_cache: bool = True, timeout: float = 600,
                 include_dirs: list[Path] | None = None,
                 extra_flags: list[str] | None = None) -> dict[str, Any]:
    """Compile *source* (its folder, then *include_dirs*, is the include path; *extra_flags*
    go to nvcc as they are) and return
    ``{"arch", "functions": {mangled: {"opcodes": {...}, "resources": {...}}}, "cached"}``."""
    src = Path(source).resolve()
    arch = check_arch(arch)
    incs = [a for d in (include_dirs or []) for a in ("-I", str(Path(d).resolve()))]
    args = [f"-arch={arch}", "-cubin", "-Xptxas", "-v", "-std=c++17", "-I", str(src.parent),
            *incs, "-w", *[f"-D{d}" for d in (defines or [])], *(extra_flags or [])]
    key = _program_hash(src, [src.name, *args])
    cfile = cache_dir() / f"{key}.json"
    if use_cache and cfile.is_file():
        try:
            data: dict[str, Any] = json.loads(cfile.read_text())
        except (OSError, ValueError):
            log.warning("unreadable cache entry %s; recompiling", cfile)
        else:
            if "error" in data:  # the same sources failed before: same error, no recompile
                raise CompileError(data["error"] + " (cached result)")
            data["cached"] = True
            return data
    try:
        data = _compile(src, args, arch, timeout)
    except CompileError as e:
        if use_cache:
            _store(cfile, {"error": str(e)})
        raise
    if use_cache:
        _store(cfile, data)
    return data


def _store(cfile: Path, data: dict[str, Any]) -> None:
    try:
        write_text_atomic(cfile, json.dumps(data))
    except OSError as e:
        log.warning("could not write the compile cache %s: %s", cfile, e)


def _compile(src: Path, args: list[str], arch: str, timeout: float) -> dict[str, Any]:
    """nvcc (with ptxas) and cuobjdump in the sandbox: the source's folder and the include
    folders readable, the temporary folder the only one written."""
    nvcc = find_tool("nvcc")
    with tempfile.TemporaryDirectory(prefix="ridgeline-nvcc-") as tmp:
        work = Path(tmp)
        cubin = work / "k.cubin"
        cmd = [nvcc, *args, "-x", "cu", str(src), "-o", str(cubin)]
        r = run_tool(cmd, cwd=src.parent, seconds=timeout, readable=flag_dirs(args),
                     writable=[work])
        if r.timed_out:
            raise CompileError(f"nvcc timed out after {timeout:.0f} s on {src}")
        if r.returncode != 0 or not cubin.exists():
            tail = "\n".join((r.stderr or r.stdout).strip().splitlines()[-6:])
            raise CompileError(f"nvcc failed on {src} for {arch} (exit {r.returncode}):\n{tail}")
        res = parse_ptxas(r.stderr + r.stdout)
        d = run_tool([find_tool("cuobjdump"), "-sass", str(cubin)], cwd=work,
                     seconds=timeout, writable=[work])
        if d.timed_out or d.returncode != 0:
            raise CompileError(f"cuobjdump failed on the cubin of {src}: {d.stderr.strip()}"
                               + (f" (timed out after {timeout:.0f} s)" if d.timed_out else ""))
        sass = parse_sass(d.stdout)
    funcs = {name: {"opcodes": ops, "instructions": sum(ops.values()),
                    "resources": res.get(name, {})} for name, ops in sass.items()}
    return {"arch": arch, "source": str(src), "functions": funcs, "cached": False,
            "isolation": r.isolation}
