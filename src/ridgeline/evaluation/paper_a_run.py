"""A whole paper-a run: rows -> prompts -> cached answers -> per-kernel results and the
paper's table, written with provenance."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.evaluation.metrics import classification
from ridgeline.evaluation.provenance import provenance
from ridgeline.llm.cache import ResponseCache, default_cache_path
from ridgeline.llm.client import LLMClient
from ridgeline.llm.paper_a import build_items, results_frame
from ridgeline.llm.runner import run_items
from ridgeline.llm.scenarios import KernelPrompt, get_scenario
from ridgeline.llm.session import is_embedded, open_backend
from ridgeline.llm.settings import CallLimits, GenerationSettings

__all__ = ["PaperARun", "run_paper_a", "paper_table"]

log = logging.getLogger(__name__)
#: o200k tokens of program source kept for the embedded model (8,192-token context)
EMBEDDED_SOURCE_TOKENS = 4500
#: answer tokens for the embedded model when none is given: it rarely names the class in
#: fewer than ~16 ("The CUDA kernel [x] is classified as a compute-bound ..."), and an
#: unlimited answer runs on to the end of the context
EMBEDDED_MAX_TOKENS = 32


@dataclass
class PaperARun:
    """Settings of one run (all of them land in the provenance)."""

    model: str
    scenario: str = "zero-shot"
    base_url: str | None = field(default=None, repr=False)  # may carry credentials
    backend: str | None = None
    data_dir: str | None = None
    sources_root: str | None = None
    out: str = "runs/eval"
    limit: int | None = None
    sample: int | None = None  # a random sample of this many rows, half CUDA, half OpenMP
    split: str = "all"  # "all" | "train" | "validation"
    concurrency: int | None = None
    max_source_tokens: int | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    tool_predictor: str | None = None
    cache_path: str | None = None
    seed: int = 4839
    gpu: str = "rtx3080"
    context: str = "program"  # "program" (paper) | "kernel" (kernel-only extraction)
    counts_file: str | None = None  # profiling: counted numbers instead of measured ones
    progress: bool = True
    limits: CallLimits = field(default_factory=CallLimits)  # how long one call may take
    extras: Callable[[Any, KernelPrompt], None] | None = field(default=None, repr=False)

    @classmethod
    def from_cli(cls, args: Any) -> PaperARun:
        """The run the flags of ``ridgeline eval --task paper-a`` and ``ridgeline llm run``
        ask for (a flag a command lacks takes its default)."""
        scenario = args.scenario or "zero-shot"
        return cls(
            model=args.model, scenario=scenario, base_url=args.base_url,
            backend=getattr(args, "backend", None), data_dir=args.data_dir, out=args.out,
            limit=args.limit, sample=getattr(args, "sample", None),
            split=getattr(args, "split", None) or ("validation" if scenario == "fine-tune"
                                                   else "all"),
            concurrency=getattr(args, "concurrency", None),
            max_source_tokens=getattr(args, "max_source_tokens", None),
            max_tokens=getattr(args, "max_tokens", None),
            tool_predictor=getattr(args, "tool_predictor", None),
            context=getattr(args, "context", None) or "program",
            counts_file=getattr(args, "counts_file", None), seed=args.seed,
            limits=CallLimits.from_cli(args))

    def settings(self) -> GenerationSettings:
        max_tokens = self.max_tokens
        if max_tokens is None and is_embedded(self.model) and not self.base_url:
            max_tokens = EMBEDDED_MAX_TOKENS
        return GenerationSettings.for_model(self.model, max_tokens, self.reasoning_effort)


def _rows(run: PaperARun) -> pd.DataFrame:
    from ridgeline.datasets import load

    df = load("paper-a", run.data_dir)
    if run.split == "train":
        df = df[df.is_train]
    elif run.split == "validation":
        df = df[~df.is_train]
    if run.sample:
        per = max(1, run.sample // 2)
        df = df.groupby("model_type", group_keys=False).sample(
            n=per, random_state=run.seed).sort_index()
    return df.head(run.limit) if run.limit else df


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def run_paper_a(run: PaperARun) -> tuple[pd.DataFrame, pd.DataFrame, Path]:
    """Run *run*; return (per-kernel results, the paper's table, output folder)."""
    from ridgeline.evaluation.augment import extras_for

    scenario = get_scenario(run.scenario)
    df = _rows(run)
    embedded = is_embedded(run.model) and not run.base_url
    max_src = run.max_source_tokens or (EMBEDDED_SOURCE_TOKENS if embedded else None)
    conc = run.concurrency or int(os.environ.get("RIDGELINE_LLM_CONCURRENCY", 1 if embedded
                                                 else 4))
    extras = run.extras or extras_for(scenario, run.tool_predictor, run.gpu,
                                         run.counts_file)
    cache = ResponseCache(run.cache_path or default_cache_path())
    t0 = time.monotonic()
    with open_backend(run.model, run.base_url, run.backend,
                      limits=run.limits) as backend:  # fails fast
        items = build_items(df, scenario,
                            Path(run.sources_root) if run.sources_root else None,
                            run.gpu, "paper-a", max_src, extras, run.context)
        backend.http.concurrency = conc
        client = LLMClient(backend, run.settings(), cache)
        results = run_items(client, scenario, items, conc, run.progress)
        endpoint = backend.endpoint
        http = backend.http
    wall = time.monotonic() - t0
    cache.close()
    frame = results_frame(results)
    table = paper_table(frame)
    name = f"paper-a_{_slug(run.scenario)}_{_slug(run.model)}"
    out = Path(run.out) / (name if run.context == "program" else f"{name}_{run.context}")
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "results.csv", index=False)
    frame.drop(columns=["response"]).to_parquet(out / "results.parquet", index=False)
    table.to_csv(out / "table.csv", index=False)
    asked = int((~frame.cached.fillna(False).astype(bool) & frame.error.isna()).sum())
    summary = {
        "table": table.to_dict(orient="records"),
        "rows": len(frame),
        "asked": asked,
        "cache_hits": int(frame.cached.fillna(False).astype(bool).sum()),
        "errors": int(frame.error.notna().sum()),
        "attempts": int(frame.attempts.sum()),
        "wall_s": round(wall, 2),
        "kernels_per_minute": round(60 * len(frame) / wall, 2) if wall > 0 else None,
        "tokens_in": int(frame.tokens_in.fillna(0).sum()),
        "tokens_out": int(frame.tokens_out.fillna(0).sum()),
        "cost_usd": None if frame.cost_usd.isna().all() else float(frame.cost_usd.sum()),
        "provenance": provenance(
            dataset="paper-a", split=run.split, predictor="llm",
            settings={"model": run.model, "endpoint": endpoint, "scenario": scenario.tag,
                      "template": scenario.cache_tag, **run.settings().to_dict(),
                      "max_source_tokens": max_src, "context": run.context,
                      "counts_file": run.counts_file, "concurrency": conc,
                      "tool_predictor": run.tool_predictor, "gpu": run.gpu,
                      "limit": run.limit, "sample": run.sample,
                      "limits": {"timeout_s": http.timeout_s, "max_attempts": http.max_attempts,
                                 "total_timeout_s": http.total_s}},
            seed=run.seed),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
    return frame, table, out


def paper_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's table: accuracy, macro-F1 and MCC for CUDA, OpenMP and both; rows
    without an answer are *unanswered* (the model named no class) or *failed* (the prompt
    or the call failed: see the error column); both count as wrong."""
    rows = []
    for name, part in (("CUDA", frame[frame.model_type == "cuda"]),
                       ("OpenMP", frame[frame.model_type == "omp"]),
                       ("both", frame)):
        m = classification(list(part.truth), list(part.answer))
        failed = int(part.error.notna().sum()) if "error" in part else 0
        rows.append({"languages": name, "n": m["n"], "accuracy": m["accuracy"],
                     "macro_f1": m["macro_f1"], "mcc": m["mcc"],
                     "unanswered": m["n_unanswered"] - failed, "failed": failed})
    return pd.DataFrame(rows)
