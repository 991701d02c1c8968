"""Argument model of an OpenCL kernel: buffers (type, address space), scalars, local
buffers, read from the kernel's parameters by the libclang front end."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

from ridgeline.errors import KernelNotFoundError, SourceError
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["ArgSlot", "KernelSpec", "kernel_spec", "kernel_hash"]


@dataclass(frozen=True)
class ArgSlot:
    """One kernel parameter as datagen sees it."""

    index: int
    name: str
    kind: str  # "buffer" (global/constant pointer), "local" (local pointer), "scalar"
    ctype: str  # element type of a pointer, the type of a scalar
    elem_size: int
    address_space: str
    const: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class KernelSpec:
    """A kernel ready for datagen: its source, name, content hash and arguments."""

    source: str
    name: str
    hash: str
    slots: tuple[ArgSlot, ...]
    file: str = ""
    build_options: str = ""  # the host's clBuildProgram options it needs


def kernel_hash(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def _ctype(p: Any) -> str:
    t = str(p.element_type)
    for junk in ("const", "volatile", "restrict", "__global", "__local", "__constant",
                 "__private", "global", "local", "constant", "private"):
        t = " ".join(w for w in t.split() if w != junk)
    return t.strip() or "uchar"


def kernel_spec(source: str, kernel: str | None = None, file: str = "",
                build: BuildOptions | None = None) -> KernelSpec:
    """The datagen spec of *kernel* (default: the first ``__kernel`` in *source*), parsed
    with the host's build options *build*."""
    from ridgeline.sources import parse_opencl

    kernels = parse_opencl(source, filename=file or "kernel.cl", build=build)
    if not kernels:
        raise SourceError(f"no __kernel function found in {file or 'the source'}")
    if kernel is None:
        k = kernels[0]
    else:
        match = [k for k in kernels if k.name == kernel]
        if not match:
            raise KernelNotFoundError(kernel, [k.name for k in kernels])
        k = match[0]
    slots = []
    for i, p in enumerate(k.params):
        if p.pointer and p.address_space == "local":
            kind = "local"
        elif p.pointer:
            kind = "buffer"
        else:
            kind = "scalar"
        size = int(p.element_size or 4)
        slots.append(ArgSlot(i, p.name, kind, _ctype(p), size, p.address_space, bool(p.const)))
    return KernelSpec(source, k.name, kernel_hash(source), tuple(slots), file,
                      build.cl_string() if build else "")
