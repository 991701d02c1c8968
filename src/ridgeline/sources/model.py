"""What the front ends return: kernels, parameters, launch sites, OpenMP target regions."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["Language", "Param", "LaunchSite", "TargetRegion", "Kernel", "Program"]

Language = Literal["cuda", "omp", "opencl"]


@dataclass(frozen=True)
class Param:
    """One kernel parameter.

    ``address_space`` is ``global``, ``local``, ``constant`` or ``private`` for OpenCL; for
    CUDA a pointer is ``global`` (device memory) and a scalar ``private``.
    ``element_type``/``element_size`` describe the pointee for pointers, the value otherwise
    (size in bytes, ``None`` when unknown, e.g. a template parameter).
    """

    name: str
    type: str
    pointer: bool
    element_type: str
    element_size: int | None
    address_space: str
    const: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LaunchSite:
    """A ``kernel<<<grid, block, shmem, stream>>>(args)`` call, expressions kept as text."""

    kernel: str
    file: str
    line: int
    function: str | None
    grid: str
    block: str
    shared_mem: str | None = None
    stream: str | None = None
    template_args: str | None = None
    args: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["args"] = list(self.args)
        return d


@dataclass(frozen=True)
class TargetRegion:
    """One ``#pragma omp target ...`` offload region."""

    function: str
    mangled: str | None
    file: str
    line: int
    directive: str
    constructs: tuple[str, ...]
    clauses: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The region's short kernel name as the runtime prints it: ``<function>_l<line>``."""
        return f"{self.function}_l{self.line}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "function": self.function, "mangled": self.mangled,
            "file": self.file, "line": self.line, "directive": self.directive,
            "constructs": list(self.constructs),
            "clauses": {k: list(v) for k, v in self.clauses.items()},
        }


@dataclass
class Kernel:
    """A kernel found in a program: a CUDA ``__global__`` function, an OpenCL ``__kernel``
    function or an OpenMP target region."""

    name: str
    language: Language
    file: str
    line: int
    params: list[Param]
    end_line: int = 0
    mangled: str | None = None
    template: bool = False
    text: str = ""
    callees: list[str] = field(default_factory=list)
    macros: list[str] = field(default_factory=list)
    extracted: str = ""
    launches: list[LaunchSite] = field(default_factory=list)
    region: TargetRegion | None = None
    problems: list[str] = field(default_factory=list)
    #: the libclang cursor of the body (function or OpenMP directive); None when it was lost
    node: Any = field(default=None, repr=False, compare=False)
    #: the cursors of called functions, by name (for feature extraction)
    callee_nodes: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def bindings(self, site: LaunchSite) -> dict[str, str]:
        """Parameter name -> the expression passed for it at *site* (positional; parameters
        past the given arguments, e.g. defaulted ones, are left out)."""
        return {p.name: a for p, a in zip(self.params, site.args, strict=False) if p.name}

    @property
    def has_body(self) -> bool:
        return self.node is not None

    def to_dict(self, with_text: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name, "language": self.language, "file": self.file,
            "line": self.line, "end_line": self.end_line, "mangled": self.mangled,
            "template": self.template, "params": [p.to_dict() for p in self.params],
            "callees": list(self.callees), "macros": list(self.macros),
            "launches": [{**s.to_dict(), "bindings": self.bindings(s)} for s in self.launches],
            "region": self.region.to_dict() if self.region else None,
            "problems": list(self.problems), "has_body": self.has_body,
        }
        if with_text:
            d["text"] = self.text
            d["extracted"] = self.extracted
        return d


@dataclass
class Program:
    """Everything the front ends found in a set of source files."""

    files: list[str]
    kernels: list[Kernel]
    launches: list[LaunchSite] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: translation units kept alive while kernels hold cursors into them
    units: list[Any] = field(default_factory=list, repr=False)

    def names(self) -> list[str]:
        return [k.name for k in self.kernels]
