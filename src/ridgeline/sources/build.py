"""How a program is built, read in one place for every command: the preprocessor
definitions, include folders and language standard its Makefile (and the make fragment of
the backend asked for), a CMake ``compile_commands.json`` and the command line give, and which
sources belong to the backend when one folder holds several (CUDA, OpenMP, OpenACC, SYCL ...
side by side, each with its own ``*.make`` fragment)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ridgeline.errors import UsageError
from ridgeline.sources.makefile import active_lines, defines_in, includes_in, std_in

__all__ = ["BuildFlags", "backend_of", "backend_sources", "cpu_std", "make_fragment",
           "read_compile_commands", "KERNEL_MODELS", "ProgramBuild"]

log = logging.getLogger(__name__)

#: what marks a source file as written for one programming model, tried in order (HIP
#: sources use CUDA's kernel syntax too, so HIP comes first)
_MARKS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pat)) for name, pat in (
        ("hip", r"#\s*include\s*[<\"]hip/|\bhipLaunchKernelGGL\b|\bhipMalloc\b"),
        ("sycl", r"#\s*include\s*[<\"](?:CL/)?sycl|\bsycl::"),
        ("kokkos", r"#\s*include\s*[<\"]Kokkos|\bKokkos::"),
        ("raja", r"#\s*include\s*[<\"]RAJA|\bRAJA::"),
        ("acc", r"#\s*pragma\s+acc\b"),
        ("cuda", r"__global__|<<<"),
        ("omp", r"#\s*pragma\s+omp\s+target\b"),
        ("opencl", r"\bclEnqueueNDRangeKernel\b|\bclCreateProgramWithSource\b"),
        ("thrust", r"\bthrust::"),
        ("tbb", r"\btbb::"),
        ("stdpar", r"\bstd::execution::"),
    ))
#: models whose sources, two or more in one folder, make it a multi-backend folder
KERNEL_MODELS = frozenset({"cuda", "hip", "omp", "acc", "sycl", "kokkos", "raja", "opencl"})
#: models one build can hold together (a folder of both is not a multi-backend one)
_FAMILY = {"hip": "cuda"}
#: the words a backend's make fragment is named by (``CUDA.make``, ``Makefile.openmp``)
_FRAGMENT_NAMES = {"cuda": ("cuda", "nvcc"), "omp": ("openmp", "omp", "omptarget",
                                                     "openmptarget", "ompoffload"),
                   "opencl": ("opencl", "ocl")}
_SOURCE_EXT = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")


def cpu_std(std: str | None) -> str:
    """The C++ standard of the CPU build (C++14 at least: the runtime headers need it)."""
    std = std or "c++14"
    return "c++14" if std in ("c++11", "c++03", "c++98", "c++0x") else std


def backend_of(text: str) -> str | None:
    """The programming model a source file is written for (``cuda``, ``omp`` for OpenMP
    target offload, ``acc``, ``sycl``, ``hip``, ``kokkos`` ...), or None for code any backend
    shares (a driver, helpers)."""
    return next((name for name, pat in _MARKS if pat.search(text)), None)


def make_fragment(program_dir: Path, model: str) -> Path | None:
    """The make fragment of *model* beside the program's Makefile (``CUDA.make``,
    ``OpenMP.make``, ``Makefile.cuda``, ``omp.mk``), or None."""
    words = _FRAGMENT_NAMES.get(model, (model,))
    for p in sorted(program_dir.iterdir()) if program_dir.is_dir() else []:
        low = p.name.lower()
        if not p.is_file() or low in ("makefile", "gnumakefile"):
            continue
        if low.endswith((".make", ".mk")):
            key = low.rsplit(".", 1)[0]
        elif low.startswith("makefile."):
            key = low.split(".", 1)[1]
        else:
            continue
        if re.sub(r"[^a-z0-9]", "", key) in words:
            return p
    return None


def _fragment_sources(fragment: Path) -> list[Path]:
    """Existing sources a fragment's rules and recipes name, in order."""
    out: list[Path] = []
    pat = re.compile(r"[\w./+-]+(?:" + "|".join(re.escape(e) for e in _SOURCE_EXT) +
                     r")(?![\w.])")
    for line in active_lines(fragment.read_text(errors="replace")):
        for m in pat.finditer(line):
            p = (fragment.parent / m.group(0)).resolve()
            if p.is_file() and p not in out:
                out.append(p)
    return out


def backend_sources(program_dir: Path, files: Sequence[Path], model: str) -> list[Path]:
    """Of a folder's translation units *files*, those a build of *model* compiles. A folder
    whose sources are written for several models: the sources the model's make fragment
    names when it names any, else the model's own files and the shared ones (no model's
    marks). Other folders: *files* unchanged."""
    marks = {}
    for f in files:
        try:
            marks[f] = backend_of(f.read_text(errors="replace"))
        except OSError:
            marks[f] = None
    # HIP sources keep CUDA's kernel syntax: a HIP port's kernel files read as CUDA
    kinds = {_FAMILY.get(m, m) for m in marks.values() if m in KERNEL_MODELS}
    if len(kinds) < 2:
        return list(files)
    frag = make_fragment(program_dir, model)
    named = _fragment_sources(frag) if frag else []
    resolved = {f.resolve(): f for f in files}
    if named:
        picked = [resolved.get(p, p) for p in named]
        log.info("%s: several backends (%s); %s names the %s sources %s", program_dir.name,
                 ", ".join(sorted(kinds)), frag.name if frag else "", model,
                 ", ".join(p.name for p in picked))
        return picked
    picked = [f for f in files if marks[f] in (None, model)]
    log.info("%s: several backends (%s); the %s build takes %s", program_dir.name,
             ", ".join(sorted(kinds)), model, ", ".join(p.name for p in picked))
    return picked


@dataclass(frozen=True)
class BuildFlags:
    """Preprocessor definitions (``NAME`` or ``NAME=VALUE``), include folders, C++ standard
    (``c++17``; None: the compiler's) and source language (``cuda``, ``c++``, ``c``; None:
    by extension) of a build, with where they came from."""

    defines: tuple[str, ...] = ()
    includes: tuple[Path, ...] = ()
    std: str | None = None
    lang: str | None = None
    origin: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def from_cli(cls, defines: Iterable[str] | None = None,
                 includes: Iterable[str | Path] | None = None) -> BuildFlags:
        """``-D NAME[=VALUE]`` and ``-I DIR`` given on the command line."""
        defs, incs = tuple(defines or ()), tuple(Path(i).resolve() for i in includes or ())
        for d in defs:
            if not re.match(r"^[A-Za-z_]\w*(=.*)?$", d):
                raise UsageError(f"-D/--define: {d!r} is not NAME or NAME=VALUE (a C "
                                 "identifier, then optionally = and a value)")
        for i in incs:
            if not i.is_dir():
                raise UsageError(f"-I/--include: {str(i)!r} is not a folder")
        return cls(defs, incs, origin=("command line",) if defs or incs else ())

    @classmethod
    def from_makefile(cls, program_dir: Path, model: str | None = None) -> BuildFlags:
        """The flags of the folder's Makefile and, for *model*, of its make fragment
        (:func:`make_fragment`); empty when there is neither."""
        files = [program_dir / n for n in ("Makefile", "makefile", "GNUmakefile")
                 if (program_dir / n).is_file()][:1]
        frag = make_fragment(program_dir, model) if model else None
        if frag is not None:
            files.append(frag)
        lines = [ln for f in files for ln in active_lines(f.read_text(errors="replace"))]
        return cls(tuple(defines_in(lines)), tuple(includes_in(lines, program_dir)),
                   std_in(lines), origin=tuple(f.name for f in files))

    @classmethod
    def from_command(cls, args: Sequence[str], directory: Path) -> BuildFlags:
        """The flags of one compiler command line (a ``compile_commands.json`` entry).
        Compiler-reserved names (``__NVCC__``) are left out: they describe the compiler."""
        defs: list[str] = []
        incs: list[Path] = []
        std = lang = None
        it = iter(range(len(args)))
        for i in it:
            a = args[i]
            nxt = args[i + 1] if i + 1 < len(args) else ""
            if a in ("-D", "-I", "-x", "-isystem"):
                next(it, None)
                val = nxt
            elif a.startswith(("-D", "-I", "-x")) and len(a) > 2:
                val = a[2:]
            elif a.startswith("-std="):
                std = a[5:]
                continue
            else:
                continue
            flag = a[:2] if a.startswith("-") and a != "-isystem" else a
            if flag == "-D" and val and not val.startswith("__") and val not in defs:
                defs.append(val)
            elif flag in ("-I", "-isystem") and val:
                p = (directory / val).resolve()
                if p not in incs:
                    incs.append(p)
            elif flag == "-x":
                lang = val
        return cls(tuple(defs), tuple(incs), std, lang)

    @classmethod
    def from_compile_commands(cls, path: Path, program_dir: Path,
                              sources: Sequence[Path]) -> BuildFlags | None:
        """The flags a ``compile_commands.json`` gives *sources* of *program_dir*: each
        source's entry (the same file, or one of its name in a folder named like the program,
        for a build made elsewhere; several entries for one source: the first, logged), else
        every entry of a file in such a folder. None when the file has no entry for the
        program."""
        entries = read_compile_commands(path)
        name = program_dir.resolve().name
        mine = [e for e in entries if name in Path(e["file"]).parts
                or Path(e["file"]).resolve().is_relative_to(program_dir.resolve())]
        if not mine:
            return None
        picked: list[dict[str, Any]] = []
        for s in sources:
            hits = [e for e in mine if Path(e["file"]).name == s.name and (
                Path(e["file"]).resolve() == s.resolve() or name in Path(e["file"]).parts)]
            if len(hits) > 1:
                log.info("%s: %d entries for %s; the first is used", path, len(hits), s.name)
            picked += hits[:1]
        out = cls(origin=(str(path),))
        for e in picked or mine:
            out = out.merge(cls.from_command(e["arguments"], Path(e["directory"])))
        return replace(out, origin=(str(path),))

    def merge(self, other: BuildFlags) -> BuildFlags:
        """*self* with *other*'s flags after it: a definition of the same name replaced, include
        folders appended, standard and language taken from *other* when it has them."""
        names = {d.split("=", 1)[0] for d in other.defines}
        defs = tuple(d for d in self.defines if d.split("=", 1)[0] not in names) + other.defines
        incs = self.includes + tuple(i for i in other.includes if i not in self.includes)
        return BuildFlags(defs, incs, other.std or self.std, other.lang or self.lang,
                          self.origin + tuple(o for o in other.origin
                                              if o not in self.origin))


def read_compile_commands(path: Path) -> list[dict[str, Any]]:
    """The entries of a ``compile_commands.json``, each with ``file``, ``directory`` and
    ``arguments`` (split from ``command`` when that is what it has)."""
    try:
        entries = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise UsageError(f"--compile-commands: {path}: not a readable compile_commands.json "
                         f"({err})") from err
    if not isinstance(entries, list):
        raise UsageError(f"--compile-commands: {path}: a compile_commands.json holds a list "
                         f"of entries, got {type(entries).__name__}")
    out = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or "file" not in e:
            raise UsageError(f"--compile-commands: {path}: entry {i} has no 'file' "
                             "(entries are objects with file, directory, command/arguments)")
        args = e.get("arguments")
        if not isinstance(args, list):
            try:
                args = shlex.split(str(e.get("command", "")))
            except ValueError:
                args = str(e.get("command", "")).split()
        d = Path(str(e.get("directory") or Path(str(path)).parent))
        f = Path(str(e["file"]))
        out.append({"file": str(f if f.is_absolute() else d / f), "directory": str(d),
                    "arguments": [str(a) for a in args]})
    return out


@dataclass(frozen=True)
class ProgramBuild:
    """What the user said about a build: ``-D``/``-I`` of the command line (*cli*) and a
    ``compile_commands.json`` (*compile_commands*), to join with what each program folder's
    makefiles say. One object serves the source front ends and the CPU build alike."""

    cli: BuildFlags = BuildFlags()
    compile_commands: Path | None = None

    @classmethod
    def from_cli(cls, defines: Iterable[str] | None = None,
                 includes: Iterable[str | Path] | None = None,
                 compile_commands: str | Path | None = None) -> ProgramBuild:
        cc = Path(compile_commands) if compile_commands else None
        if cc is not None:
            read_compile_commands(cc)  # a wrong file is refused before any work
        return cls(BuildFlags.from_cli(defines, includes), cc)

    def measured(self, program_dir: Path, sources: Sequence[Path]) -> BuildFlags | None:
        """The compile_commands.json flags of *program_dir*'s *sources*, or None (no file, or
        no entry for the program)."""
        if self.compile_commands is None:
            return None
        return BuildFlags.from_compile_commands(self.compile_commands, program_dir, sources)

    def for_model(self, program_dir: Path, model: str | None,
                  sources: Sequence[Path] = ()) -> BuildFlags:
        """Flags of a build of *program_dir* for *model*: the compile_commands.json entries
        of its sources when there are any, else its Makefile and the model's make fragment;
        then the command line's."""
        base = self.measured(program_dir, sources) or BuildFlags.from_makefile(program_dir,
                                                                               model)
        return base.merge(self.cli)

    def for_file(self, path: Path, language: str | None) -> BuildFlags:
        """Flags a source front end parses *path* with (its folder's build for the file's
        language: ``cuda``, ``omp``, ``opencl``)."""
        folder = path.parent
        return self.for_model(folder, language, [path])

    def cache_key(self) -> list[Any]:
        """What of this build changes a counting run (for cache keys)."""
        cc = self.compile_commands
        digest = None if cc is None else hashlib.sha256(cc.read_bytes()).hexdigest()[:16]
        return [list(self.cli.defines), [str(i) for i in self.cli.includes], digest]
