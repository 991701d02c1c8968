"""Coverage of the front ends on HeCBench: of the distinct (source, kernel) pairs in
kernel-performance.csv, the share whose kernel is found and whose static features are produced.

    RIDGELINE_DATA=/work/shared/data python benchmarks/ingestion_coverage.py [--limit N]

Needs external/gpuFLOPBench/src (HeCBench sources, not in the repository). Template-fragment
kernel names (``int>``) are recovered from the mangled names in ncu-metrics-imix.csv.gz,
matched on source, device, arguments and launch sizes (see the data README).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "external" / "gpuFLOPBench" / "src"
_FRAGMENT = re.compile(r"[<>,]$|^(?:unsigned|signed|long|short|char|int|float|double|bool|"
                       r"__half|__nv_bfloat16|half|uchar|uint)\b")


def data_dir() -> Path:
    d = Path(os.environ.get("RIDGELINE_DATA", ROOT.parent / "shared" / "data"))
    if not (d / "hecbench" / "kernel-performance.csv").is_file():
        sys.exit(f"no hecbench data under {d}; set RIDGELINE_DATA")
    return d


def mangled_base(name: str) -> str | None:
    """``_Z10copy_kernelIiEvPT_`` -> copy_kernel; ``_ZN2ns6kernelEv`` -> kernel."""
    if not name.startswith("_Z"):
        return name or None
    i = 2
    nested = name[i:i + 1] == "N"
    i += 1 if nested else 0
    last = None
    while i < len(name):
        m = re.match(r"(\d+)", name[i:])
        if not m:
            break
        n = int(m.group(1))
        i += len(m.group(1))
        last = name[i:i + n]
        i += n
        if not nested or name[i:i + 1] in ("E", "I", ""):
            break
    return last


def _dims(v: object) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", str(v)))


def fragment_names(perf: pd.DataFrame, ncu: pd.DataFrame) -> dict[tuple[str, str], set[str]]:
    """(source, fragment) -> candidate function names from ncu mangled names."""
    ncu = ncu.assign(xargs=ncu["exeArgs"].fillna("").astype(str).str.strip(),
                     xb=ncu["Block Size"].map(_dims), xg=ncu["Grid Size"].map(_dims),
                     mangled=ncu["Kernel Name"].astype(str))
    idx: dict[tuple, set[str]] = {}
    for r in ncu.itertuples():
        key = (r.source, str(r.device), r.xargs, r.xb, r.xg)
        base = mangled_base(r.mangled)
        if base:
            idx.setdefault(key, set()).add(base)
    out: dict[tuple[str, str], set[str]] = {}
    for r in perf.itertuples():
        key = (r.source, str(r.device), str(r.exe_args if isinstance(r.exe_args, str) else "")
               .strip(), _dims(r.block_size), _dims(r.grid_size))
        out.setdefault((r.source, r.kernel), set()).update(idx.get(key, set()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0, help="only the first N sources")
    ap.add_argument("--json", metavar="FILE", help="write the per-pair results here")
    args = ap.parse_args()
    from ridgeline.features import static_features
    from ridgeline.sources import get_kernel, load_program

    d = data_dir()
    perf = pd.read_csv(d / "hecbench" / "kernel-performance.csv")
    ncu = pd.read_csv(d / "hecbench" / "ncu-metrics-imix.csv.gz",
                      usecols=["source", "Kernel Name", "device", "exeArgs", "Block Size",
                               "Grid Size"])
    frag = fragment_names(perf[perf.model_type == "cuda"], ncu)
    pairs = perf[["source", "kernel", "model_type"]].drop_duplicates()
    sources = sorted(pairs.source.unique())
    if args.limit:
        sources = sources[: args.limit]
        pairs = pairs[pairs.source.isin(sources)]
    results = []
    t0 = time.time()
    for i, src in enumerate(sources):
        folder = SRC / src
        prog = None
        err = None
        if folder.is_dir():
            try:
                prog = load_program(folder)
            except Exception as e:  # a benchmark reports, it does not stop
                err = f"{type(e).__name__}: {e}"
        for r in pairs[pairs.source == src].itertuples():
            results.append(_one(prog, err, folder, r.source, r.kernel, r.model_type, frag,
                                get_kernel, static_features))
        print(f"\r{i + 1}/{len(sources)} sources, {time.time() - t0:.0f} s", end="",
              file=sys.stderr)
    print(file=sys.stderr)
    _report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


def _one(prog, err, folder, src, kernel, mt, frag, get_kernel, static_features) -> dict:
    res = {"source": src, "kernel": kernel, "model_type": mt, "ok": False, "cause": None,
           "resolved": None}
    if not folder.is_dir():
        res["cause"] = "source folder missing"
        return res
    if prog is None:
        res["cause"] = f"program failed to load: {err}"
        return res
    names = [kernel]
    if mt == "cuda" and _FRAGMENT.search(str(kernel)):
        names = sorted(frag.get((src, kernel), set()))
        if not names:  # no ncu row: the program's only template kernel, if there is one
            tmpl = {k.name for k in prog.kernels if k.template}
            names = sorted(tmpl) if len(tmpl) == 1 else [kernel]
    k = None
    for n in names:
        try:
            k = get_kernel(prog, str(n))
            break
        except Exception:
            continue
    if k is None:
        res["cause"] = _why_missing(prog, folder, str(kernel), names, mt)
        return res
    res["resolved"] = f"{k.name} {Path(k.file).name}:{k.line}"
    if mt == "omp":
        from ridgeline.sources import split_omp_name

        parts = split_omp_name(str(kernel))
        res["line_exact"] = bool(parts and parts[1] == k.line)
    if not k.has_body:
        res["cause"] = "body lost: " + "; ".join(k.problems)[:200]
        return res
    try:
        static_features(k)
    except Exception as e:
        res["cause"] = f"features failed: {type(e).__name__}: {e}"[:200]
        return res
    res["ok"] = True
    return res


_LIBRARY = ("ScanTileState", "DeviceScanInitKernel", "DeviceScanKernel", "DeviceRadixSort",
            "DeviceReduce", "DeviceSegmented", "__identity", "Policy", "less", "complex",
            "FunctionalAbs", "transform_kernel", "ReducePolicy")


def _why_missing(prog, folder: Path, kernel: str, names: list[str], mt: str) -> str:
    """Why a kernel name was not found: library code, names absent from the exported
    sources (edited since profiling), an unresolved template fragment, or a real miss."""
    if mt == "cuda" and _FRAGMENT.search(kernel) and names == [kernel]:
        return "template fragment, no ncu match to recover it"
    if any(n.startswith(_LIBRARY) or n in ("cub", "thrust") for n in names):
        return "library kernel (CUB/Thrust), not in the program's source"
    if mt == "omp":
        from ridgeline.sources import split_omp_name

        parts = split_omp_name(kernel)
        if parts and not any(abs(k.line - parts[1]) <= 12 for k in prog.kernels):
            return "no target region at or near that line in the exported sources"
        return "kernel not found"
    text = "".join(p.read_text(errors="replace") for p in folder.rglob("*")
                   if p.is_file() and p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp"))
    if not any(re.search(rf"\b{re.escape(n)}\b", text) for n in names):
        return "name not in the exported sources (edited since profiling?)"
    return "kernel not found"


def _report(results: list[dict]) -> None:
    df = pd.DataFrame(results)
    for mt, g in df.groupby("model_type"):
        ok = g.ok.sum()
        print(f"{mt}: {ok}/{len(g)} distinct (source, kernel) pairs covered = "
              f"{100 * ok / len(g):.1f}%")
        fixable = g[~g.cause.fillna("").str.startswith(("source folder missing", "library",
                                                        "name not in", "no target region"))]
        print(f"  excluding pairs whose source or kernel is absent from the exported sources "
              f"or is library code: {fixable.ok.sum()}/{len(fixable)} = "
              f"{100 * fixable.ok.sum() / max(len(fixable), 1):.1f}%")
        causes = Counter(re.sub(r"[:(].*", "", c).strip() for c in g.cause.dropna())
        if mt == "omp" and "line_exact" in g:
            approx = g[g.ok & (g.line_exact == False)]  # noqa: E712
            print(f"  of the covered, matched at a different line (sources edited; nearest "
                  f"region, or the only region of the named function): {len(approx)}")
        for c, n in causes.most_common():
            print(f"  miss cause {c!r}: {n}")
        for r in g[~g.ok].itertuples():
            print(f"    {r.source} {r.kernel!r}: {r.cause}")


if __name__ == "__main__":
    raise SystemExit(main())
