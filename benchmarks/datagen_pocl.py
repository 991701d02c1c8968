"""Datagen on PoCL over the CLgen kernels: share of kernels sized and timed, samples per
second, harness overhead per sample beyond the kernel's own time.

    RIDGELINE_DATA=../shared/data python benchmarks/datagen_pocl.py --limit 150 --out runs/dg
(--limit N: a seeded random subset of N kernels; omit it for all 1,000)
"""

from __future__ import annotations

import argparse
import json
import tarfile
import tempfile
from pathlib import Path

from ridgeline.datagen import DatagenConfig, generate, read_kernels, read_samples


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="runs/datagen-pocl")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--samples", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        kdir = extract_clgen(Path(tmp))
        cfg = DatagenConfig(device="pocl", samples=a.samples, seed=a.seed, jobs=a.jobs,
                            limit=a.limit, subset_seed=4839 if a.limit else None,
                            timeout=240.0)
        summary = generate(kdir, a.out, cfg)
    k, s = read_kernels(a.out), read_samples(a.out)
    ok = s[s["status"] == "ok"]
    launches = 2 + cfg.warmup + cfg.repeats
    timed = ok["times_ns"].map(lambda v: float(sum(v))) / 1e9
    own = timed + ok["time_ns"] * (launches - cfg.repeats) / 1e9
    overhead = (ok["wall_s"] - own)
    timed_kernels = ok["kernel_hash"].nunique()
    out = {
        "kernels": int(len(k)),
        "sized_share": float((k["status"] == "sized").mean()),
        "timed_share": timed_kernels / max(1, len(k)),
        "status_counts": k["status"].value_counts().to_dict(),
        "samples_ok": int(len(ok)), "samples_error": int((s["status"] != "ok").sum()),
        "samples_per_s_this_run": summary["samples_per_s"],
        "end_to_end_s_per_sample": summary["elapsed_s"] / max(1, summary["samples"]),
        "harness_overhead_per_sample_s_median": float(overhead.median()),
        "kernel_time_per_sample_s_median": float(own.median()),
        "deterministic_share": float(ok["deterministic"].astype(bool).mean()),
        "regimes": ok["regime"].value_counts().to_dict(),
        "summary": summary,
    }
    print(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
