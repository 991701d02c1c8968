"""Public OpenCL suites built and run unmodified on the local OpenCL device (PoCL), every
kernel launch and transfer timed with events by the trace interposer
(``ridgeline.opencl.trace``): the measuring half of LLMPerf's public-suite protocol.

Sources are fetched snapshots exported into the git-ignored ``external/suites/`` (never
committed): Rodinia 3.1 with its data (github:Munksgaard/rodinia: opencl/, data/, common/),
PolyBench/GPU (github:cavazos-lab/PolyBench-ACC: OpenCL/) and SHOC
(github:vetter/shoc: the whole tree), e.g.

    scripts/export-snapshot.sh /work/.mirror/Munksgaard+rodinia/repo opencl external/suites/rodinia

One rule per suite, the same for every program of it (no per-program flags or inputs):

* build: the program's own Makefile (SHOC: its configure, then make), with the suite's
  OpenCL include/library variables pointed at the system's ICD loader, and a compiler
  wrapper that links with ``--no-as-needed`` (older Makefiles put ``-lOpenCL`` before the
  sources, which a linker dropping unneeded libraries discards) and compiles with
  ``-fcommon`` (GCC's default before 10: globals defined in two files); object files and
  archives shipped in the snapshot are deleted first (built elsewhere, e.g. without -fPIE);
  Rodinia's C++ is compiled as gnu++98, the dialect it was written in (it compares streams
  with NULL and uses dynamic exception specifications, both refused by today's C++17);
* run: the program's own default launch (Rodinia: its ``run`` script with the inputs of the
  snapshot's data/; PolyBench and SHOC: the executable with no arguments, i.e. their default
  dataset), in the sandbox, nice'd, with a time limit per program. A program that asks for a
  GPU gets the platform's device (``RL_CLTRACE_ANY_DEVICE``); a run cut by its limit keeps
  the launches that completed (said in its status).

    nice -n 10 python benchmarks/suites_pocl.py --out runs/suites [--suites rodinia,polybench,shoc]
        [--run-seconds 120] [--only PROGRAM]

Writes OUT/SUITE/PROGRAM.trace.jsonl and OUT/programs.jsonl (one status line per program:
built, ran, timed out, launches, the cause of a miss).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ridgeline import sandbox
from ridgeline.opencl.trace import interposer, run_traced

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ROOT / "external" / "suites"
OCL_LIB = "/usr/lib/x86_64-linux-gnu"


@dataclass
class Program:
    suite: str
    name: str
    folder: Path
    build: list[str]
    run: list[str] | None  # None: no default run command
    why_no_run: str = ""


def _wrappers(dest: Path, cxx_std: str | None = None) -> Path:
    """gcc/g++/cc/c++ with -fcommon, linking with --no-as-needed, the C++ ones with the
    suite's dialect (see the module's doc); a program's own -std, later on the line, wins."""
    dest.mkdir(parents=True, exist_ok=True)
    for cc in ("gcc", "g++", "cc", "c++"):
        real = shutil.which(cc, path="/usr/bin:/bin")
        if real:
            std = f" -std={cxx_std}" if cxx_std and cc in ("g++", "c++") else ""
            f = dest / cc
            f.write_text(f'#!/bin/sh\nexec {real}{std} -fcommon -Wl,--no-as-needed "$@"\n')
            f.chmod(0o755)
    return dest


def _has_command(script: Path) -> bool:
    return any(ln.strip() and not ln.strip().startswith("#")
               for ln in script.read_text(errors="replace").splitlines())


def rodinia(root: Path) -> list[Program]:
    # OPENCL_LIB keeps the form of Rodinia's make.config: the folder, then -lOpenCL
    make = ["make", "OPENCL_DIR=/usr", "OPENCL_INC=/usr/include",
            f"OPENCL_LIB={OCL_LIB} -lOpenCL"]
    out = []
    for d in sorted((root / "opencl").iterdir()):
        if not any((d / m).exists() for m in ("GNUmakefile", "makefile", "Makefile")):
            continue
        run = d / "run"
        if not run.exists() or not _has_command(run):
            out.append(Program("rodinia", d.name, d, make, None,
                               "no default run command in the snapshot (run script absent "
                               "or empty)"))
            continue
        out.append(Program("rodinia", d.name, d, make, ["bash", "./run"]))
    return out


def polybench(root: Path) -> list[Program]:
    out = []
    for mk in sorted((root / "OpenCL").rglob("Makefile")):
        exe = re.search(r"^EXECUTABLE\s*:?=\s*(\S+)", mk.read_text(), re.M)
        if exe is None:
            continue
        out.append(Program("polybench", mk.parent.name, mk.parent, ["make", "OpenCL_SDK=/usr"],
                           [f"./{exe.group(1)}"]))
    return out


SHOC_CONFIGURE = ["sh", "./configure", "--with-opencl", "--without-cuda", "--without-mpi",
                  "CPPFLAGS=-I/usr/include", f"LDFLAGS=-L{OCL_LIB}"]


def shoc(root: Path) -> list[Program]:
    """Programs: every executable SHOC's make builds under src/opencl/level*/ (the MPI
    variants excluded); built once by the suite's setup."""
    out = []
    for level in sorted((root / "src" / "opencl").glob("level*")):
        for mk in sorted(level.rglob("Makefile.am")):
            if any(part.endswith("mpi") for part in mk.parts):  # epmpi/, tpmpi/
                continue
            for prog in re.findall(r"^(\w+)_SOURCES", mk.read_text(), re.M):
                out.append(Program("shoc", prog, mk.parent, [], [f"./{prog}"]))
    return out


@dataclass
class Suite:
    name: str
    programs: Callable[[Path], list[Program]]
    setup: list[list[str]]  # commands run once at the suite's root before the programs
    cxx_std: str | None = None


SUITES = {
    "rodinia": Suite("rodinia", rodinia, [], cxx_std="gnu++98"),
    "polybench": Suite("polybench", polybench, []),
    "shoc": Suite("shoc", shoc, [SHOC_CONFIGURE, ["make", "-j1"]]),
}


def _sh(cmd: list[str], cwd: Path, seconds: float, env: dict[str, str],
        writable: Path) -> sandbox.Outcome:
    return sandbox.run(["nice", "-n", "10", *cmd], cwd=cwd, limits=sandbox.Limits(seconds),
                       env=env, writable=[writable], unprivileged=True)


def _tail(text: str, n: int = 300) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if re.search(r"error|undefined|not found|No such", ln, re.I)]
    return " | ".join((errs or lines)[-3:])[-n:]


def prepare(suite: Suite, out: Path, env: dict[str, str], build_s: float) -> dict[str, Any]:
    """Copy the suite into OUT (builds write beside their sources) and run its setup."""
    src = EXTERNAL / suite.name
    if not src.is_dir():
        return {"ok": False, "why": f"{src} is absent: export the snapshot (see the doc)"}
    work = out / suite.name / "src"
    if not work.exists():
        shutil.copytree(src, work, symlinks=True)
        for f in [*work.rglob("*.o"), *work.rglob("*.a")]:
            f.unlink()
    for cmd in suite.setup:
        res = _sh(cmd, work, build_s, env, work)
        if res.returncode != 0:
            return {"ok": False, "why": f"setup {' '.join(cmd[:2])} failed: "
                    f"{_tail(res.stdout + res.stderr)}"}
    return {"ok": True, "root": work}


def build_and_run(p: Program, out: Path, env: dict[str, str], a: argparse.Namespace,
                  so: Path) -> dict[str, Any]:
    rec: dict[str, Any] = {"suite": p.suite, "program": p.name,
                           "folder": str(p.folder.relative_to(out))}
    if p.build:
        t0 = time.monotonic()
        res = _sh(p.build, p.folder, a.build_seconds, env, p.folder)
        rec["build_s"] = round(time.monotonic() - t0, 1)
        if res.returncode != 0:
            rec.update(status="build failed", why=_tail(res.stdout + res.stderr))
            return rec
    if p.run is None:
        rec.update(status="not run", why=p.why_no_run)
        return rec
    exe = p.run[-1] if p.run[0] != "bash" else None
    if exe and not (p.folder / exe).exists():
        rec.update(status="build failed", why=f"{exe} was not built")
        return rec
    work = out / p.suite / "runs" / p.name
    shutil.rmtree(work, ignore_errors=True)
    outcome, trace = run_traced(["nice", "-n", "10", *p.run], cwd=p.folder, work=work,
                                seconds=a.run_seconds, so=so,
                                env={**env, "RL_CLTRACE_ANY_DEVICE": "1"})
    shutil.copy(work / "trace.jsonl", out / p.suite / f"{p.name}.trace.jsonl") \
        if (work / "trace.jsonl").exists() else None
    timed = trace.kernel_ns()
    rec.update(returncode=outcome.returncode, run_s=round(outcome.seconds, 1),
               timed_out=outcome.timed_out, launches=len(trace.launches),
               timed_launches=len(timed), transfers=len(trace.transfers),
               kernels=sorted({r["kernel"] for r in trace.launches}))
    if not timed:
        text = outcome.stdout + outcome.stderr
        why = _tail(text) or f"exit {outcome.returncode}, no output"
        if re.search(r"Enter Platform and Device", text):
            why = "asks for the platform and device on its input (the run gives none)"
        elif outcome.returncode == 0:
            why = "ran to the end (exit 0) without a kernel launch"
        rec.update(status="no launch", why=f"{why} after {outcome.seconds:.0f} s")
    elif outcome.timed_out:
        rec.update(status="cut at the time limit", why=f"{a.run_seconds:.0f} s limit; "
                   f"the {len(timed)} launches that completed are kept")
    else:
        rec.update(status="ran" if outcome.returncode == 0 else f"ran (exit {outcome.returncode})")
    shutil.rmtree(work / "cwd", ignore_errors=True)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="runs/suites")
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--run-seconds", type=float, default=120.0)
    ap.add_argument("--build-seconds", type=float, default=600.0)
    ap.add_argument("--only", default=None, help="one program name (for checking a rule)")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    so = interposer()
    status = out / "programs.jsonl"
    done = {(r["suite"], r["program"]) for r in map(json.loads, status.read_text()
                                                     .splitlines())} if status.exists() else set()
    for name in a.suites.split(","):
        suite = SUITES[name]
        tc = _wrappers(out / "toolchain" / name, suite.cxx_std)
        env = {"PATH": f"{tc}:/usr/local/bin:/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
        prep = prepare(suite, out, env, a.build_seconds)
        if not prep["ok"]:
            with status.open("a") as f:
                f.write(json.dumps({"suite": name, "program": "*", "status": "setup failed",
                                    "why": prep["why"]}) + "\n")
            print(f"{name}: {prep['why']}")
            continue
        for p in suite.programs(prep["root"]):
            if (a.only and p.name != a.only) or (p.suite, p.name) in done:
                continue
            rec = build_and_run(p, out, env, a, so)
            print(json.dumps({k: rec.get(k) for k in ("suite", "program", "status",
                                                        "timed_launches", "why")}), flush=True)
            with status.open("a") as f:
                f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
