"""Reproduce paper-a-balanced.csv's ``numTokens`` (o200k tokens of each program's
concatenated source) with ridgeline's program context and offline tokenizer, and cross-check
the tokenizer against tiktoken's own BPE code run on the same ranks.

    RIDGELINE_DATA=/work/shared/data python benchmarks/tokens_paper_a.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

from ridgeline.datasets import load
from ridgeline.llm.paper_a import hecbench_sources_root
from ridgeline.sources.context import program_context
from ridgeline.sources.tokens import count_tokens, encode, tokenizer_name

# tiktoken's o200k_base split pattern (public, from tiktoken_ext/openai_public.py)
O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])


def tiktoken_on_quicktok_ranks() -> object | None:
    """tiktoken's Encoding built from the o200k ranks that quicktok ships (tiktoken cannot
    fetch its own file offline). None when tiktoken or quicktok is missing."""
    if not (importlib.util.find_spec("tiktoken") and importlib.util.find_spec("quicktok")):
        return None
    import struct

    import quicktok
    import tiktoken

    raw = (Path(quicktok.__file__).parent / "data" / "o200k.vocab").read_bytes()
    (n,) = struct.unpack_from("<I", raw, 0)
    ranks, off = {}, 4
    for _ in range(n):
        (ln,) = struct.unpack_from("<H", raw, off)
        tok = raw[off + 2: off + 2 + ln]
        (rank,) = struct.unpack_from("<I", raw, off + 2 + ln)
        ranks[tok] = rank
        off += 2 + ln + 4
    return tiktoken.Encoding("o200k_check", pat_str=O200K_PAT, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 199999})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", default=None, help="gpuFLOPBench src folder")
    ap.add_argument("--out", default="benchmarks/results/tokens_paper_a.json")
    a = ap.parse_args()
    df = load("paper-a")
    root = Path(a.sources) if a.sources else hecbench_sources_root()
    tk = tiktoken_on_quicktok_ranks()
    rows, t0 = [], time.monotonic()
    for src, g in df.groupby("source"):
        want = sorted(set(g.num_tokens))
        folder = root / str(src)
        if not folder.is_dir():
            rows.append({"source": src, "want": want, "got": None, "why": "no sources"})
            continue
        text = program_context(folder)
        got = count_tokens(text)
        check = None if tk is None else len(tk.encode_ordinary(text)) == got and \
            tk.encode_ordinary(text) == encode(text)
        rows.append({"source": src, "want": want, "got": got, "tiktoken_same_ids": check,
                     "kernels": len(g)})
    secs = time.monotonic() - t0
    scored = [r for r in rows if r["got"] is not None and r["want"] != [-1]]
    exact = [r for r in scored if r["want"] == [r["got"]]]
    misses = [r for r in rows if r not in exact]
    kernels_exact = sum(r["kernels"] for r in exact)
    res = {
        "tokenizer": tokenizer_name(),
        "programs": len(rows), "programs_scored": len(scored), "programs_exact": len(exact),
        "kernels": len(df), "kernels_exact": kernels_exact,
        "tiktoken_cross_check": None if tk is None else
        sum(bool(r.get("tiktoken_same_ids")) for r in rows if r["got"] is not None),
        "seconds": round(secs, 1), "misses": misses,
    }
    print(json.dumps({k: v for k, v in res.items() if k != "misses"}, indent=2))
    for m in misses:
        print("miss:", m)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
