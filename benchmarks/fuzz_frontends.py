"""Fuzz the front ends: generated and mutated sources through `kernels`, `features`, `predict`
and a `predict-batch` row. A crash is any exception other than a RidgelineError (or a batch
row whose error says ``internal``); a hang is an input over the time limit.

    python benchmarks/fuzz_frontends.py --inputs 5000 --seed 0 --limit 30 --cli 20

Each input is addressed by (seed, index): ``--only I`` replays one. Inputs run one at a time
in a forked child of a warmed-up process (the command functions called in-process, as the
CLI calls them), under --limit seconds; --cli N more run through the real CLI in subprocesses.
Seeds: the shipped samples, a few single-file HeCBench programs (when
external/gpuFLOPBench/src is there) and small programs written here. Mutations: byte flips,
cuts, duplicated and swapped ranges, inserted pieces; generated inputs: macro bombs, deep
nesting, huge literals, includes of devices, FIFOs and /proc, unicode, NUL bytes, long lines.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HECBENCH = ROOT / "external" / "gpuFLOPBench" / "src"
if not HECBENCH.is_dir():
    HECBENCH = ROOT.parent.parent / "main" / "external" / "gpuFLOPBench" / "src"
_HEC = ["atan2-omp/main.cpp", "bitonic-sort-cuda/main.cu", "colorwheel-omp/main.cpp",
        "michalewicz-cuda/main.cu", "page-rank-cuda/main.cu", "lfib4-cuda/main.cu",
        "spaxpby-cuda/main.cu", "cbsfil-cuda/main.cu"]
_SMALL = {
    "k.cl": "__kernel void vadd(__global const float *a, __global float *b, int n) {\n"
            "  int i = get_global_id(0);\n  if (i < n) b[i] = a[i] * 2.0f;\n}\n",
    "main.cpp": "#include <stdlib.h>\nint main(int argc, char **argv) {\n"
                "  int n = atoi(argv[1]);\n  float *a = (float*)malloc(n * sizeof(float));\n"
                "  #pragma omp target teams distribute parallel for map(tofrom: a[0:n])\n"
                "  for (int i = 0; i < n; i++) a[i] = a[i] * 2.0f + 1.0f;\n  return 0;\n}\n",
}
_INCLUDES = ["</dev/urandom>", "</dev/zero>", '"/dev/stdin"', '"pipe.h"', '"sub"',
             '"../../../../proc/kmsg"', "</proc/self/mem>", '"/etc/passwd"']
_PIECES = [
    "{", "}", "(", ")", ";", "<<<", ">>>", "#define X(", '#include "', "\\\n", "__global__",
    "__kernel", "#pragma omp target", "for (", "/*", "*/", '"', "'", "\x00", "\xff", "\u202e",
    "template <", "__shared__", "if (", "#if 1\n", "#endif\n", "0x", "1e309", "\r", "\ufeff",
    "#include </dev/urandom>\n", '#include "pipe.h"\n', "#include </proc/self/mem>\n",
    '#include "main.cu"\n', "#define A0 x\n#define A1 A0 A0\n", "((((((((((", "}}}}}}}}",
    "9" * 400, "é", "🔥", "\ud800",
]


def seeds() -> list[tuple[str, str]]:
    """(file name, text) of the seed programs."""
    out = [("main.cu", (ROOT / f"src/ridgeline/data/samples/{s}/main.cu").read_text())
           for s in ("saxpy", "polyeval")]
    out += [(Path(h).name, (HECBENCH / h).read_text(errors="replace")) for h in _HEC
            if (HECBENCH / h).is_file()]
    return out + list(_SMALL.items())


def _bomb(r: random.Random) -> str:
    d, kind = r.randint(5, 40), r.randrange(3)
    if kind == 0:
        lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, d)]
        use = f"int x; int y = A{d - 1};"
    elif kind == 1:
        lines = ["#define A0 1"] + [f"#define A{i} (A{i - 1} + A{i - 1})" for i in range(1, d)]
        use = f"int n = A{d - 1};"
    else:
        lines = ["#define F0(x) x"] + [f"#define F{i}(x) F{i - 1}(x) F{i - 1}(x)"
                                       for i in range(1, d)]
        use = f"int z = F{d - 1}(1);"
    return "\n".join(lines) + "\n" + (use if r.random() < 0.8 else "") + "\n"


#: the kinds of hostile construct :func:`_generated` inserts, and of :func:`_mutated`'s edits
GENERATED = ("macro bomb", "deep parentheses", "deep braces", "nested #if", "huge literals",
             "hostile include", "macro include", "unicode", "NUL bytes", "long word",
             "template recursion", "many kernels", "huge launch sizes", "omp clause nest",
             "CRLF lines")
MUTATIONS = ("flip", "cut", "duplicate", "insert piece", "truncate", "swap")


def _generated(r: random.Random, name: str, text: str) -> tuple[str, str]:
    """A seed with one hostile construct put at a random line, and the construct's kind."""
    n = r.choice([10, 100, 1000, 10_000, 50_000])
    makers = [
        lambda: _bomb(r),
        lambda: "int deep = " + "(" * n + "1" + ")" * n + ";\n",
        lambda: "void deep() " + "{" * min(n, 20_000) + "}" * min(n, 20_000) + "\n",
        lambda: "#if 1\n" * min(n, 5000) + "int q;\n" + "#endif\n" * min(n, 5000),
        lambda: f"double big = {'9' * n}.0e{'9' * 6};\nlong hx = 0x{'f' * n};\n",
        lambda: "#include " + r.choice(_INCLUDES) + "\n",
        lambda: "#define INC </dev/urandom>\n#include INC\n",
        lambda: "int \u00e9l\u00e8ve = 1; const char *s = \"\U0001f525\u202e\";\n",
        lambda: "\x00" * r.randint(1, 5),
        lambda: "a" * (n * 10) + "\n",
        lambda: "template <int N> struct T { enum { v = T<N - 1>::v + T<N - 1>::v }; };\n"
                "template <> struct T<0> { enum { v = 1 }; };\n"
                f"int tv = T<{r.randint(10, 2000)}>::v;\n",
        lambda: "".join(f"__global__ void g{i}(float *a) {{ a[{i}] = {i}; }}\n"
                        for i in range(min(n, 2000))),
        lambda: "int main(int argc, char **argv) { int n = atoi(argv[1]) << 1000;\n"
                "  saxpy<<<(1 << 100) * n, 1e308 * 1e308>>>(n, 2.0f, 0, 0); }\n",
        lambda: f"#pragma omp target teams num_teams({'(' * 50}A29{')' * 50}) map(to: a[0:n])\n"
                "for (int i = 0; i < n; i++) a[i] = 0;\n",
        lambda: "\r\n".join(text.split("\n")[:50]),
    ]
    kind = r.randrange(len(makers))  # what r.choice(makers) draws
    piece = makers[kind]()
    lines = text.split("\n")
    at = r.randrange(len(lines) + 1)
    return "\n".join(lines[:at] + [piece] + lines[at:]), GENERATED[kind]


def _mutated(r: random.Random, text: str) -> tuple[str, list[str]]:
    """*text* with 1-6 random edits, and the edits' kinds."""
    ops = []
    for _ in range(r.randint(1, 6)):
        i = r.randrange(len(text) + 1)
        op = r.randrange(6)
        ops.append(MUTATIONS[op])
        if op == 0 and text:  # byte flip (as a character)
            text = text[:i] + chr(r.randrange(1, 0x2FF)) + text[i + 1:]
        elif op == 1:
            text = text[:i] + text[i + r.randint(1, 200):]
        elif op == 2:
            j = min(len(text), i + r.randint(1, 300))
            text = text[:j] + text[i:j] * r.randint(1, 20) + text[j:]
        elif op == 3:
            text = text[:i] + r.choice(_PIECES) + text[i:]
        elif op == 4:
            text = text[:i]
        else:
            j = r.randrange(len(text) + 1)
            a, b = sorted((i, j))
            text = text[a:b] + text[:a] + text[b:]
    return text, ops


def make_input(seed: int, index: int) -> tuple[str, bytes, str]:
    """(file name, bytes, how it was made) of input *index*: ``generated: KIND``,
    ``mutated: OP, OP`` or both, the kinds from :data:`GENERATED` and :data:`MUTATIONS`."""
    r = random.Random(seed * 1_000_003 + index)
    name, text = r.choice(seeds())
    how = r.choice(["mutated", "mutated", "generated", "both"])
    made = []
    if how in ("generated", "both"):
        text, kind = _generated(r, name, text)
        made.append(f"generated: {kind}")
    if how in ("mutated", "both"):
        text, ops = _mutated(r, text)
        made.append("mutated: " + ", ".join(ops))
    return name, text.encode("utf-8", "surrogatepass"), "; ".join(made)


def _cli(argv: list[str]) -> tuple[int, str]:
    from ridgeline.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue()


def _ops(folder: Path, file: str) -> dict[str, str]:
    """Each command on one program folder: ok, error (a RidgelineError) or crash: ..."""
    res: dict[str, str] = {}
    seconds: dict[str, float] = {}
    kernel = "saxpy"

    def op(name: str, argv: list[str]) -> str:
        t0 = time.monotonic()
        try:
            rc, out = _cli(argv)
        except Exception:  # noqa: BLE001 - that is a crash, the thing counted
            res[name] = "crash: " + traceback.format_exc(limit=-3)[-1500:]
            return ""
        finally:
            seconds[name] = time.monotonic() - t0
        res[name] = "ok" if rc == 0 else "error"
        return out

    out = op("kernels", ["kernels", str(folder), "--json"])
    with contextlib.suppress(ValueError, KeyError, IndexError):
        kernel = json.loads(out)["kernels"][0]["name"]
    op("features", ["features", str(folder), f"--kernel={kernel}", "--json"])
    op("predict", ["predict", str(folder), f"--kernel={kernel}", "--gpu", "a100",
                   "--args", "1024 4", "--json"])
    csv = folder.parent / f"{folder.name}.csv"
    csv.write_text("source,kernel,model_type,block_size,grid_size,exe_args,device\n"
                   f"{folder.name},{kernel},cuda,,,1024 4,NVIDIA A100 SXM4 40GB\n")
    outcsv = folder.parent / f"{folder.name}.out.csv"
    op("predict-batch", ["predict-batch", str(csv), "--sources", str(folder.parent), "--out",
                         str(outcsv), "--count", "never", "--jobs", "1"])
    if outcsv.is_file():
        import pandas as pd

        errs = pd.read_csv(outcsv, dtype=str, keep_default_na=False)["error"]
        bad = [e for e in errs if e.startswith("internal")]
        if bad:
            res["predict-batch"] = "crash: " + bad[0][:1500]
    _OP_SECONDS.clear()
    _OP_SECONDS.update(seconds)
    return res


#: seconds each command of the last :func:`_ops` took (sent back by the child beside its ops)
_OP_SECONDS: dict[str, float] = {}


def _write(folder: Path, name: str, data: bytes) -> None:
    folder.mkdir(parents=True)
    (folder / name).write_bytes(data)
    os.mkfifo(folder / "pipe.h")  # what `#include "pipe.h"` finds
    (folder / "sub").mkdir()


def run_input(work: Path, seed: int, index: int, limit: float) -> dict[str, object]:
    """One input in a forked child under *limit* seconds."""
    name, data, how = make_input(seed, index)
    folder = work / f"p{index}"
    _write(folder, name, data)
    rd, wr = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            ops = _ops(folder, name)
            payload = json.dumps({**ops, "_seconds": _OP_SECONDS}).encode()
        except BaseException:  # noqa: BLE001 - reported as a crash of the harness step
            payload = json.dumps({"harness": "crash: " + traceback.format_exc()[-1500:]}).encode()
        with os.fdopen(wr, "wb") as f:
            f.write(payload)
        os._exit(0)
    os.close(wr)
    res = _collect(pid, rd, limit)
    took = time.monotonic() - t0
    shutil.rmtree(folder, ignore_errors=True)
    for f in (work / f"p{index}.csv", work / f"p{index}.out.csv"):
        f.unlink(missing_ok=True)
    return {"index": index, "how": how, "file": name, "bytes": len(data), "seconds": took,
            **res}


def _collect(pid: int, rd: int, limit: float) -> dict[str, object]:
    import select

    chunks, end = [], time.monotonic() + limit
    while True:
        left = end - time.monotonic()
        if left <= 0 or not select.select([rd], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(rd)
            return {"hang": True, "ops": {}}
        b = os.read(rd, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    try:
        ops = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        ops = {}
    seconds = ops.pop("_seconds", {})
    if not ops or os.waitstatus_to_exitcode(status) != 0:
        ops = {**ops, "child": f"crash: exit status {os.waitstatus_to_exitcode(status)}"}
    return {"hang": False, "ops": ops, "op_seconds": seconds}


def warm_up() -> None:
    """Load what every input needs once, before the children fork."""
    os.environ.setdefault("RIDGELINE_PARSE_TIMEOUT", "10")
    import logging

    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "saxpy"
        shutil.copytree(ROOT / "src/ridgeline/data/samples/saxpy", p)
        _ops(p, "main.cu")


def fuzz(n: int, seed: int = 0, limit: float = 30.0, start: int = 0,
         progress: bool = False, log: Path | None = None) -> dict[str, object]:
    """Run inputs start..start+n-1; returns the figures and the failing inputs. With *log*,
    each input's result is appended to that JSON-lines file as soon as it is known."""
    warm_up()
    results = []
    with tempfile.TemporaryDirectory(prefix="ridgeline-fuzz-") as d:
        for i in range(start, start + n):
            r = run_input(Path(d), seed, i, limit)
            results.append(r)
            if log is not None:
                with log.open("a") as f:
                    f.write(json.dumps(r) + "\n")
            if progress and (i - start + 1) % 250 == 0:
                s = summarize(results, seed)
                print(f"  {i - start + 1}/{n} inputs, {len(s['crashes'])} crashes, "
                      f"{len(s['hangs'])} hangs", file=sys.stderr, flush=True)
    return summarize(results, seed)


def summarize(results: list[dict[str, object]], seed: int) -> dict[str, object]:
    """The figures of a list of :func:`run_input` results."""
    crashes, hangs, slowest, counts = [], [], (0.0, -1), {}
    per_command: dict[str, tuple[float, int]] = {}
    for r in results:
        slowest = max(slowest, (float(r["seconds"]), int(r["index"])))  # type: ignore[arg-type]
        for k, sec in dict(r.get("op_seconds") or {}).items():  # type: ignore[call-overload]
            per_command[k] = max(per_command.get(k, (0.0, -1)), (float(sec), int(r["index"])))  # type: ignore[arg-type]
        ops: dict[str, str] = r["ops"]  # type: ignore[assignment]
        for k, v in ops.items():
            counts[f"{k}:{v.split(':')[0]}"] = counts.get(f"{k}:{v.split(':')[0]}", 0) + 1
        if r["hang"]:
            hangs.append(r)
        elif any(v.startswith("crash") for v in ops.values()):
            crashes.append(r)
    return {"inputs": len(results), "seed": seed, "crashes": crashes, "hangs": hangs,
            "max_seconds": slowest[0], "slowest_input": slowest[1], "outcomes": counts,
            "slowest_per_command": {k: list(v) for k, v in sorted(per_command.items())}}


def cli_runs(n: int, seed: int, limit: float) -> dict[str, int]:
    """Inputs through the real CLI (subprocesses): exit status 0 or 2, no traceback."""
    bad, runs = 0, 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    with tempfile.TemporaryDirectory(prefix="ridgeline-fuzz-cli-") as d:
        for i in range(n):
            name, data, _ = make_input(seed + 1, i)
            folder = Path(d) / f"c{i}"
            _write(folder, name, data)
            for argv in (["kernels", str(folder)], ["features", str(folder), "--kernel=saxpy"],
                         ["predict", str(folder), "--kernel=saxpy", "--gpu", "a100"]):
                runs += 1
                try:
                    p = subprocess.run([sys.executable, "-m", "ridgeline", *argv], env=env,
                                       capture_output=True, text=True, timeout=limit)
                except subprocess.TimeoutExpired:
                    bad += 1
                    continue
                if p.returncode not in (0, 2) or "Traceback" in p.stderr:
                    bad += 1
                    print(f"CLI failure on input {i}: {argv[0]}: {p.stderr[-800:]}",
                          file=sys.stderr)
    return {"cli_runs": runs, "cli_failures": bad}


def _parts(a: argparse.Namespace) -> dict[str, object]:
    """Split the inputs over --jobs processes of this script and add up their figures."""
    per = -(-a.inputs // a.jobs)
    procs = []
    with tempfile.TemporaryDirectory() as d:
        for j in range(a.jobs):
            n = min(per, a.inputs - j * per)
            out = Path(d) / f"part{j}.json"
            extra = ["--log", f"{a.log}.part{j}"] if a.log else []
            procs.append((out, subprocess.Popen(
                [sys.executable, __file__, "--inputs", str(n), "--start", str(j * per),
                 "--seed", str(a.seed), "--limit", str(a.limit), "--cli", "0",
                 "--json-out", str(out), *extra])))
        parts = []
        for out, p in procs:
            p.wait()
            parts.append(json.loads(out.read_text()))
    counts: dict[str, int] = {}
    for r in parts:
        for k, v in r["outcomes"].items():
            counts[k] = counts.get(k, 0) + v
    slow = max(parts, key=lambda r: r["max_seconds"])
    per_command: dict[str, list] = {}
    for r in parts:
        for k, v in r.get("slowest_per_command", {}).items():
            per_command[k] = max(per_command.get(k, [0.0, -1]), v)
    return {"inputs": sum(r["inputs"] for r in parts), "seed": a.seed,
            "crashes": [c for r in parts for c in r["crashes"]],
            "hangs": [h for r in parts for h in r["hangs"]],
            "max_seconds": slow["max_seconds"], "slowest_input": slow["slowest_input"],
            "outcomes": counts, "slowest_per_command": per_command}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="index of the first input")
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per input")
    ap.add_argument("--cli", type=int, default=20, help="inputs also run through the CLI")
    ap.add_argument("--jobs", type=int, default=1, help="processes sharing the inputs")
    ap.add_argument("--only", type=int, default=None, help="replay one input index")
    ap.add_argument("--log", default=None, help="append each input's result to this "
                    "JSON-lines file (with --jobs: one file per process, .partJ)")
    ap.add_argument("--summarize", nargs="+", default=None, metavar="LOG",
                    help="print the figures of earlier --log files and stop")
    ap.add_argument("--json-out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    t0 = time.time()
    if a.summarize:
        rows = [json.loads(x) for f in a.summarize for x in Path(f).read_text().splitlines()]
        res = summarize(rows, a.seed)
        a.cli = 0
    elif a.only is not None:
        name, data, how = make_input(a.seed, a.only)
        print(f"input {a.only}: {how} {name}, {len(data)} bytes")
        res = fuzz(1, a.seed, a.limit, start=a.only)
    elif a.jobs > 1:
        res = _parts(a)
    else:
        res = fuzz(a.inputs, a.seed, a.limit, start=a.start, progress=True,
                   log=Path(a.log) if a.log else None)
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(res))
        return 0
    cli = cli_runs(a.cli, a.seed, a.limit) if a.only is None and a.cli else {}
    print(f"command: python {' '.join(sys.argv)}")
    print(f"inputs {res['inputs']} (seed {a.seed}), each through kernels, features, predict "
          f"and a predict-batch row; crashes {len(res['crashes'])}, hangs {len(res['hangs'])}"
          f" (limit {a.limit:g} s), max seconds per input {res['max_seconds']:.2f} "
          f"(input {res['slowest_input']}), total {time.time() - t0:.0f} s")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(res["outcomes"].items())))
    print("slowest per command: " + ", ".join(
        f"{k} {v[0]:.2f} s (input {v[1]})" for k, v in res.get("slowest_per_command", {}).items()))
    if cli:
        print(f"real CLI: {cli['cli_runs']} runs, {cli['cli_failures']} failures")
    for r in [*res["crashes"], *res["hangs"]][:10]:
        print(json.dumps(r)[:2000])
    return 1 if res["crashes"] or res["hangs"] or cli.get("cli_failures") else 0


if __name__ == "__main__":
    sys.exit(main())
