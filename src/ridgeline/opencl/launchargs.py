"""A recorded OpenCL launch made countable: the arguments the host passed (as the trace
interposer records them: buffer bytes, scalar bytes, local bytes), its global and local
sizes, turned into what Oclgrind runs.

Buffers get the recorded size, filled deterministically with ones of their element type
(zero bytes when the type is a structure or cannot be resolved); scalars get the very
bytes the host passed, so a loop bound passed as a scalar reaches the count. A launch
without a local size gets PoCL's choice, approximated as the largest power-of-two divisor
of each dimension up to 4096 work-items in all.

    launch = RecordedLaunch.from_json(src, "gemm", "512,512", "32,8", args_json, "")
    args, notes = oclgrind_args(launch)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ridgeline.errors import LaunchError, RidgelineError, SchemaError
from ridgeline.profiles.oclgrind import Buffer, LocalBuffer, ScalarBytes
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["RecordedLaunch", "oclgrind_args", "parse_dims", "default_local", "POCL_MAX_WG",
           "resolve_type"]

POCL_MAX_WG = 4096
#: Oclgrind's simulator element types
_SIM_TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
              "double", "half")
_SIM_SIZES = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "half": 2, "int": 4, "uint": 4,
              "float": 4, "long": 8, "ulong": 8, "double": 8}
_ALIASES = {"unsigned char": "uchar", "unsigned short": "ushort", "unsigned int": "uint",
            "unsigned": "uint", "unsigned long": "ulong", "signed char": "char",
            "size_t": "ulong", "bool": "uchar", "long long": "long",
            "unsigned long long": "ulong"}
_SCALAR_KINDS = ("scalar", "buffer", "local", "image")


@dataclass(frozen=True)
class RecordedLaunch:
    """One launch as recorded: kernel text and name, build options, sizes per dimension
    (local ``None``: the runtime chose) and the argument records."""

    src: str
    kernel: str
    global_dims: tuple[int, ...]
    local_dims: tuple[int, ...] | None
    args: tuple[dict[str, Any], ...]
    build_options: str = ""

    @classmethod
    def from_json(cls, src: str, kernel: str, global_dims: str, local_dims: str,
                  args: str, build_options: str = "") -> RecordedLaunch:
        """From a batch row's text columns (``global_dims`` "512,512", ``local_dims``
        "32,8" or empty, ``args`` a JSON list of ``{"kind", "bytes"[, "hex"|"value"]}``)."""
        g = parse_dims(global_dims, "global_dims")
        loc = parse_dims(local_dims, "local_dims") if str(local_dims).strip() else None
        if loc is not None and len(loc) != len(g):
            raise LaunchError(f"local_dims {local_dims!r} has {len(loc)} dimensions, "
                              f"global_dims {global_dims!r} {len(g)}; they must agree")
        try:
            recs = json.loads(args) if str(args).strip() else []
        except ValueError as e:
            raise SchemaError(f"args {str(args)[:60]!r} is not JSON: {e}") from None
        if not isinstance(recs, list) or not all(isinstance(r, dict) for r in recs):
            raise SchemaError(f"args {str(args)[:60]!r} must be a JSON list of objects "
                              "like {\"kind\": \"scalar\", \"bytes\": 4, \"hex\": \"00020000\"}")
        return cls(src, kernel, g, loc, tuple(recs), build_options)

    def local(self) -> tuple[int, ...]:
        return self.local_dims or default_local(self.global_dims)

    @property
    def work_items(self) -> int:
        n = 1
        for x in self.global_dims:
            n *= x
        return n


def parse_dims(text: Any, what: str) -> tuple[int, ...]:
    """"512,512" (or "512x512", or a number) as 1 to 3 positive sizes."""
    words = [w for w in re.split(r"[,x\s]+", str(text).strip()) if w]
    try:
        vals = tuple(int(float(w)) for w in words)
    except ValueError:
        vals = ()
    if not 1 <= len(vals) <= 3 or any(v < 1 for v in vals):
        raise LaunchError(f"{what} {str(text)[:60]!r} must be 1 to 3 positive integers "
                          "separated by commas, e.g. 512,512")
    return vals


def default_local(glob: tuple[int, ...]) -> tuple[int, ...]:
    """PoCL's local size for a launch that gives none (approximated, see the module doc)."""
    out, total = [], 1
    for g in glob:
        d = 1
        while g % (d * 2) == 0 and total * d * 2 <= POCL_MAX_WG:
            d *= 2
        total *= d
        out.append(d)
    return tuple(out)


def _typedefs(src: str, build_options: str) -> dict[str, str]:
    """Names the source or the build options define as other types (typedef, #define, -D)."""
    out = {m.group(2): m.group(1).strip()
           for m in re.finditer(r"\btypedef\s+([\w\s]+?)\s+(\w+)\s*;", src)}
    out.update({m.group(1): m.group(2).strip()
                for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+([\w ]+?)\s*$", src, re.M)})
    try:
        defines = BuildOptions.parse(build_options).defines if build_options else ()
    except RidgelineError:
        defines = ()
    for d in defines:
        name, _, val = d.partition("=")
        if val:
            out[name] = val
    return out


def resolve_type(ctype: str, src: str, build_options: str = "") -> str | None:
    """The Oclgrind element type of *ctype* (vectors by their element; typedefs and macros
    followed), or None when it is a structure or unknown."""
    names = _typedefs(src, build_options)
    t = " ".join(w for w in ctype.split() if w not in ("const", "volatile", "restrict"))
    for _ in range(8):
        t = _ALIASES.get(t, t)
        base = re.sub(r"(2|3|4|8|16)$", "", t)
        if base in _SIM_TYPES:
            return base
        if t in names:
            t = names[t]
        elif base in names:
            t = names[base]
        else:
            return None
    return None


def _hex_bytes(rec: dict[str, Any], i: int) -> bytes:
    if "hex" in rec:
        try:
            return bytes.fromhex(str(rec["hex"]))
        except ValueError:
            raise SchemaError(f"argument {i}: hex {str(rec['hex'])[:40]!r} is not "
                              "hexadecimal bytes") from None
    raise SchemaError(f"argument {i} is a scalar without its value: give \"hex\" (the "
                      "bytes the host passed, little-endian) or \"value\"")


_STRUCT = {"char": "b", "uchar": "B", "short": "h", "ushort": "H", "int": "i", "uint": "I",
           "long": "q", "ulong": "Q", "float": "f", "double": "d", "half": "e"}


def _value_bytes(value: Any, ctype: str, size: int, i: int, name: str) -> bytes:
    """*value* encoded as the kernel's parameter type reads it (little-endian; a vector
    type gets it in every lane)."""
    import struct

    t = ctype or "int"
    code = _STRUCT[t]
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise SchemaError(f"argument {i} ({name}): value {value!r} is not a number") from None
    one = struct.pack("<" + code, v if code in "fde" else int(v))
    return (one * max(1, size // len(one)))[:size] if size >= len(one) else one


def _scalar(rec: dict[str, Any], i: int, param: Any, src: str, opts: str) -> ScalarBytes:
    if "value" in rec and "hex" not in rec:
        t = resolve_type(param.element_type, src, opts)
        size = int(param.element_size or rec.get("bytes") or 4)
        if t is None:  # a typedef'd integer of the parameter's size
            t = {1: "char", 2: "short", 8: "long"}.get(size, "int")
        return ScalarBytes(_value_bytes(rec["value"], t, size, i, param.name))
    data = _hex_bytes(rec, i)
    want = param.element_size
    if want and len(data) != want:
        raise SchemaError(f"argument {i} ({param.name}): {len(data)} bytes recorded, the "
                          f"kernel's {param.element_type} takes {want}")
    return ScalarBytes(data)


@lru_cache(maxsize=1024)
def _params(src: str, kernel: str, build_options: str) -> tuple[Any, ...]:
    """The parameters of *kernel* in *src* (parsed once per text, kernel and options: the
    launches of one kernel share them)."""
    from ridgeline.sources import parse_opencl

    build = BuildOptions.parse(build_options) if build_options else None
    kernels = [k for k in parse_opencl(src, build=build) if k.name == kernel]
    if not kernels:
        raise SchemaError(f"kernel {kernel!r} is not in the row's source")
    return tuple(kernels[0].params)


def oclgrind_args(launch: RecordedLaunch) -> tuple[list[Any], list[str]]:
    """The Oclgrind arguments of *launch* and notes on how buffers were filled."""
    params = _params(launch.src, launch.kernel, launch.build_options)
    if len(launch.args) != len(params):
        raise SchemaError(f"the launch records {len(launch.args)} arguments; kernel "
                          f"{launch.kernel!r} takes {len(params)}")
    out: list[Any] = []
    zero_filled: list[str] = []
    for i, (rec, p) in enumerate(zip(launch.args, params, strict=True)):
        kind = str(rec.get("kind", ""))
        if kind not in _SCALAR_KINDS:
            raise SchemaError(f"argument {i}: kind {kind!r} is not one of "
                              f"{', '.join(_SCALAR_KINDS)}")
        nbytes = int(rec.get("bytes") or 0)
        if kind == "image":
            raise SchemaError(f"argument {i} ({p.name}) is an image; counting takes buffers, "
                              "scalars and local memory only")
        if kind == "local":
            out.append(LocalBuffer(max(1, nbytes)))
        elif kind == "buffer":
            t = resolve_type(p.element_type, launch.src, launch.build_options)
            if t is None:
                zero_filled.append(p.name)
            # Oclgrind fills whole elements: a host that allocated a few bytes short of one
            # (sizeof(float) * n for a double buffer) gets the last element whole
            size = _SIM_SIZES.get(t or "uchar", 1)
            out.append(Buffer(-(-max(1, nbytes) // size) * size, 1 if t else 0,
                              sim_type=t or "uchar"))
        else:
            out.append(_scalar(rec, i, p, launch.src, launch.build_options))
    notes = ["buffers filled with ones"]
    if zero_filled:
        notes.append(f"zero bytes in {', '.join(zero_filled)} (element type not a scalar "
                     "or vector)")
    return out, notes
