"""Fine-tuning: export OpenAI chat-format JSONL from paper-a (the paper's 80/20 split, its
``is_train`` column, seed 4839), and fine-tune the embedded model locally with LoRA.

The local fine-tune loads the embedded GGUF into transformers (dequantized to float32 via
the ``gguf`` package), trains LoRA adapters (peft) on the training file with the loss on
the answer only, and scores the validation file before and after: the class whose answer
text is more likely under the model. The adapter is saved; it is not converted back to
GGUF, so the llama.cpp server keeps serving the base model.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ridgeline.errors import InputFileError, MissingDependencyError, UsageError
from ridgeline.llm.backends import Message
from ridgeline.llm.paper_a import build_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.sources.tokens import PAPER_CUTOFF, count_tokens

__all__ = ["export_finetune", "read_jsonl", "finetune_local", "FINETUNE_INSTALL"]

log = logging.getLogger(__name__)
FINETUNE_INSTALL = "pip install torch==2.13.0 && pip install transformers peft gguf"


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


def _score(torch: Any, model: Any, tok: Any, convs: Iterable[list[Message]],
           max_len: int) -> float:
    """Accuracy of picking the more likely of the two answers."""
    model.eval()
    right = total = 0
    with torch.no_grad():
        for msgs in convs:
            truth = msgs[-1]["content"]
            best, best_lp = None, -1e30
            for cand in ("Compute", "Bandwidth"):
                ids, start = _encode(tok, [*msgs[:-1], {"role": "assistant",
                                                         "content": cand}], max_len)
                x = torch.tensor([ids])
                logp = torch.log_softmax(model(x).logits[0, :-1].float(), -1)
                tgt = x[0, 1:]
                lp = logp[torch.arange(len(tgt)), tgt][start - 1:].sum().item()
                if lp > best_lp:
                    best, best_lp = cand, lp
            right += int(best == truth)
            total += 1
    return right / total if total else float("nan")


def finetune_local(train: str | Path, validation: str | Path, out_dir: str | Path,
                   steps: int = 100, lr: float = 2e-4, lora_r: int = 8, max_len: int = 1024,
                   random_state: int = 4839, model_path: str | Path | None = None,
                   max_validation: int | None = None) -> dict[str, Any]:
    """LoRA fine-tune of the embedded model; returns validation accuracy before/after
    (on the first *max_validation* validation conversations when given)."""
    from ridgeline.llm.embedded import gguf_path

    torch, transformers, peft = _deps()
    torch.manual_seed(random_state)
    gguf = Path(model_path) if model_path else gguf_path()
    tr, va = read_jsonl(train), read_jsonl(validation)
    va = va[:max_validation] if max_validation else va
    if not tr:
        raise InputFileError(f"{train}: no training conversations")
    t0 = time.monotonic()
    tok = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, torch_dtype=torch.float32)
    before = _score(torch, model, tok, va, max_len)
    cfg = peft.LoraConfig(r=lora_r, lora_alpha=2 * lora_r, lora_dropout=0.05,
                          target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    model = peft.get_peft_model(model, cfg)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    gen = torch.Generator().manual_seed(random_state)
    model.train()
    losses = []
    for step in range(steps):
        msgs = tr[int(torch.randint(len(tr), (1,), generator=gen))]
        ids, start = _encode(tok, msgs, max_len)
        x = torch.tensor([ids])
        labels = x.clone()
        labels[0, :start] = -100
        loss = model(input_ids=x, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(float(loss))
        if step % 10 == 0:
            log.info("step %d loss %.4f", step, float(loss))
    after = _score(torch, model, tok, va, max_len)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out / "adapter"))
    result = {
        "base_model": gguf.name, "train_conversations": len(tr),
        "validation_conversations": len(va), "steps": steps, "lr": lr, "lora_r": lora_r,
        "max_len": max_len, "seed": random_state,
        "validation_accuracy_before": before, "validation_accuracy_after": after,
        "first_loss": losses[0], "last_loss_mean10": sum(losses[-10:]) / len(losses[-10:]),
        "seconds": round(time.monotonic() - t0, 1),
    }
    (out / "finetune.json").write_text(json.dumps(result, indent=2) + "\n")
    return result
