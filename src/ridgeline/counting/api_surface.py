"""The documented CUDA surface the CPU runtime covers, as data, and the programs that check it.

``data/cuda_api/*.toml`` lists, group by group, what NVIDIA documents (type-casting and
integer intrinsics, synchronization and warp functions, atomics with their scopes, the
stream-ordered allocator and host memory, ``cuda_fp8.h``): each entry's name, argument and
return types and, where it has one, a sample call with its expected value (or a condition on
what the call left behind). :func:`render_program` writes one CUDA program per group that
calls every entry (in a kernel of one block of :data:`THREADS` threads, or in ``main`` for
host functions), checks the declared return type and signature at compile time and the value
at run time, and writes one line per entry; :func:`check_group` builds and runs it through
the counting toolchain (``count_run``) and reads the lines back. An entry that does not
compile is dropped and named, and the rest are built again."""

from __future__ import annotations

import re
import shutil
import tempfile
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ridgeline.counting._exec import program_output
from ridgeline.counting.api import count_run
from ridgeline.counting.base import ProgramRunError
from ridgeline.errors import UsageError

__all__ = ["ApiEntry", "ApiGroup", "EntryResult", "THREADS", "load_groups", "render_program",
           "check_group", "coverage_rows"]

#: threads of the checking block: two warps, so block-wide functions differ from warp ones
THREADS = 64
_KINDS = ("function", "constant", "type", "constructor", "operator")


@dataclass(frozen=True)
class ApiEntry:
    """One documented name (one overload: *params* tell them apart) and its sample."""

    name: str
    group: str
    kind: str = "function"
    returns: str = ""
    params: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    setup: str = ""
    call: str = ""
    expected: str = ""
    check: str = ""
    covered: bool = True
    note: str = ""

    @property
    def key(self) -> str:
        """The entry's name with its parameter types (unique within the surface)."""
        if self.kind in ("constant", "type"):
            return self.name
        return f"{self.name}({', '.join(self.params)})"

    @property
    def tested(self) -> bool:
        """Whether the entry has a sample to check (else only its declaration is)."""
        return bool(self.expected or self.check)


@dataclass(frozen=True)
class ApiGroup:
    name: str
    title: str
    source: str
    where: str  # "device": called in a kernel; "host": in main
    includes: tuple[str, ...] = ()
    entries: tuple[ApiEntry, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class EntryResult:
    entry: ApiEntry
    compiles: bool
    correct: bool
    detail: str = ""


def _data_dir() -> Path:
    return Path(str(resources.files("ridgeline") / "data" / "cuda_api"))


def _entries(group: str, raw: dict) -> list[ApiEntry]:
    kind = raw.get("kind", "function")
    if kind not in _KINDS:
        raise ValueError(f"cuda_api/{group}.toml: entry {raw.get('name')!r} has kind {kind!r}; "
                         f"one of {_KINDS}")
    base = {k: raw[k] for k in ("returns", "setup", "call", "expected", "check", "covered",
                                "note") if k in raw}
    out = []
    for scope in raw.get("scopes", [""]):
        out.append(ApiEntry(name=raw["name"] + scope, group=group, kind=kind,
                            params=tuple(raw.get("params", ())),
                            args=tuple(raw.get("args", ())), **base))
    return out


def load_groups(names: list[str] | None = None) -> list[ApiGroup]:
    """The groups of ``data/cuda_api`` (all, or those named), entries in file order; an
    entry with ``scopes`` stands for one entry per scope suffix."""
    groups = []
    for path in sorted(_data_dir().glob("*.toml")):
        data = tomllib.loads(path.read_text())
        name = data["group"]
        if names is not None and name not in names:
            continue
        entries = [e for raw in data.get("entry", []) for e in _entries(name, raw)]
        if data["where"] not in ("device", "host"):
            raise ValueError(f"{path.name}: where = {data['where']!r}; one of device, host")
        keys = [e.key for e in entries]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"{path.name}: entries listed twice: {dup}")
        groups.append(ApiGroup(name=name, title=data["title"], source=data["source"],
                               where=data["where"], includes=tuple(data.get("includes", ())),
                               entries=tuple(entries)))
    if names is not None:
        missing = sorted(set(names) - {g.name for g in groups})
        if missing:
            known = sorted(tomllib.loads(p.read_text())["group"]
                           for p in _data_dir().glob("*.toml"))
            raise UsageError(f"unknown CUDA API group(s) {missing}; one of {known}")
    return groups


_PRELUDE = """#include <cstdio>
#include <cstring>
#include <type_traits>
{includes}
template <class T> static inline bool __rlx_same(const T &a, const T &b) {{
  if constexpr (std::is_floating_point<T>::value) return a == b || (a != a && b != b);
  else if constexpr (std::is_integral<T>::value || std::is_enum<T>::value) return a == b;
  else return std::memcmp(&a, &b, sizeof(T)) == 0;
}}
template <class T> static inline double __rlx_num(const T &a) {{
  if constexpr (std::is_arithmetic<T>::value || std::is_enum<T>::value) return (double)a;
  else return 0.0;
}}
"""


def _entry_body(i: int, e: ApiEntry) -> list[str]:
    """The statements that call entry *i* and set ``good`` and ``val``."""
    lines = [f"  {{ /* {i}: {e.key} */",
             f"    unsigned long long *slot = scratch + ((size_t){i} * THREADS + tid) * 2;",
             "    (void)slot; bool good = true; double val = 0;"]
    if e.setup:
        lines.append(f"    {e.setup}")
    if e.kind == "constant":
        lines.append(f"    val = (double)({e.name}); good = (long long)({e.name}) == "
                     f"(long long)({e.expected});")
    elif e.kind == "type":
        lines.append(f"    good = sizeof({e.name}) > 0;")
    else:
        call = e.call or f"{e.name}({', '.join(e.args)})"
        if e.kind == "function":
            sig = f"{e.returns} (*)({', '.join(e.params)})"
            lines.append(f"    {{ {sig.replace('(*)', '(*sig)')} = &{e.name}; (void)sig; }}")
            lines.append(f"    static_assert(std::is_same<decltype({call}), {e.returns}>::value, "
                         f"\"{e.key}: return type\");")
        if e.returns == "void":
            lines.append(f"    {call};")
        else:
            lines.append(f"    {e.returns} r = {call}; (void)r; val = __rlx_num(r);")
            if e.expected:
                lines.append(f"    good = good && __rlx_same(r, ({e.returns})({e.expected}));")
    if e.check:
        lines.append(f"    good = good && ({e.check});")
    lines += [f"    ok[(size_t){i} * THREADS + tid] = good ? 1 : 0;",
              f"    got[(size_t){i} * THREADS + tid] = val;", "  }"]
    return lines


#: main(): run the checks, copy back, write one line per entry to argv[1]
_MAIN = """int main(int argc, char **argv) {{
  if (argc < 2) {{ fprintf(stderr, "usage: prog RESULTS\\n"); return 2; }}
  const size_t n = (size_t)ENTRIES * THREADS + 1;
  int *ok, *hok = (int *)malloc(sizeof(int) * n);
  double *got, *hgot = (double *)malloc(sizeof(double) * n);
  unsigned long long *scratch;
  cudaMalloc((void **)&ok, sizeof(int) * n);
  cudaMalloc((void **)&got, sizeof(double) * n);
  cudaMalloc((void **)&scratch, 16 * n);
  cudaMemset(ok, 0, sizeof(int) * n);
{run}
  cudaDeviceSynchronize();
  cudaMemcpy(hok, ok, sizeof(int) * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(hgot, got, sizeof(double) * n, cudaMemcpyDeviceToHost);
  FILE *f = fopen(argv[1], "w");
  if (!f) return 3;
  for (int i = 0; i < ENTRIES; i++) {{
    int bad = -1;
    for (int t = 0; t < {threads} && bad < 0; t++)
      if (!hok[(size_t)i * THREADS + t]) bad = t;
    int t = bad < 0 ? 0 : bad;
    fprintf(f, "%d %d %d %.17g\\n", i, bad < 0, t, hgot[(size_t)i * THREADS + t]);
  }}
  fclose(f);
  return 0;
}}
"""
#: the host group's checks run in main; a kernel still runs, as the counting run needs one
_RUN_HOST = """  run_host(ok, got, scratch);
  int *touch = nullptr;
  cudaMalloc((void **)&touch, sizeof(int) * 32);
  surface_touch<<<1, 32>>>(touch);
  cudaFree(touch);"""


def render_program(group: ApiGroup, entries: list[ApiEntry] | None = None
                   ) -> tuple[str, dict[int, int]]:
    """The CUDA program that checks *entries* (the group's covered ones by default), and the
    first source line of each entry's block (for naming an entry that does not compile). It
    takes the path of the file to write its results to: one line per entry, ``index ok
    thread value`` (the first thread whose check failed, or 0)."""
    entries = [e for e in group.entries if e.covered] if entries is None else entries
    includes = "\n".join(f"#include <{h}>" for h in group.includes)
    lines = _PRELUDE.format(includes=includes).splitlines()
    lines += [f"#define THREADS {THREADS}", f"#define ENTRIES {len(entries)}"]
    device = group.where == "device"
    if device:
        lines += [f"__global__ void surface_{group.name}(int *ok, double *got, "
                  "unsigned long long *scratch) {",
                  "  const unsigned tid = threadIdx.x, lane = tid % 32; (void)lane;"]
    else:
        lines += ["__global__ void surface_touch(int *p) { p[threadIdx.x] = (int)threadIdx.x; }",
                  "static void run_host(int *ok, double *got, unsigned long long *scratch) {",
                  "  const unsigned tid = 0;"]
    starts: dict[int, int] = {}
    for i, e in enumerate(entries):
        starts[i] = len(lines) + 1
        lines += _entry_body(i, e)
    lines.append("}")
    run = (f"  surface_{group.name}<<<1, THREADS>>>(ok, got, scratch);" if device
           else _RUN_HOST)
    main = _MAIN.format(run=run, threads=THREADS if device else 1)
    return "\n".join(lines) + "\n" + main, starts


_ERROR_LINE = re.compile(r"main\.cu:(\d+):\d+: error: (.*)")


def _failing_entry(message: str, starts: dict[int, int]) -> tuple[int, str] | None:
    """The entry whose block holds the first error line of a compile *message*."""
    m = _ERROR_LINE.search(message)
    if not m:
        return None
    line = int(m.group(1))
    before = [i for i, s in starts.items() if s <= line]
    return (max(before), m.group(2).strip()) if before else None


def _build_and_run(source: str, workdir: Path, timeout: float) -> list[tuple[int, bool, str]]:
    prog = workdir / "surface-cuda"
    if prog.exists():
        shutil.rmtree(prog)
    prog.mkdir(parents=True)
    (prog / "main.cu").write_text(source)
    runs = workdir / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    # written in its working directory: the sandbox lets it write nowhere else
    count_run(prog, ["results.txt"], skip_after=False, code_size=False, timeout=timeout,
              backend="cuda", workdir=runs)
    out = program_output(runs, prog, "results.txt")
    if not out.exists():
        raise ProgramRunError(prog.name, "crash", "the checking program wrote no results")
    rows = []
    for ln in out.read_text().splitlines():
        i, good, thread, value = ln.split()
        rows.append((int(i), good == "1", f"thread {thread}: got {value}"))
    return rows


def check_group(group: ApiGroup, workdir: Path | None = None, timeout: float = 300.0,
                max_drops: int = 20) -> list[EntryResult]:
    """Build and run *group*'s checking program; one result per covered entry. An entry
    that does not compile (the first error falls in its block) is taken out, with the
    compiler's message, and the others are built again (at most *max_drops* times)."""
    covered = [e for e in group.entries if e.covered]
    todo = list(range(len(covered)))  # positions in *covered* still in the program
    results: dict[int, EntryResult] = {}
    tmp = Path(tempfile.mkdtemp(prefix=f"rl-surface-{group.name}-")) if workdir is None \
        else workdir
    try:
        for _ in range(max_drops + 1):
            source, starts = render_program(group, [covered[k] for k in todo])
            try:
                rows = _build_and_run(source, tmp, timeout)
                break
            except ProgramRunError as err:
                hit = _failing_entry(str(err), starts) if err.cause == "compile" else None
                if hit is None:
                    raise
                k = todo.pop(hit[0])
                results[k] = EntryResult(covered[k], compiles=False, correct=False,
                                         detail=hit[1])
        else:
            raise ProgramRunError(group.name, "compile",
                                  f"more than {max_drops} entries do not compile")
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    for i, good, detail in rows:
        k = todo[i]
        results[k] = EntryResult(covered[k], compiles=True, correct=good,
                                 detail="" if good else detail)
    return [results[k] for k in range(len(covered))]


def coverage_rows(groups: list[ApiGroup], results: dict[str, list[EntryResult]]
                  ) -> list[dict[str, int | str]]:
    """Per group: entries documented (listed), covered (the runtime declares them and they
    compile), with a sample checked, and correct."""
    rows: list[dict[str, int | str]] = []
    for g in groups:
        res = results.get(g.name, [])
        rows.append({
            "group": g.name, "documented": len(g.entries),
            "covered": sum(r.compiles for r in res),
            "with sample": sum(r.entry.tested for r in res if r.compiles),
            "correct": sum(r.correct for r in res),
        })
    return rows
