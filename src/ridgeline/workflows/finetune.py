"""Fine-tuning: export OpenAI chat-format JSONL from paper-a (the paper's 80/20 split, its
``is_train`` column, seed 4839), and fine-tune the embedded model locally with LoRA.

The local fine-tune loads the embedded GGUF into transformers (dequantized to float32 via
the ``gguf`` package), trains LoRA adapters (peft) on the training file with the loss on
the answer only, and scores the validation file before and after: the class whose answer
text is more likely under the model. The adapter is saved; it is not converted back to
GGUF, so the llama.cpp server keeps serving the base model.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.errors import InputFileError, MissingDependencyError, UsageError
from ridgeline.evaluation.metrics import classification
from ridgeline.llm.backends import Message
from ridgeline.llm.paper_a import build_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.sources.tokens import PAPER_CUTOFF, count_tokens

__all__ = ["export_finetune", "read_jsonl", "finetune_local", "FINETUNE_INSTALL"]

log = logging.getLogger(__name__)
FINETUNE_INSTALL = "pip install torch==2.13.0 && pip install transformers peft gguf"
CLASSES = ("Compute", "Bandwidth")


def export_finetune(df: pd.DataFrame, out_dir: str | Path, scenario: str = "fine-tune",
                    sources_root: Path | None = None,
                    max_source_tokens: int | None = None,
                    cutoff: int | None = PAPER_CUTOFF) -> dict[str, Any]:
    """Write ``train.jsonl`` and ``validation.jsonl`` (one ``{"messages": [...]}`` per
    row, the label as the assistant's answer) split by ``is_train``. Rows whose prompt
    cannot be built are skipped and counted; so are rows whose program source is over
    *cutoff* o200k tokens (the paper's 8,000; None keeps all)."""
    sc = get_scenario(scenario)
    items = build_items(df, sc, sources_root, max_source_tokens=max_source_tokens)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = {"train": 0, "validation": 0, "skipped": 0, "over_cutoff": 0}
    with open(out / "train.jsonl", "w", encoding="utf-8") as tr, \
            open(out / "validation.jsonl", "w", encoding="utf-8") as va:
        for it in items:
            if it.messages is None or not it.truth:
                counts["skipped"] += 1
                continue
            if cutoff and count_tokens(it.messages[-1]["content"]) > cutoff + 4:  # code + fences
                counts["over_cutoff"] += 1
                continue
            rec = {"messages": [*it.messages, {"role": "assistant", "content": it.truth}]}
            split = "train" if it.meta.get("is_train") else "validation"
            (tr if split == "train" else va).write(json.dumps(rec, ensure_ascii=False) + "\n")
            counts[split] += 1
    counts["scenario"] = sc.tag  # type: ignore[assignment]
    (out / "export.json").write_text(json.dumps(counts, indent=2) + "\n")
    return counts


def read_jsonl(path: str | Path) -> list[list[Message]]:
    """Conversations of an OpenAI fine-tuning file, checked for the format."""
    p = Path(path)
    if not p.is_file():
        raise InputFileError(f"{str(p)!r} does not exist")
    convs = []
    for n, line in enumerate(p.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            msgs = json.loads(line)["messages"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputFileError(f"{p}:{n}: not a {{\"messages\": [...]}} JSON line") from None
        if not msgs or msgs[-1].get("role") != "assistant":
            raise InputFileError(f"{p}:{n}: the last message must be the assistant's answer")
        convs.append(msgs)
    return convs


def _deps() -> tuple[Any, Any, Any]:
    try:
        import peft
        import torch
        import transformers
    except ImportError as e:
        raise MissingDependencyError("local fine-tuning (torch, transformers, peft, gguf)",
                                     FINETUNE_INSTALL, str(e)) from None
    return torch, transformers, peft


def _encode(tok: Any, msgs: list[Message], max_len: int) -> tuple[list[int], int]:
    """Token ids of the prompt (truncated from the end of the code to fit) + answer, and
    where the answer starts."""
    prompt = tok.apply_chat_template(msgs[:-1], tokenize=True, add_generation_prompt=True)
    prompt = list(prompt["input_ids"] if hasattr(prompt, "keys") else prompt)
    answer = tok(msgs[-1]["content"] + tok.eos_token, add_special_tokens=False)["input_ids"]
    keep = max_len - len(answer)
    if keep < 16:
        raise UsageError(f"max_len {max_len} leaves no room for the prompt")
    if len(prompt) > keep:
        prompt = prompt[: keep - 8] + prompt[-8:]  # keep the generation prompt's tail
    return prompt + answer, len(prompt)


def _predict(torch: Any, model: Any, tok: Any, convs: Iterable[list[Message]],
             max_len: int) -> list[str]:
    """For each conversation, the class whose answer text (with end-of-turn) is more likely
    after the prompt. The prompt is run once; each candidate continues from its cache."""
    model.eval()
    cands = {c: tok(c + tok.eos_token, add_special_tokens=False)["input_ids"]
             for c in CLASSES}
    preds = []
    with torch.no_grad():
        for msgs in convs:
            ids, start = _encode(tok, msgs, max_len)
            prompt = torch.tensor([ids[:start]])
            out = model(prompt, use_cache=True)
            first = torch.log_softmax(out.logits[0, -1].float(), -1)
            best, best_lp = CLASSES[0], -1e30
            for cand, cids in cands.items():
                lp = float(first[cids[0]])
                if len(cids) > 1:
                    cache = copy.deepcopy(out.past_key_values)
                    nxt = model(torch.tensor([cids[:-1]]), past_key_values=cache,
                                use_cache=True)
                    logp = torch.log_softmax(nxt.logits[0].float(), -1)
                    lp += float(logp[torch.arange(len(cids) - 1), torch.tensor(cids[1:])].sum())
                if lp > best_lp:
                    best, best_lp = cand, lp
            preds.append(best)
    return preds


def _metrics(truth: list[str], preds: list[str]) -> dict[str, Any]:
    m = classification(truth, preds)
    return {"n": m["n"], "accuracy": m["accuracy"], "macro_f1": m["macro_f1"],
            "mcc": m["mcc"], "predicted_compute": sum(p == "Compute" for p in preds)}


def finetune_local(train: str | Path, validation: str | Path, out_dir: str | Path,
                   steps: int | None = None, lr: float = 2e-4, lora_r: int = 8,
                   max_len: int = 1024, random_state: int = 4839,
                   model_path: str | Path | None = None, max_validation: int | None = None,
                   epochs: float = 1.0, threads: int | None = None,
                   grad_accum: int = 4,
                   max_train_seconds: float | None = None) -> dict[str, Any]:
    """LoRA fine-tune of the embedded model on *train* (each conversation truncated to
    *max_len* tokens; loss on the answer only), then accuracy / macro-F1 / MCC of the
    untuned and the tuned model on the same validation conversations (the first
    *max_validation* when given). *steps* (conversations seen) defaults to *epochs* passes
    over the shuffled training file; the optimizer steps every *grad_accum* of them.
    *max_train_seconds* stops training early (at an optimizer step) on slow machines; the
    result says how many conversations were seen."""
    from ridgeline.llm.embedded import gguf_path

    torch, transformers, peft = _deps()
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(random_state)
    gguf = Path(model_path) if model_path else gguf_path()
    tr, va = read_jsonl(train), read_jsonl(validation)
    va = va[:max_validation] if max_validation else va
    if not tr:
        raise InputFileError(f"{train}: no training conversations")
    total = steps if steps is not None else max(1, round(epochs * len(tr)))
    t0 = time.monotonic()
    tok = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, torch_dtype=torch.float32)
    truth = [c[-1]["content"] for c in va]
    before_preds = _predict(torch, model, tok, va, max_len)
    t_eval = time.monotonic() - t0
    log.info("untuned model scored in %.0fs", t_eval)
    cfg = peft.LoraConfig(r=lora_r, lora_alpha=2 * lora_r, lora_dropout=0.05,
                          target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                          task_type="CAUSAL_LM")
    model = peft.get_peft_model(model, cfg)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    gen = torch.Generator().manual_seed(random_state)
    order: list[int] = []
    model.train()
    losses = []
    t1 = time.monotonic()
    seen = 0
    for step in range(total):
        if (max_train_seconds is not None and step % grad_accum == 0
                and time.monotonic() - t1 > max_train_seconds):
            log.info("training stopped after %d conversations (time budget)", step)
            break
        seen = step + 1
        if not order:
            order = torch.randperm(len(tr), generator=gen).tolist()
        msgs = tr[order.pop()]
        ids, start = _encode(tok, msgs, max_len)
        x = torch.tensor([ids])
        labels = x.clone()
        labels[0, :start] = -100
        loss = model(input_ids=x, labels=labels).loss
        (loss / grad_accum).backward()
        if (step + 1) % grad_accum == 0 or step + 1 == total:
            opt.step()
            opt.zero_grad()
        losses.append(loss.item())
        if step % 10 == 0:
            log.info("step %d/%d loss %.4f (%.0fs)", step, total, losses[-1],
                     time.monotonic() - t1)
    t_train = time.monotonic() - t1
    after_preds = _predict(torch, model, tok, va, max_len)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out / "adapter"))
    before, after = _metrics(truth, before_preds), _metrics(truth, after_preds)
    result = {
        "base_model": gguf.name, "method": f"LoRA r={lora_r} on q/k/v/o projections",
        "train_conversations": len(tr), "validation_conversations": len(va),
        "conversations_planned": total, "conversations_seen": seen,
        "epochs": round(seen / len(tr), 2), "max_train_seconds": max_train_seconds,
        "grad_accum": grad_accum, "lr": lr, "lora_r": lora_r, "max_len": max_len,
        "seed": random_state, "threads": threads,
        "scoring": "the more likely of the two answers after the prompt (truncated alike)",
        "validation_untuned": before, "validation_tuned": after,
        "validation_accuracy_before": before["accuracy"],
        "validation_accuracy_after": after["accuracy"],
        "validation_truth_compute": sum(t == "Compute" for t in truth),
        "first_loss": losses[0] if losses else None,
        "last_loss": losses[-1] if losses else None,
        "first_loss_mean10": sum(losses[:10]) / len(losses[:10]),
        "last_loss_mean10": sum(losses[-10:]) / len(losses[-10:]),
        "train_seconds": round(t_train, 1), "seconds": round(time.monotonic() - t0, 1),
    }
    (out / "finetune.json").write_text(json.dumps(result, indent=2) + "\n")
    pd.DataFrame({"truth": truth, "untuned": before_preds, "tuned": after_preds}).to_csv(
        out / "validation_predictions.csv", index=False)
    return result
