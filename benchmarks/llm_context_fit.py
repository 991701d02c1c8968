"""Do the paper-a prompts fit the embedded model's context? For each o200k source cutoff,
the prompts' length in SmolLM2's own tokens (its tokenizer, from the GGUF), against the
8,192-token context the server is started with (minus the answer cap).

    RIDGELINE_DATA=/work/shared/data RIDGELINE_HECBENCH_SRC=external/gpuFLOPBench/src \\
        nice -n 10 python benchmarks/llm_context_fit.py --cutoffs 256,4500,8000
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from ridgeline.datasets import load
from ridgeline.llm.embedded import gguf_path
from ridgeline.llm.paper_a import build_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.sources.tokens import count_tokens

#: chat-template tokens around each message (<|im_start|>role\n ... <|im_end|>\n)
PER_MESSAGE = 5


def main() -> None:
    import llama_cpp

    ap = argparse.ArgumentParser()
    ap.add_argument("--cutoffs", default="256,4500,8000")
    ap.add_argument("--scenarios", default="zero-shot,few-shot")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--answer-tokens", type=int, default=32)
    a = ap.parse_args()
    vocab = llama_cpp.Llama(str(gguf_path()), vocab_only=True, verbose=False)
    df = load("paper-a", None)
    limit = a.n_ctx - a.answer_tokens
    rows = []
    for sc in a.scenarios.split(","):
        for cut in (int(c) for c in a.cutoffs.split(",")):
            items = build_items(df, get_scenario(sc), max_source_tokens=cut)
            smol, o200k = [], []
            for it in items:
                if it.messages is None:
                    continue
                smol.append(sum(len(vocab.tokenize(m["content"].encode(), add_bos=False))
                                + PER_MESSAGE for m in it.messages) + 3)
                o200k.append(sum(count_tokens(m["content"]) for m in it.messages))
            rows.append({
                "scenario": sc, "source_cutoff_o200k": cut, "prompts": len(smol),
                "not_built": len(items) - len(smol),
                "smollm2_tokens_max": max(smol), "smollm2_tokens_mean": round(
                    statistics.mean(smol)), "o200k_tokens_mean": round(statistics.mean(o200k)),
                "smollm2_per_o200k": round(sum(smol) / sum(o200k), 3),
                "over_context": sum(n > limit for n in smol),
            })
            print(json.dumps(rows[-1]))
    dest = Path("benchmarks/results/llm_context_fit.json")
    dest.write_text(json.dumps({"n_ctx": a.n_ctx, "answer_tokens": a.answer_tokens,
                                "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
