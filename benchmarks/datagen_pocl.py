"""Datagen on PoCL over the CLgen kernels: share of kernels sized and timed, samples per
second, harness overhead per sample beyond the kernel's own time, misses by reason.

    RIDGELINE_DATA=../shared/data nice -n 10 python benchmarks/datagen_pocl.py \\
        --out runs/dg --samples 10 [--limit 150] [--json benchmarks/results/datagen_pocl.json]

(--limit N: a seeded random subset of N kernels; omit it for all 1,000.) The run is
resumable: rerun the same command after a kill. Figures come from the records on disk, so
they cover every chunk of a run done in several sittings (samples per second = samples /
summed per-kernel wall time of the workers, build helper included).
"""

from __future__ import annotations

import argparse
import json
import re
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from ridgeline.datagen import DatagenConfig, generate, read_kernels, read_samples
from ridgeline.datagen.runner import TIMINGS


def extract_clgen(dest: Path) -> Path:
    from ridgeline.datasets import data_dir

    tar = data_dir() / "clgen" / "clgen-1000-kernels.tar.bz2"
    with tarfile.open(tar) as t:
        for m in t.getmembers():
            if m.isfile() and m.name.endswith(".cl"):
                f = t.extractfile(m)
                if f is not None:
                    (dest / Path(m.name).name).write_bytes(f.read())
    return dest


_REASONS = [
    (r"not affine", "sizing: a buffer's extent is not affine in the global size"),
    (r"did not finish", "sizing: Oclgrind probe timed out (long or endless loop)"),
    (r"CompileError.*Oclgrind|did not build under Oclgrind", "does not build (Oclgrind)"),
    (r"CompileError", "does not build on PoCL (clang 15 stricter than Oclgrind)"),
    (r"ExecutionError.*Oclgrind", "Oclgrind run failed"),
    (r"ExecutionError", "launch failed on PoCL"),
    (r"exceeded", "worker timeout"),
    (r"worker (exit|died)", "worker crashed"),
]


def reason_group(reason: str) -> str:
    for pat, label in _REASONS:
        if re.search(pat, reason or "", re.S):
            return label
    return (reason or "unknown")[:60]


def figures(out: str, cfg: DatagenConfig) -> dict[str, Any]:
    k, s = read_kernels(out), read_samples(out)
    ok = s[s["status"] == "ok"]
    launches = 2 + cfg.warmup + cfg.repeats  # two checked runs, warm-up, timed repeats
    own = ok["times_ns"].map(lambda v: float(sum(v))) / 1e9 + \
        ok["time_ns"] * (launches - cfg.repeats) / 1e9
    overhead = ok["wall_s"] - own
    timed = set(ok["kernel_hash"])
    misses: dict[str, int] = {}
    for _, r in k.iterrows():
        if r["kernel_hash"] in timed:
            continue
        why = r["reason"] if r["status"] != "sized" else ";".join(
            s.loc[s["kernel_hash"] == r["kernel_hash"], "reason"].astype(str).head(1))
        g = reason_group(why)
        misses[g] = misses.get(g, 0) + 1
    wall = float(k["kernel_wall_s"].sum()) if "kernel_wall_s" in k else float("nan")
    per_kernel_fixed = k["kernel_wall_s"] - k["kernel_hash"].map(
        s.groupby("kernel_hash")["wall_s"].sum()).fillna(0.0)
    return {
        "kernels": int(len(k)),
        "sized_share": float((k["status"] == "sized").mean()),
        "timed_share": len(timed) / max(1, len(k)),
        "status_counts": k["status"].value_counts().to_dict(),
        "misses_by_reason": dict(sorted(misses.items(), key=lambda x: -x[1])),
        "samples_ok": int(len(ok)), "samples_error": int((s["status"] != "ok").sum()),
        "samples_per_s": len(s) / wall if wall else None,
        "kernels_per_s": len(k) / wall if wall else None,
        "worker_wall_s_total": wall,
        "per_kernel_s_median": {"total": float(k["kernel_wall_s"].median()),
                                "sizing (parse + 3 Oclgrind probes)":
                                    float(k["sizing_s"].median()),
                                "build helper": float(k["prebuild_s"].median()),
                                "outside samples (fork, parse, sizing, context, build)":
                                    float(per_kernel_fixed.median())},
        "harness_overhead_per_sample_s": {"median": float(overhead.median()),
                                          "mean": float(overhead.mean())},
        "kernel_time_per_sample_s_median": float(own.median()),
        "kernel_time_us": ok["time_ns"].div(1000).quantile([0, .25, .5, .75, 1]).round(2)
        .to_dict(),
        "relative_iqr_median": float((ok["spread_ns"] / ok["time_ns"]).median()),
        "deterministic_share": float(ok["deterministic"].astype(bool).mean()),
        "regimes": ok["regime"].value_counts().to_dict(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="runs/datagen-pocl")
    ap.add_argument("--kernels-dir", default=None, help="already extracted .cl files")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timing", choices=TIMINGS, default="burst")
    ap.add_argument("--report-only", action="store_true", help="figures of --out, no run")
    ap.add_argument("--json", default=None, help="also write the figures here")
    a = ap.parse_args()
    cfg = DatagenConfig(device="pocl", samples=a.samples, seed=a.seed, jobs=a.jobs,
                        limit=a.limit, subset_seed=4839 if a.limit else None, timeout=240.0,
                        timing=a.timing)
    summary = None
    if not a.report_only:
        with tempfile.TemporaryDirectory() as tmp:
            kdir = Path(a.kernels_dir) if a.kernels_dir else extract_clgen(Path(tmp))
            summary = generate(kdir, a.out, cfg)
    out = figures(a.out, cfg)
    out["this_invocation"] = summary
    out["config"] = {"samples": a.samples, "seed": a.seed, "warmup": cfg.warmup,
                     "repeats": cfg.repeats, "max_global": cfg.max_global, "jobs": a.jobs,
                     "timing": a.timing}
    text = json.dumps(out, indent=2, default=str)
    print(text)
    if a.json:
        Path(a.json).write_text(text + "\n")


if __name__ == "__main__":
    main()
