"""The synthetic profiling scenario (paper's part a): accuracy of the embedded model for
2/4/8 worked examples in both answer styles, and of the roofline rule (must be 100%).

    nice -n 10 python benchmarks/llm_profiling.py -n 100 --threads 1 \
        --configs plain:2,plain:4:50,steps:2:30

A config is style:examples[:n] (n defaults to -n). The JSON is rewritten after every
config, so a stopped run keeps what it finished (and the cache keeps every answer).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from ridgeline.evaluation import classification
from ridgeline.llm.cache import ResponseCache
from ridgeline.llm.client import LLMClient
from ridgeline.llm.runner import run_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.llm.session import open_backend
from ridgeline.llm.settings import GenerationSettings
from ridgeline.llm.synthetic import rule_accuracy, synthetic_items


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("-n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=4839)
    ap.add_argument("--cache", default="runs/bench/cache-profiling.sqlite")
    ap.add_argument("--configs", default="plain:2,plain:4,plain:8,steps:2,steps:4,steps:8",
                    help="style:examples[:n], comma-separated")
    ap.add_argument("--threads", type=int, default=None,
                    help="llama.cpp threads of the embedded server (RIDGELINE_LLM_THREADS)")
    a = ap.parse_args()
    if a.threads:
        os.environ["RIDGELINE_LLM_THREADS"] = str(a.threads)
    sc = get_scenario("profiling-synthetic")
    rows = []
    with open_backend(a.model, a.base_url) as b:
        for conf in a.configs.split(","):
            parts = conf.split(":")
            style, k = parts[0], int(parts[1])
            n = int(parts[2]) if len(parts) > 2 else a.n
            max_tokens = 8 if style == "plain" else 120
            client = LLMClient(b, GenerationSettings.for_model(a.model, max_tokens),
                               ResponseCache(a.cache))
            t0 = time.monotonic()
            res = run_items(client, sc, synthetic_items(n, k, style, a.seed), 1)
            m = classification([r.truth for r in res], [r.answer for r in res])
            rows.append({"style": style, "examples": k, "n": m["n"],
                         "accuracy": round(m["accuracy"], 3),
                         "macro_f1": round(m["macro_f1"], 3), "mcc": round(m["mcc"], 3),
                         "unanswered": m["n_unanswered"],
                         "failed": sum(r.error is not None for r in res),
                         "last_error": next((r.error for r in reversed(res) if r.error),
                                            None),
                         "answered_bandwidth": sum(r.answer == "Bandwidth" for r in res),
                         "max_tokens": max_tokens,
                         "seconds": round(time.monotonic() - t0, 1),
                         "raw_answers_first3": [r.response for r in res[:3]]})
            _write(a, rows)


def _write(a: argparse.Namespace, rows: list[dict]) -> None:
    out = {"model": a.model, "seed": a.seed, "rows": rows,
           "rule_accuracy": rule_accuracy(a.n, a.seed),
           "rule_accuracy_10000": rule_accuracy(10000, a.seed),
           "threads": os.environ.get("RIDGELINE_LLM_THREADS")}
    print(json.dumps(out, indent=2))
    dest = Path("benchmarks/results/llm_profiling.json")
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
