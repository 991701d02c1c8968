"""The paper-a rows with the embedded model (SmolLM2-135M-Instruct on llama.cpp, CPU):
accuracy / macro-F1 / MCC per language, kernels per minute, and the cache-hit speed-up of
an identical rerun.

    RIDGELINE_DATA=/work/shared/data RIDGELINE_HECBENCH_SRC=external/gpuFLOPBench/src \
        nice -n 10 python benchmarks/llm_paper_a.py --scenario zero-shot --sample 80 \
        --max-source-tokens 256 --max-tokens 32 --threads 1

Writes benchmarks/results/llm_paper_a_<scenario>_<model>.json (figures) and .csv (one row
per kernel: truth, parsed answer, the raw answer, tokens, latency). The embedded server is
restarted for the rerun, so the speed-up includes its start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from ridgeline.evaluation.paper_a_run import PaperARun, run_paper_a


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--scenario", default="zero-shot")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--sample", type=int, default=None,
                    help="random rows, half CUDA half OpenMP (seed 4839)")
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--max-source-tokens", type=int, default=None)
    ap.add_argument("--concurrency", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None,
                    help="llama.cpp threads of the embedded server (RIDGELINE_LLM_THREADS)")
    ap.add_argument("--out", default="runs/bench")
    ap.add_argument("--resume", action="store_true",
                    help="keep the response cache of a stopped run (answers already given are "
                         "not asked again; kernels/min then comes from the model's own "
                         "latencies)")
    a = ap.parse_args()
    if a.threads:
        os.environ["RIDGELINE_LLM_THREADS"] = str(a.threads)
    cache = Path(a.out) / f"cache-{a.scenario}-{a.model}.sqlite"
    figures = {}
    for attempt in ("cold", "warm"):
        if attempt == "cold" and cache.exists() and not a.resume:
            cache.unlink()
        run = PaperARun(model=a.model, base_url=a.base_url, scenario=a.scenario,
                        limit=a.limit, sample=a.sample, max_tokens=a.max_tokens, out=a.out,
                        max_source_tokens=a.max_source_tokens, concurrency=a.concurrency,
                        cache_path=str(cache))
        t0 = time.monotonic()
        frame, table, out = run_paper_a(run)
        secs = time.monotonic() - t0
        figures[attempt] = {
            "seconds": round(secs, 1),
            "kernels_per_minute": round(60 * len(frame) / secs, 1),
            "cache_hits": int(frame.cached.fillna(False).astype(bool).sum()),
            "errors": int(frame.error.notna().sum()),
            "tokens_in": int(frame.tokens_in.fillna(0).sum()),
            "max_prompt_tokens": int(frame.tokens_in.fillna(0).max()),
        }
        if attempt == "cold":
            # from the model's own latencies (cache hits of a resumed run left out): the
            # answer rate of the served model, whatever else the run did
            lat = frame.latency_s[~frame.cached.fillna(False).astype(bool)].dropna()
            figures[attempt]["model_kernels_per_minute"] = (
                round(60 / float(lat.mean()), 2) if len(lat) else None)
            figures[attempt]["model_latency_s_median"] = (
                round(float(lat.median()), 1) if len(lat) else None)
        if attempt == "cold":
            figures["table"] = table.round(3).to_dict(orient="records")
            figures["answers"] = frame.answer.fillna("<none>").value_counts().to_dict()
            figures["error_kinds"] = frame.error.dropna().str.split(":").str[0] \
                .value_counts().to_dict()
            figures["unparsed"] = int((frame.answer.isna() & frame.error.isna()).sum())
            figures["results"] = str(out)
            cold = frame
    figures["cache_speedup"] = round(figures["cold"]["seconds"] /
                                     max(figures["warm"]["seconds"], 1e-6), 1)
    print(json.dumps(figures, indent=2))
    figures["settings"] = {"sample": a.sample, "limit": a.limit, "resumed": a.resume,
                           "max_source_tokens": a.max_source_tokens,
                           "max_tokens": a.max_tokens,
                           "threads": os.environ.get("RIDGELINE_LLM_THREADS"),
                           "n_ctx": 8192, "context_unit": "max_source_tokens is in o200k "
                           "tokens; max_prompt_tokens in the served model's own tokens"}
    dest = Path("benchmarks/results") / f"llm_paper_a_{a.scenario}_{a.model}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(figures, indent=2) + "\n")
    keep = ["id", "source", "kernel", "model_type", "is_train", "truth", "answer", "correct",
            "response", "tokens_in", "tokens_out", "latency_s", "error"]
    cold[[c for c in keep if c in cold.columns]].to_csv(dest.with_suffix(".csv"), index=False)


if __name__ == "__main__":
    main()
