"""Program context for LLM prompts, built the way the 2025 roofline paper built it.

The paper gave the model every C/C++/CUDA source file of the program's folder (recursively,
extensions .cu .c .cc .h .hpp .cpp .cxx .cuh), each under a header with its file name::

    -----------------------------------
    main.cu
    -----------------------------------
    <file text>

Its ``numTokens`` column is the o200k token count of that text
(:func:`ridgeline.sources.tokens.count_tokens`). The kernel-only context uses the ingestion
front end (:mod:`ridgeline.sources`) to cut out the kernel's own definition.
"""

from __future__ import annotations

from pathlib import Path

from ridgeline.errors import InputFileError, KernelNotFoundError, MissingDependencyError
from ridgeline.sources.tokens import PAPER_CUTOFF, count_tokens, truncate_tokens

__all__ = [
    "SOURCE_EXTENSIONS",
    "SEPARATOR",
    "program_files",
    "program_context",
    "kernel_context",
    "ProgramContext",
    "build_context",
]

#: the file extensions the paper concatenated (OpenCL ``.cl`` is ridgeline's addition below)
SOURCE_EXTENSIONS = (".cu", ".c", ".cc", ".h", ".hpp", ".cpp", ".cxx", ".cuh")
SEPARATOR = "-" * 35


def program_files(
    program_dir: str | Path, extensions: tuple[str, ...] = SOURCE_EXTENSIONS
) -> list[Path]:
    """Source files of a program folder, recursively, sorted by path."""
    root = Path(program_dir)
    if not root.is_dir():
        raise InputFileError(f"program folder {str(root)!r} does not exist or is not a folder")
    exts = {e.lower() for e in extensions}
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in exts)


def _section(name: str, text: str) -> str:
    return f"{SEPARATOR}\n{name}\n{SEPARATOR}\n{text}\n\n"


def program_context(
    program_dir: str | Path,
    extensions: tuple[str, ...] = SOURCE_EXTENSIONS,
    max_tokens: int | None = None,
) -> str:
    """All source files of *program_dir* concatenated under file-name headers.

    Files are read as UTF-8 with undecodable bytes replaced (as the paper did). With
    *max_tokens* the text is cut to that many o200k tokens.
    """
    files = program_files(program_dir, extensions)
    if not files:
        raise InputFileError(
            f"program folder {str(program_dir)!r} has no source files with extensions "
            f"{list(extensions)}"
        )
    text = "".join(
        _section(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in files
    )
    return truncate_tokens(text, max_tokens) if max_tokens else text


def kernel_context(program_dir: str | Path, kernel: str, language: str | None = None) -> str:
    """The kernel alone under its file-name header: the front end's kernel-only extraction
    (the macros it uses, the functions it calls, then the kernel; see
    :func:`ridgeline.sources.load_program`). Needs libclang (``ridgeline[clang]``)."""
    try:
        from ridgeline.sources import get_kernel, load_program
    except ImportError as e:  # pragma: no cover - the package is part of ridgeline
        raise MissingDependencyError("kernel extraction (ridgeline.sources)",
                                     "pip install 'ridgeline[clang]'", str(e)) from None
    prog = load_program([str(program_dir)])
    k = get_kernel(prog, kernel)
    if language and k.language != language:
        raise KernelNotFoundError(f"{kernel} ({language})", [f"{k.name} ({k.language})"])
    text = k.extracted or k.text
    if not text.strip():
        raise KernelNotFoundError(kernel, [x.name for x in prog.kernels if x.text])
    return _section(Path(k.file).name, text)


class ProgramContext:
    """A program's context text with its token count and the paper's cutoff test."""

    def __init__(self, text: str, cutoff: int = PAPER_CUTOFF) -> None:
        self.text = text
        self.cutoff = cutoff
        self._tokens: int | None = None

    @property
    def num_tokens(self) -> int:
        if self._tokens is None:
            self._tokens = count_tokens(self.text)
        return self._tokens

    @property
    def over_cutoff(self) -> bool:
        return self.num_tokens > self.cutoff


def build_context(
    program_dir: str | Path, kernel: str | None = None, kind: str = "program"
) -> ProgramContext:
    """Context of kind "program" (whole folder) or "kernel" (the kernel's definition only)."""
    if kind == "program":
        return ProgramContext(program_context(program_dir))
    if kind == "kernel":
        if not kernel:
            raise KernelNotFoundError("", [])
        return ProgramContext(kernel_context(program_dir, kernel))
    from ridgeline.errors import UnknownNameError

    raise UnknownNameError("context kind", kind, ("program", "kernel"))
