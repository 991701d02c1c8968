"""``ridgeline llm``: serve the embedded model, ask, run scenarios, fine-tune."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ridgeline.cli._common import add_data_dir, print_table

if TYPE_CHECKING:
    from ridgeline.llm.runner import Failures
    from ridgeline.llm.settings import CallLimits

EPILOG = """examples:
  ridgeline llm serve --port 8080
  ridgeline llm ask --model smollm2 --text "Is SAXPY compute or bandwidth bound?"
  ridgeline llm ask --model openai:gpt-4o-mini --sources prog/ --kernel saxpy \\
      --block 256 --grid 4096
  ridgeline llm run --model smollm2 --scenario few-shot --limit 20
  ridgeline llm profiling --model smollm2 -n 100 --examples 2 --style plain
  ridgeline llm tokens external/gpuFLOPBench/src/haccmk-cuda
  ridgeline llm export-finetune --out runs/ft
  ridgeline llm finetune --train runs/ft/train.jsonl --validation runs/ft/validation.jsonl
model names: smollm2 (embedded, started on loopback), openai:NAME, azure:DEPLOYMENT,
openrouter:ORG/NAME, local:NAME with --base-url (vLLM, ollama, llama.cpp).
keys come from OPENAI_API_KEY, AZURE_OPENAI_API_KEY, OPENROUTER_API_KEY, RIDGELINE_LLM_API_KEY.
every call is bounded: --timeout per attempt (connect to last byte), --max-attempts, and
--total-timeout for all attempts of one call. Failed calls are listed with their last error;
a batch where every call failed exits 2, one with some answers exits 0 with a warning.
a key inside --base-url (http://user:KEY@host/v1 or ?api_key=KEY) is sent with every request
(userinfo as HTTP Basic auth) but never cached, logged or shown (***).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("llm", help="LLM roofline classification (the 2025 paper's scenarios)",
                       description="LLM roofline classification: serve the embedded model, "
                       "ask one kernel, run scenarios over paper-a, fine-tune.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    s = p.add_subparsers(dest="llm_command", metavar="SUBCOMMAND")
    _serve(s)
    _ask(s)
    _run(s)
    _profiling(s)
    _tokens(s)
    _export(s)
    _finetune(s)
    sc = s.add_parser("scenarios", help="list scenarios with their versions")
    sc.set_defaults(func=_cmd_scenarios)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])


def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="smollm2", help="model name (default: smollm2)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible base URL (.../v1)")
    p.add_argument("--backend", default=None, help="openai|azure|openrouter|local")
    p.add_argument("--max-tokens", type=int, default=None, help="answer token limit")
    add_call_limits(p)


def add_call_limits(p: argparse.ArgumentParser) -> None:
    """--timeout, --max-attempts and --total-timeout (see CallLimits)."""
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time limit of one attempt of a call, from connecting to the last "
                   "byte of the answer (default 120; 1800 for the embedded model; "
                   "$RIDGELINE_LLM_TIMEOUT)")
    p.add_argument("--max-attempts", type=int, default=None, metavar="N",
                   help="attempts per call, retries included (default 5; 2 for the embedded "
                   "model; $RIDGELINE_LLM_MAX_ATTEMPTS)")
    p.add_argument("--total-timeout", type=float, default=None, metavar="SECONDS",
                   help="time limit of one call with all its attempts and waits (default "
                   "3 x --timeout; $RIDGELINE_LLM_TOTAL_TIMEOUT)")


def call_limits(a: argparse.Namespace) -> CallLimits:
    """The CallLimits of the parsed flags (validated: a bad value names its flag)."""
    from ridgeline.llm.settings import CallLimits

    return CallLimits.from_cli(a)


def warn_failures(failures: Failures) -> None:
    """Print a batch's failed items with their last error on stderr."""
    if failures.failed:
        print(failures.warning(), file=sys.stderr)


def _serve(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("serve", help="serve the embedded model (OpenAI-compatible, loopback)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--n-ctx", type=int, default=8192, help="context window (default 8192)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--weights", choices=["f32", "q4_1"], default=None,
                   help="f32 (default; the packaged Q4_1 weights unpacked once, about 2x "
                        "faster prompt processing) or q4_1 (the packaged file as it is); "
                        "also $RIDGELINE_LLM_WEIGHTS")
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(a: argparse.Namespace) -> int:
    from ridgeline.llm.embedded import EMBEDDED_MODEL, EmbeddedServer

    srv = EmbeddedServer(port=a.port, n_ctx=a.n_ctx, threads=a.threads,
                         weights=a.weights).start()
    print(f"serving {EMBEDDED_MODEL} ({srv.command()[4]}) at {srv.base_url} (Ctrl-C stops)",
          flush=True)
    try:
        return srv.wait()
    finally:
        srv.stop()


def _ask(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("ask", help="ask one question, or classify one kernel")
    _model_args(p)
    p.add_argument("--text", help="a free question (instead of a kernel)")
    p.add_argument("--sources", help="program folder holding the kernel")
    p.add_argument("--kernel", help="kernel name")
    p.add_argument("--language", choices=["cuda", "omp", "opencl"], default=None)
    p.add_argument("--gpu", default="rtx3080")
    p.add_argument("--grid", default=None)
    p.add_argument("--block", default=None)
    p.add_argument("--args", default="", help="the program's command-line arguments")
    p.add_argument("--scenario", default="zero-shot")
    p.set_defaults(func=_cmd_ask)


def _cmd_ask(a: argparse.Namespace) -> int:
    from pathlib import Path

    from ridgeline.errors import UsageError
    from ridgeline.hardware import get_gpu
    from ridgeline.launch import KernelRef, Launch
    from ridgeline.llm.session import open_backend
    from ridgeline.llm.settings import GenerationSettings
    from ridgeline.predictors.llm_classifier import LLMClassifier

    limits = call_limits(a)
    if a.text:
        with open_backend(a.model, a.base_url, a.backend, limits=limits) as b:
            comp = b.complete([{"role": "user", "content": a.text}],
                              GenerationSettings.for_model(a.model, a.max_tokens))
        print(comp.text)
        return 0
    if not (a.sources and a.kernel):
        raise UsageError("llm ask needs --text, or --sources and --kernel")
    pred = LLMClassifier(a.model, a.base_url, a.scenario, a.backend,
                         timeout_s=limits.timeout_s, max_attempts=limits.max_attempts,
                         total_timeout_s=limits.total_timeout_s).predict(
        KernelRef(a.kernel, (Path(a.sources),), a.language),
        Launch.parse(a.grid, a.block, a.args), get_gpu(a.gpu))
    label = pred.labels["paper-a"]
    print(label.value or f"(no answer: {label.reason})")
    return 0


def _run(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("run", help="run a scenario over the paper-a rows")
    _model_args(p)
    p.add_argument("--scenario", default="zero-shot")
    p.add_argument("--split", choices=["all", "train", "validation"], default=None)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--sample", type=int, default=None,
                   help="random rows, half CUDA half OpenMP (seed --seed)")
    p.add_argument("--concurrency", type=int, default=None)
    p.add_argument("--max-source-tokens", type=int, default=None,
                   help="cut program sources to this many o200k tokens")
    p.add_argument("--tool-predictor", default=None, help="tool-augmented: predictor name")
    p.add_argument("--context", choices=["program", "kernel"], default="program",
                   help="all program sources (paper) or the kernel-only extraction")
    p.add_argument("--counts-file", default=None,
                   help="profiling scenario: counted numbers (ridgeline.counting JSONL) "
                   "instead of the profiler's")
    p.add_argument("--seed", type=int, default=4839)
    p.add_argument("--out", default="runs/eval")
    add_data_dir(p)
    p.set_defaults(func=_cmd_run, predictor="llm")


def _cmd_run(a: argparse.Namespace) -> int:
    from ridgeline.evaluation.tasks.paper_a import run_task

    return run_task(a)


def _profiling(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("profiling", help="synthetic roofline questions (paper's profiling a)")
    _model_args(p)
    p.add_argument("-n", type=int, default=100, help="number of questions (default 100)")
    p.add_argument("--examples", type=int, default=2, choices=[0, 2, 4, 8])
    p.add_argument("--style", choices=["plain", "steps"], default="plain")
    p.add_argument("--seed", type=int, default=4839)
    p.add_argument("--concurrency", type=int, default=1)
    p.set_defaults(func=_cmd_profiling)


def _cmd_profiling(a: argparse.Namespace) -> int:
    from ridgeline.evaluation import classification
    from ridgeline.llm.cache import ResponseCache, default_cache_path
    from ridgeline.llm.client import LLMClient
    from ridgeline.llm.runner import Failures, run_items
    from ridgeline.llm.scenarios import get_scenario
    from ridgeline.llm.session import open_backend
    from ridgeline.llm.settings import GenerationSettings
    from ridgeline.llm.synthetic import rule_accuracy, synthetic_items

    items = synthetic_items(a.n, a.examples, a.style, a.seed)
    sc = get_scenario("profiling-synthetic")
    max_tokens = a.max_tokens or (8 if a.style == "plain" else 200)
    with open_backend(a.model, a.base_url, a.backend, limits=call_limits(a)) as b:
        client = LLMClient(b, GenerationSettings.for_model(a.model, max_tokens),
                           ResponseCache(default_cache_path()))
        res = run_items(client, sc, items, a.concurrency)
    fails = Failures.of(res)
    fails.raise_if_all_failed(f" ({a.model})")
    m = classification([r.truth for r in res], [r.answer for r in res])
    print_table(["answerer", "n", "accuracy", "macro_f1", "mcc", "unanswered", "failed"], [
        [a.model, m["n"], m["accuracy"], m["macro_f1"], m["mcc"],
         m["n_unanswered"] - len(fails.failed), len(fails.failed)],
        ["roofline rule", a.n, rule_accuracy(a.n, a.seed), None, None, 0, 0],
    ])
    warn_failures(fails)
    return 0


def _tokens(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("tokens", help="o200k token count of a program folder (paper's context)")
    p.add_argument("folders", nargs="+")
    p.set_defaults(func=_cmd_tokens)


def _cmd_tokens(a: argparse.Namespace) -> int:
    from ridgeline.sources.context import build_context

    rows = []
    for f in a.folders:
        ctx = build_context(f)
        rows.append([f, ctx.num_tokens, "yes" if ctx.over_cutoff else "no"])
    print_table(["program", "o200k tokens", "over 8000"], rows)
    return 0


def _export(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("export-finetune", help="OpenAI fine-tuning JSONL from paper-a (80/20)")
    p.add_argument("--out", default="runs/finetune")
    p.add_argument("--scenario", default="fine-tune")
    p.add_argument("--max-source-tokens", type=int, default=None)
    p.add_argument("--cutoff", type=int, default=8000,
                   help="skip rows whose prompt is over this many o200k tokens (paper: 8000; "
                   "0 keeps all)")
    add_data_dir(p)
    p.set_defaults(func=_cmd_export)


def _cmd_export(a: argparse.Namespace) -> int:
    from ridgeline.datasets import load
    from ridgeline.workflows.finetune import export_finetune

    counts = export_finetune(load("paper-a", a.data_dir), a.out, a.scenario,
                             max_source_tokens=a.max_source_tokens, cutoff=a.cutoff or None)
    print(json.dumps(counts))
    return 0


def _finetune(s: argparse._SubParsersAction) -> None:
    p = s.add_parser("finetune", help="LoRA fine-tune of the embedded model (torch, CPU)")
    p.add_argument("--train", required=True)
    p.add_argument("--validation", required=True)
    p.add_argument("--out", default="runs/finetune/local")
    p.add_argument("--epochs", type=float, default=1.0,
                   help="passes over the training file (default 1)")
    p.add_argument("--steps", type=int, default=None,
                   help="conversations to train on (overrides --epochs)")
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--max-train-minutes", type=float, default=None,
                   help="stop training after this many minutes (slow machines)")
    p.add_argument("--max-len", type=int, default=1024)
    p.add_argument("--max-validation", type=int, default=None,
                   help="score only the first N validation conversations")
    p.add_argument("--seed", type=int, default=4839)
    p.set_defaults(func=_cmd_finetune)


def _cmd_finetune(a: argparse.Namespace) -> int:
    from ridgeline.workflows.finetune import finetune_local

    res = finetune_local(a.train, a.validation, a.out, a.steps, a.lr, max_len=a.max_len,
                         random_state=a.seed, max_validation=a.max_validation,
                         epochs=a.epochs, threads=a.threads,
                         max_train_seconds=a.max_train_minutes * 60
                         if a.max_train_minutes else None)
    print(json.dumps(res, indent=2))
    return 0


def _cmd_scenarios(a: argparse.Namespace) -> int:
    from ridgeline.llm.scenarios import get_scenario, scenario_names

    rows = []
    for n in scenario_names():
        sc = get_scenario(n)
        rows.append([sc.tag, sc.parser, ",".join(sc.metrics), sc.description])
    print_table(["scenario", "parser", "metrics", "description"], rows)
    return 0
