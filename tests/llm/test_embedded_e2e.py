"""End to end against the real embedded model (SmolLM2-135M-Instruct) served by
llama-cpp-python on a loopback port. Few calls, small max_tokens."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ridgeline.hardware import get_gpu
from ridgeline.llm.backends import make_backend
from ridgeline.llm.cache import ResponseCache
from ridgeline.llm.client import LLMClient
from ridgeline.llm.embedded import EMBEDDED_MODEL
from ridgeline.llm.http import ContextLengthError, ModelNotFoundError
from ridgeline.llm.runner import run_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.llm.settings import GenerationSettings
from ridgeline.llm.synthetic import synthetic_items

pytestmark = pytest.mark.slow

KERNEL = """__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() { saxpy<<<4096, 256>>>(1 << 20, 2.0f, 0, 0); return 0; }
"""


def test_check_and_one_answer(embedded_server: Any) -> None:
    b = make_backend(EMBEDDED_MODEL, embedded_server.base_url, env={})
    b.check()
    comp = b.complete([{"role": "user", "content": "Say the word Compute."}],
                      GenerationSettings.for_model(EMBEDDED_MODEL, 6))
    assert comp.text.strip() and comp.tokens_in and comp.tokens_in > 5
    assert comp.tokens_out is not None and 1 <= comp.tokens_out <= 6
    assert comp.latency_s is not None and comp.latency_s > 0


def test_unknown_model_and_long_prompt_fail_at_first_call(embedded_server: Any) -> None:
    with pytest.raises(ModelNotFoundError, match="gpt-4o"):
        make_backend("gpt-4o", embedded_server.base_url, env={}).check()
    b = make_backend(EMBEDDED_MODEL, embedded_server.base_url, env={})
    huge = "float x = a[i] * b[i] + c[i];\n" * 600  # well over the 2,048-token window
    with pytest.raises(ContextLengthError):
        b.complete([{"role": "user", "content": huge}],
                   GenerationSettings.for_model(EMBEDDED_MODEL, 4))


def test_scenarios_run_cached_and_resumable(embedded_server: Any, tmp_path: Path) -> None:
    b = make_backend(EMBEDDED_MODEL, embedded_server.base_url, env={})
    client = LLMClient(b, GenerationSettings.for_model(EMBEDDED_MODEL, 4),
                       ResponseCache(tmp_path / "c.sqlite"))
    sc = get_scenario("profiling-synthetic")
    items = synthetic_items(4, n_examples=2)
    t0 = time.monotonic()
    first = run_items(client, sc, items, concurrency=2, progress=False)
    cold = time.monotonic() - t0
    assert all(r.error is None and r.response for r in first)
    assert not any(r.cached for r in first)
    t0 = time.monotonic()
    again = run_items(client, sc, items, concurrency=2, progress=False)
    warm = time.monotonic() - t0
    assert all(r.cached for r in again)
    assert [r.response for r in again] == [r.response for r in first]
    assert warm < cold


def test_llm_predictor_on_a_program_folder(embedded_server: Any, tmp_path: Path) -> None:
    from ridgeline.launch import KernelRef, Launch
    from ridgeline.predictors.llm_classifier import LLMClassifier

    (tmp_path / "saxpy").mkdir()
    (tmp_path / "saxpy" / "main.cu").write_text(KERNEL)
    pred = LLMClassifier("smollm2", embedded_server.base_url,
                         cache_path=str(tmp_path / "c.sqlite")).predict(
        KernelRef("saxpy", (tmp_path / "saxpy",), "cuda"),
        Launch.parse("(4096,1,1)", "(256,1,1)", ""), get_gpu("rtx3080"))
    label = pred.labels["paper-a"]
    assert label.value in ("Compute", "Bandwidth", None)
    assert pred.notes and pred.notes[0].startswith("answer:")
    assert pred.origin["counts"] == "not predicted"


def test_eval_task_profiling_scenario(embedded_server: Any, data_dir: Path,
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ridgeline.cli import main

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    rc = main(["eval", "--task", "paper-a", "--predictor", "llm", "--model", "smollm2",
               "--base-url", embedded_server.base_url, "--scenario", "profiling",
               "--limit", "3", "--out", str(tmp_path / "runs"), "--data-dir", str(data_dir)])
    assert rc == 0
    out = tmp_path / "runs" / "paper-a_profiling_smollm2"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rows"] == 3 and summary["errors"] == 0
    assert [r["languages"] for r in summary["table"]] == ["CUDA", "OpenMP", "both"]
    assert summary["provenance"]["settings"]["template"].startswith("profiling@1#")
    import pandas as pd

    res = pd.read_csv(out / "results.csv")
    assert len(res) == 3 and set(res.truth) <= {"Compute", "Bandwidth"}
    assert (res.tokens_in > 0).all()


def test_unpacked_f32_weights_answer_like_the_packaged_file(embedded_server: Any,
                                                             tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    """The server's default f32 file is the packaged Q4_1 model unpacked: greedy decoding
    gives the same tokens from both files; a bad weights name is refused up front."""
    from llama_cpp import Llama

    from ridgeline.errors import BackendError
    from ridgeline.llm.embedded import gguf_path, served_gguf

    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path))
    f32 = served_gguf("f32")
    assert f32.parent == tmp_path / "models" and f32.stat().st_size > 4 * gguf_path().stat(
    ).st_size
    assert served_gguf("f32") == f32  # made once, reused
    assert served_gguf("q4_1") == gguf_path()
    with pytest.raises(BackendError, match="unknown embedded-model weights 'q8'"):
        served_gguf("q8")
    texts = []
    for path in (gguf_path(), f32):
        m = Llama(model_path=str(path), n_ctx=256, n_threads=1, verbose=False, seed=0)
        out = m.create_completion("The roofline model says a kernel is", max_tokens=12,
                                  temperature=0.0)
        texts.append(out["choices"][0]["text"])
        del m
    assert texts[0] == texts[1] and texts[0].strip()
