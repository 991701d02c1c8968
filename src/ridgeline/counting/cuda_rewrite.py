"""Source rewrite that lets a CUDA program compile as C++ against ``rl_cuda.h``:
``k<<<g, b, shmem, stream>>>(args)`` becomes ``__rl_launch_call("k", [&]() { k(args); },
g, b, shmem, stream)``, and ``extern __shared__ T s[];`` becomes a pointer into the runtime's
dynamic shared-memory buffer. Everything else is handled by macros and overloads in the
header. Also lists features the CPU layer does not provide."""

from __future__ import annotations

import re

from ridgeline.sources._text import split_top_level

__all__ = ["rewrite_cuda", "unsupported_features", "launch_names", "kernel_names"]

_UNSUPPORTED = [
    (re.compile(r"#\s*include\s*[<\"]hipcub|#\s*include\s*[<\"]cub\.cuh"), "CUB"),
    (re.compile(r"#\s*include\s*[<\"]cublas"), "cuBLAS"),
    (re.compile(r"#\s*include\s*[<\"]cusparse"), "cuSPARSE"),
    (re.compile(r"#\s*include\s*[<\"]cufft"), "cuFFT"),
    (re.compile(r"#\s*include\s*[<\"]curand_(?!kernel)"),
     "cuRAND (beyond curand.h, curand_kernel.h)"),
    (re.compile(r"#\s*include\s*[<\"]cusolver"), "cuSOLVER"),
    (re.compile(r"#\s*include\s*[<\"]cudnn"), "cuDNN"),
    (re.compile(r"#\s*include\s*[<\"]nvrtc"), "NVRTC"),
    (re.compile(r"#\s*include\s*[<\"]cuda/"), "libcu++ (cuda/...)"),
    (re.compile(r"\bthis_grid\s*\(|\bgrid_group\b|\bthis_multi_grid\s*\("),
     "cooperative groups across the grid"),
    (re.compile(r"#\s*include\s*[<\"]mma\.h|\bwmma::"), "tensor-core WMMA"),
    (re.compile(r"\btexture\s*<|\bcudaTextureObject_t\b|\btex[123]D\w*\s*[<(]"), "textures"),
    (re.compile(r"\bsurf[123]D\w*\s*\(|\bcudaSurfaceObject_t\b"), "surfaces"),
    (re.compile(r"\basm\s*(volatile\s*)?\((?!\s*\"trap;\"\s*\))"), "inline PTX assembly"),
    (re.compile(r"\bcudaGraph\w*\s*\("), "CUDA graphs"),
    (re.compile(r"\bcudaLaunchCooperativeKernel\b"), "cooperative launch"),
    (re.compile(r"\bcudaArray\b|\bcudaMallocArray\b|\bcudaMalloc3D\w*\b"), "CUDA arrays"),
]

_EXTERN_SHARED = re.compile(
    r"(?:extern\s+__shared__|__shared__\s+extern)\s+((?:__align__\s*\(\s*\d+\s*\)\s*)?)([\w:<>,\s]+?)\s*"
    r"(?:__align__\s*\(\s*\d+\s*\)\s*)?(\w+)\s*\[\s*\]\s*;")

_TRAP = re.compile(r"\basm\s*(?:volatile\s*)?\(\s*\"trap;\"\s*\)")


_LIB_INCLUDE = re.compile(r"#\s*include\s*[<\"]((thrust|cub|cooperative_groups)/[\w/.]+)[>\"]")
_LIB_NAME = {"thrust": "Thrust", "cub": "CUB", "cooperative_groups": "cooperative groups"}


def _shim_has(header: str) -> bool:
    from ridgeline.counting.toolchain import runtime_dir

    return (runtime_dir() / "shim" / header).is_file()


def unsupported_features(text: str) -> list[str]:
    """Names of features in *text* that the CPU execution layer does not provide (Thrust, CUB
    and cooperative-groups headers the runtime's shim does not carry included)."""
    found = []
    for m in _LIB_INCLUDE.finditer(text):
        if not _shim_has(m.group(1)):
            name = f"{_LIB_NAME[m.group(2)]} ({m.group(1)})"
            if name not in found:
                found.append(name)
    for pat, name in _UNSUPPORTED:
        if pat.search(text) and name not in found:
            found.append(name)
    return found


def host_libraries(text: str) -> list[str]:
    """Libraries *text* includes whose algorithms the CPU execution layer runs on the host,
    uncounted (Thrust: its device algorithms launch no kernel the layer sees)."""
    return ["Thrust"] if any(m.group(2) == "thrust" and _shim_has(m.group(1))
                             for m in _LIB_INCLUDE.finditer(text)) else []


def _kernel_expr_start(text: str, pos: int) -> int:
    """Start of the kernel expression that ends just before *pos* (``<<<``)."""
    i = pos - 1
    while i >= 0 and (text[i].isspace() or text[i] == "\\"):  # also line continuations
        i -= 1
    if i >= 0 and text[i] == ">":  # template arguments
        depth = 0
        while i >= 0:
            if text[i] == ">":
                depth += 1
            elif text[i] == "<":
                depth -= 1
                if depth == 0:
                    i -= 1
                    break
            i -= 1
        while i >= 0 and (text[i].isspace() or text[i] == "\\"):
            i -= 1
    while i >= 0 and (text[i].isalnum() or text[i] in "_:"):
        i -= 1
    return i + 1


def _base_name(expr: str) -> str:
    expr = re.sub(r"<.*>$", "", expr.strip(), flags=re.S).strip()
    return expr.split("::")[-1]


def _call_end(text: str, pos: int) -> int:
    """Index just past the balanced ``( ... )`` that starts at or after *pos* (or -1)."""
    i = pos
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "(":
        return -1
    depth = 0
    quote = ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


_GLOBAL_FN = re.compile(r"__global__[^;{}()]*?\b(\w+)\s*\(")


def kernel_names(text: str) -> set[str]:
    """Names of the ``__global__`` functions declared or defined in *text*."""
    return set(_GLOBAL_FN.findall(re.sub(r"__launch_bounds__\s*\([^)]*\)", "", text)))


def _in_macro(text: str, pos: int) -> bool:
    """The line at *pos* continues (``\\``) or continues the previous one: a launch inside a
    ``#define`` body, whose kernel is a macro parameter (with explicit template arguments)."""
    end = text.find("\n", pos)
    if text[pos: end if end >= 0 else len(text)].rstrip().endswith("\\"):
        return True
    start = text.rfind("\n", 0, pos)  # or the line continues the one before it
    return start > 0 and text[:start].rstrip(" \t").endswith("\\")


def rewrite_cuda(text: str, kernels: set[str] | None = None) -> tuple[str, list[str]]:
    """Rewrite launches and dynamic shared memory; returns (text, launched kernel names).

    ``k<<<cfg>>>(args)`` becomes ``__rl_launch_call("k", [&]() { k(args); }, cfg)``: the call
    is compiled as written (templates, deduction, overloads, conversions all as in CUDA);
    the runtime invokes the lambda once per GPU thread. When *kernels* (the program's
    ``__global__`` names) is given and a launched name is not among them (a function
    pointer, a macro parameter), the runtime names the launch after the called symbol."""
    names: list[str] = []
    out = []
    pos = 0
    while True:
        i = text.find("<<<", pos)
        if i < 0:
            out.append(text[pos:])
            break
        j = text.find(">>>", i)
        start = _kernel_expr_start(text, i)
        kexpr = text[start:i].strip().rstrip("\\").strip()
        name = _base_name(kexpr)
        end = _call_end(text, j + 3) if j >= 0 else -1
        if j < 0 or not name or end < 0:
            out.append(text[pos : i + 3])
            pos = i + 3
            continue
        cfg = split_top_level(text[i + 3 : j])
        args = text[j + 3 : end].strip()
        names.append(name)
        out.append(text[pos:start])
        cfg_text = ", ".join(cfg) + ("\n" if "#" in cfg[-1] else "")  # ends in #endif
        lam = f"[&]() {{ {kexpr}{args}; }}"
        if kernels is not None and name not in kernels and (
                re.fullmatch(r"\w+", kexpr) or _in_macro(text, start)):
            out.append(f'__rl_launch_call_ptr({kexpr}, "{name}", {lam}, {cfg_text})')
        else:
            out.append(f'__rl_launch_call("{name}", {lam}, {cfg_text})')
        pos = end
    text = "".join(out)
    text = re.sub(r"\bstatic\s+__shared__\b", "__shared__", text)
    text = _TRAP.sub("__trap()", text)  # PTX trap: abort the program, as on the GPU
    text = _EXTERN_SHARED.sub(
        lambda m: f"{m.group(2).strip()} *{m.group(3)} = "
        f"reinterpret_cast<{m.group(2).strip()} *>(__rl_dyn_shared);", text)
    return text, names


def launch_names(text: str) -> list[str]:
    return rewrite_cuda(text)[1]
