"""Find a HeCBench-style program's sources, defines and default arguments."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ridgeline.sources.build import BuildFlags, backend_sources, cpu_std, read_compile_commands
from ridgeline.sources.makefile import active_lines as _active_lines
from ridgeline.sources.makefile import defines_in, includes_in, std_in

__all__ = ["sources_of", "library_sources", "makefile_defines", "makefile_fast_math",
           "makefile_no_fmad", "makefile_host_openmp",
           "makefile_includes", "makefile_run_args", "makefile_run_command",
           "own_command_args", "run_script_args", "default_run_args",
           "makefile_std", "makefile_active_lines", "makefile_mentioned_sources",
           "makefile_cxx_driver", "sibling_ports", "compile_commands_defines",
           "run_build_flags", "compile_commands_fast_math"]

_SRC_EXT = {"omp": (".cpp", ".c", ".cc", ".cxx"), "cuda": (".cu", ".cpp", ".c", ".cc")}


def _makefile(program_dir: Path) -> str:
    """The folder's makefile under any of the names make reads, in the order the build
    flags take them (``BuildFlags.from_makefile``); "" when it has none."""
    for name in ("Makefile", "makefile", "GNUmakefile"):
        mk = program_dir / name
        if mk.is_file():
            return mk.read_text(errors="replace")
    return ""


def sources_of(program_dir: Path, model: str) -> list[Path]:
    """Translation units: the Makefile's ``source =`` list when present, else every source
    file of the model's extensions in the folder (of a folder holding several backends, the
    model's: :func:`ridgeline.sources.build.backend_sources`), and after them the sources of
    a static library the link rule builds in a subfolder (:func:`library_sources`)."""
    mk = _makefile(program_dir)
    m = re.search(r"^\s*source\s*[:+]?=\s*((?:.*\\\n)*.*)$", mk, re.M)
    if m:
        names = m.group(1).replace("\\\n", " ").split()
        files = [program_dir / n for n in names if "$" not in n]
        if files and all(f.exists() for f in files):
            return files
    own = _from_objects(program_dir, mk, model) or backend_sources(program_dir, sorted(
        p for p in program_dir.iterdir() if p.suffix in _SRC_EXT[model] and p.is_file()), model)
    return (own or _from_source_globs(program_dir, model)) + library_sources(program_dir, model)


_WILDCARD = re.compile(r"\$\(wildcard\s+([^)]*)\)")
_FIND = re.compile(r"\$\(shell\s+find\s+(\S+)\s+-name\s+['\"]?([^'\"\s)]+)")


def _from_source_globs(program_dir: Path, model: str) -> list[Path]:
    """Sources in subfolders, for a program without any in its own folder, as the Makefile
    gathers them: ``$(wildcard $(SRC_DIR)/*.cu)`` (ans: ``src/``) or ``$(shell find
    $(SRC_PATH) -name '*.cpp')`` (minimap2: ``src/`` and ``device/``), in Makefile order,
    each list sorted like ``make`` sorts it."""
    out: list[Path] = []
    root = program_dir.resolve()
    for line in makefile_active_lines(program_dir):
        found = [sorted(root.glob(g)) for m in _WILDCARD.finditer(line) for g in m.group(1).split()]
        found += [sorted((root / m.group(1)).rglob(m.group(2))) for m in _FIND.finditer(line)
                  if (root / m.group(1)).is_dir()]
        for p in (q for f in found for q in f):
            if p.suffix in _SRC_EXT[model] and p.is_file() and p not in out:
                out.append(p)
    return out


#: `targets: prerequisites` (the targets read up to the first `:` or `=`, their trailing blanks
#: taken off by the caller's split: a lazy `[^:=]*?\s*:` retried the blanks at every step)
_RULE = re.compile(r"^([^\s:=#][^:=]*+):(?!=)(.*)$")


def library_sources(program_dir: Path, model: str) -> list[Path]:
    """Sources of the static libraries a link rule takes from a subfolder with its own
    makefile (leukocyte's ``$(MATRIX_DIR)/meschach.a``, built there by ``make all``): the
    objects that the ``ar`` recipes of the goals the library's rule makes (else of that
    makefile's default goal) put into the archive, each from the source of its name beside
    it. Empty when the Makefile links no such library."""
    rules = _rules(makefile_active_lines(program_dir))
    out: list[Path] = []
    for target, (deps, _) in rules.items():
        if target.endswith((".a", ".o")):
            continue
        for dep in deps:
            lib = (program_dir / dep).resolve()
            if not dep.endswith(".a") or lib.parent == program_dir.resolve():
                continue
            goals = [w for cmd in rules.get(dep, ([], []))[1] for w in _make_goals(cmd)]
            out += [p for p in _archive_sources(lib, goals, model) if p not in out]
    return out


def _rules(lines: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """target -> (prerequisites, recipe commands) of expanded makefile lines, in order."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current: list[str] = []
    for line in lines:
        if line.startswith("\t"):
            for t in current:
                rules[t][1].extend(c.strip() for c in line.split(";") if c.strip())
            continue
        m = _RULE.match(line)
        if not m:
            if line.strip():
                current = []
            continue
        current = m.group(1).split()
        for t in current:
            rules.setdefault(t, ([], []))[0].extend(m.group(2).split())
    return rules


def _make_goals(cmd: str) -> list[str]:
    words = cmd.split()
    if not words or Path(words[0]).name not in ("make", "$(MAKE)", "gmake"):
        return []
    return [w for w in words[1:] if not w.startswith("-") and "=" not in w
            and not w.startswith("clean")]


def _archive_sources(lib: Path, goals: list[str], model: str) -> list[Path]:
    mk = next((lib.parent / n for n in ("Makefile", "makefile", "GNUmakefile")
               if (lib.parent / n).is_file()), None)
    if mk is None:
        return []
    rules = _rules(_active_lines(mk.read_text(errors="replace")))
    todo = list(goals) or [next((t for t in rules if not t.startswith(".")), "")]
    seen: set[str] = set()
    out: list[Path] = []
    while todo:
        t = todo.pop(0)
        if t in seen or t not in rules:
            continue
        seen.add(t)
        deps, recipe = rules[t]
        todo += deps
        for cmd in recipe:
            words = cmd.split()
            if len(words) < 3 or words[0] != "ar" or Path(words[2]).name != lib.name:
                continue
            for o in words[3:]:
                src = next((lib.parent / (o[:-2] + e) for e in _SRC_EXT[model]
                            if o.endswith(".o") and (lib.parent / (o[:-2] + e)).is_file()),
                           None)
                if src is not None and src.resolve() not in out:
                    out.append(src.resolve())
    return out


def _from_objects(program_dir: Path, mk: str, model: str) -> list[Path]:
    """Sources behind ``obj = a.o b.o`` (or, without it, the objects the program's link rule
    ``$(program): a.o b.o`` names) through rules ``a.o: path/a.cpp ...``. A rule's source may
    be of another model's kind: OpenMP ports compile their CUDA sibling's ``.cu`` files with
    ``-x c++`` (xsbench-omp), and the counting front end reads every file as C++ anyway."""
    m = re.search(r"^\s*obj\s*[:+]?=\s*(.*)$", mk, re.M)
    if m and "$" not in m.group(1):
        objs = m.group(1).split()
    else:
        link = re.search(r"^\$[({]program[)}]\s*:([^=\n]*)$", mk, re.M)
        if link and "$" not in link.group(1):
            objs = link.group(1).split()
        else:
            objs = _default_goal_objects(program_dir)
        if not objs:
            return []
    any_src = _SRC_EXT["cuda"] + _SRC_EXT["omp"]
    # rules with their variables expanded (boxfilter-cuda: ``shrUtils.o :
    # $(SPATH)/shrUtils.cpp`` with ``SPATH = ../boxfilter-sycl``)
    rules = "\n".join(_active_lines(mk))
    out: list[Path] = []
    for o in objs:
        if not o.endswith(".o"):
            continue
        stem = o[:-2]
        rule = re.search(rf"^{re.escape(o)}\s*:\s*(\S+)", rules, re.M)
        cand = [program_dir / rule.group(1)] if rule else []
        cand += [program_dir / f"{stem}{ext}" for ext in _SRC_EXT[model]]
        hit = next((c for c in cand if c.suffix in any_src and c.is_file()), None)
        if hit is None:
            return []
        out.append(hit.resolve())
    return out


def _default_goal_objects(program_dir: Path) -> list[str]:
    """The objects the Makefile's first rule (make's default goal) links, when that rule
    names its target itself and lists objects over continued lines (heartwall-cuda's
    ``heartwall: ./main.o ./kernel/kernel.o ./util/timer/timer.o ...``)."""
    for target, (deps, _) in _rules(makefile_active_lines(program_dir)).items():
        if target.startswith(".") or "%" in target:
            continue
        if target.endswith(".o"):
            return []
        return [d for d in deps if d.endswith(".o")]
    return []


def makefile_active_lines(program_dir: Path) -> list[str]:
    """The Makefile's lines outside false ``ifeq/ifneq/ifdef/ifndef`` branches, evaluated
    with the Makefile's own variable defaults (``DEBUG = no`` keeps ``-DDEBUG`` out)."""
    return _active_lines(_makefile(program_dir))


def makefile_defines(program_dir: Path) -> list[str]:
    """``-DNAME[=VALUE]`` flags that appear in the Makefile's active lines."""
    return defines_in(makefile_active_lines(program_dir))


def makefile_fast_math(program_dir: Path) -> bool:
    """Whether the Makefile has nvcc build with approximate math (``-use_fast_math`` in its
    active lines). OpenMP ports' ``-ffast-math`` is left out: their measured FLOPs show the
    offload compiler kept the accurate device math (aidw-omp, minkowski-omp)."""
    text = "\n".join(makefile_active_lines(program_dir))
    return re.search(r"(?<![\w-])--?use_fast_math\b", text) is not None


def makefile_no_fmad(program_dir: Path) -> bool:
    """Whether the Makefile's active lines turn nvcc's multiply-add fusion off
    (``--fmad=false``; a commented-out flag, as kalman's, does not count)."""
    text = "\n".join(makefile_active_lines(program_dir))
    return re.search(r"(?<![\w-])--?fmad[= ]false\b", text) is not None


def makefile_host_openmp(program_dir: Path) -> bool:
    """Whether the Makefile's active lines build the host code with OpenMP (``-fopenmp``,
    for nvcc behind ``-Xcompiler``): the program may call the OpenMP runtime."""
    text = "\n".join(makefile_active_lines(program_dir))
    return re.search(r"(?<![\w-])-fopenmp\b", text) is not None


#: nvcc front-end switches a program's Makefile may need for its device code to compile
_NVCC_LANGUAGE_FLAGS = re.compile(
    r"(?<![\w-])(--?(?:expt-relaxed-constexpr|expt-extended-lambda|extended-lambda))\b")


def makefile_nvcc_flags(program_dir: Path) -> list[str]:
    """The language switches among the Makefile's nvcc flags (relaxed constexpr, extended
    lambdas), each once."""
    out: list[str] = []
    for line in makefile_active_lines(program_dir):
        for m in _NVCC_LANGUAGE_FLAGS.finditer(line):
            flag = "--" + m.group(1).lstrip("-")
            if flag not in out:
                out.append(flag)
    return out


def makefile_includes(program_dir: Path) -> list[Path]:
    """``-I DIR`` folders named in the Makefile, resolved against the program folder."""
    return includes_in(makefile_active_lines(program_dir), program_dir)


def makefile_std(program_dir: Path) -> str:
    return cpu_std(std_in(makefile_active_lines(program_dir)))


def makefile_run_args(program_dir: Path) -> list[str]:
    """Arguments of the Makefile's ``run`` target (:func:`makefile_run_command`; none when
    it has no command)."""
    return makefile_run_command(program_dir) or []


def makefile_run_command(program_dir: Path) -> list[str] | None:
    """Arguments of the Makefile's ``run`` target: its first command that starts a program of
    the folder (``./$(program) 100 7``, ``./hybridsort r``, ``./$(OBJ_DIR)/$(EXEC_NAME) 10``;
    see :func:`own_command_args`), read from the active lines with the Makefile's variables
    expanded (``$(src)/data/in.img``) and its comments dropped; None when it has none."""
    for cmd in _recipe(makefile_active_lines(program_dir), "run"):
        args = own_command_args(cmd)
        if args is not None:
            return args
    return None


def _recipe(lines: list[str], target: str) -> list[str]:
    """The recipe lines of *target*'s rules among expanded makefile lines (whole lines: a
    quoted argument may hold a ``;``)."""
    out: list[str] = []
    mine = False
    for line in lines:
        if line.startswith("\t"):
            if mine and line.strip():
                out.append(line.strip())
            continue
        m = _RULE.match(line)
        if m:
            mine = target in m.group(1).split()
        elif line.strip():
            mine = False
    return out


#: shell scripts a suite ships beside a program to run it with its usual arguments
RUN_SCRIPTS = ("run", "run.sh")
#: shell control operators and redirections, as shlex's punctuation tokens
_SHELL_OPS = set("();<>|&")
#: the operators between two commands
_SEPARATORS = {"&&", "||", ";", "|", "&", "|&", "(", ")", ";;"}


def own_command_args(line: str) -> list[str] | None:
    """The arguments of the first command in the shell *line* that starts an executable of
    its own folder (a word ``./NAME``, after any environment assignments or launcher: ``N=1
    ./hotspot 512 in``, ``mpirun -n 4 ./main 10``), up to a redirection, pipe or command
    separator; None when no command does, or when an earlier one changes the folder
    (``cd data && ../main``)."""
    text = re.sub(r"(?<=\s)[0-9]+(?=[<>])", "", line)  # 2>err: a redirection, not "2"
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    try:
        tokens = list(lex)
    except ValueError:
        return None
    segments: list[list[str]] = [[]]
    for t in tokens:
        if t in _SEPARATORS:
            segments.append([])
        else:
            segments[-1].append(t)
    for seg in segments:
        if seg and seg[0] == "cd":
            return None
        at = next((j for j, w in enumerate(seg) if w.startswith("./") and len(w) > 2), None)
        if at is not None:
            args = []
            for w in seg[at + 1:]:
                if set(w) <= _SHELL_OPS:  # a redirection: the rest is its file
                    break
                args.append(w)
            return args
    return None


def run_script_args(program_dir: Path) -> list[str] | None:
    """Arguments of the folder's run script (:data:`RUN_SCRIPTS`): its first command that
    starts an executable of the folder itself (:func:`own_command_args`); None when no
    script has one."""
    for name in RUN_SCRIPTS:
        script = program_dir / name
        if not script.is_file() or script.stat().st_size > 64 << 10:
            continue
        for line in script.read_text(errors="replace").splitlines():
            args = own_command_args(line)
            if args is not None:
                return args
    return None


def default_run_args(program_dir: Path) -> list[str]:
    """The arguments a program runs with when none are given: the Makefile's ``run`` target
    (:func:`makefile_run_command`), else its run script's (:func:`run_script_args`), else
    none."""
    cmd = makefile_run_command(program_dir)
    if cmd is None:
        cmd = run_script_args(program_dir)
    return cmd or []


def makefile_mentioned_sources(program_dir: Path, model: str) -> list[Path]:
    """Every existing source file the Makefile's active lines name (rules and recipes:
    ``./util/timer/timer.c``, ``$(SPATH)/shrUtils.cpp``), in order, resolved."""
    out: list[Path] = []
    pat = re.compile(r"[\w./+-]+(?:" + "|".join(re.escape(e) for e in _SRC_EXT[model]) +
                     r")(?![\w.])")
    for line in makefile_active_lines(program_dir):
        for m in pat.finditer(line):
            p = (program_dir / m.group(0)).resolve()
            if p.is_file() and p not in out:
                out.append(p)
    return out


def makefile_cxx_driver(program_dir: Path) -> bool:
    """The Makefile's compiler is a C++ driver (icpx, clang++, g++, nvc++ ...), which
    compiles ``.c`` files as C++."""
    for line in makefile_active_lines(program_dir):
        m = re.match(r"^\s*CC\s*[?:]?=\s*(\S+)", line)
        if m:
            return bool(re.search(r"\+\+|^icpc$|^icpx$|^dpcpp$|^hipcc$", Path(m.group(1)).name))
    return False


def sibling_ports(program_dir: Path, models: tuple[str, ...]) -> list[Path]:
    """The existing ``<stem>-<model>`` folders beside *program_dir* (``x-cuda`` -> ``x-omp``):
    HeCBench ports of one benchmark share headers through symbolic links an export may drop."""
    stem = program_dir.name.rsplit("-", 1)[0]
    out = []
    for m in models:
        d = program_dir.parent / f"{stem}-{m}"
        if d.is_dir() and d != program_dir:
            out.append(d)
    return out


def compile_commands_defines(path: Path, program: str) -> list[str] | None:
    """The ``-D`` definitions a ``compile_commands.json`` (a CMake build's export) gives the
    sources of *program* (the folder name: entries whose file lies in a folder of that name),
    in order, each once; None when the file has no entry for it. Compiler-reserved names
    (``__NVCC__``, ``__STRICT_ANSI__``) are left out: they describe the GPU compiler, not the
    program's configuration."""
    mine = [e for e in read_compile_commands(path) if program in Path(e["file"]).parts]
    if not mine:
        return None
    out: list[str] = []
    for e in mine:
        flags = BuildFlags.from_command(e["arguments"], Path(e["directory"]))
        out += [d for d in flags.defines if d not in out]
    return out


def run_build_flags(program_dir: Path, model: str, defines: list[str] | None = None,
                    add_defines: Sequence[str] = (), includes: Sequence[Path] = (),
                    ) -> BuildFlags:
    """The flags of a CPU build of *program_dir* for *model*: its Makefile's and the model's
    make fragment's, with *defines* (a measured build's, e.g. from a compile_commands.json)
    in place of their definitions when given, then *add_defines* and *includes* (the command
    line's) after them."""
    build = BuildFlags.from_makefile(program_dir, model)
    if defines is not None:
        build = replace(build, defines=tuple(defines))
    return build.merge(BuildFlags(tuple(add_defines), tuple(includes)))


def compile_commands_fast_math(path: Path, program: str) -> bool:
    """Whether a ``compile_commands.json`` builds *program*'s sources (as in
    :func:`compile_commands_defines`) with nvcc's approximate math (``-use_fast_math``)."""
    return any(program in Path(e["file"]).parts
               and any(re.fullmatch(r"--?use_fast_math", a) for a in e["arguments"])
               for e in read_compile_commands(path))
