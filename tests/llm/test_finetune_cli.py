"""Fine-tuning export (OpenAI chat JSONL, the paper's is_train split) and CLI errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.errors import InputFileError
from ridgeline.workflows.finetune import export_finetune, read_jsonl


def _rows() -> pd.DataFrame:
    return pd.DataFrame({
        "source": ["vadd-cuda", "fma-cuda", "vadd-omp", "gone-cuda"],
        "kernel": ["vadd", "fma", "__omp_offloading_10309_2f_main_l12", "k"],
        "model_type": ["cuda", "cuda", "omp", "cuda"],
        "label": ["Bandwidth", "Compute", "Bandwidth", "Compute"],
        "is_train": [True, True, False, True],
        "block": [(256, 1, 1)] * 4,
        "grid": [(64, 1, 1)] * 4,
        "exe_args": ["100", "", "100", ""],
        "device": ["NVIDIA GeForce RTX 3080"] * 4,
    })


def test_export_writes_openai_chat_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for name, text in (("vadd-cuda", "__global__ void vadd(){}"),
                       ("fma-cuda", "__global__ void fma(){}"),
                       ("vadd-omp", "int main(){\n#pragma omp target\n{}\n}")):
        (src / name).mkdir(parents=True)
        (src / name / ("main.cu" if "cuda" in name else "main.cpp")).write_text(text)
    counts = export_finetune(_rows(), tmp_path / "ft", sources_root=src)
    assert counts["train"] == 2 and counts["validation"] == 1 and counts["skipped"] == 1
    assert counts["over_cutoff"] == 0
    small = export_finetune(_rows(), tmp_path / "ft2", sources_root=src, cutoff=3)
    assert small["over_cutoff"] == 3 and small["train"] == 0
    train = read_jsonl(tmp_path / "ft" / "train.jsonl")
    assert [c[-1]["content"] for c in train] == ["Bandwidth", "Compute"]
    assert [m["role"] for m in train[0]] == ["system", "user", "user", "assistant"]
    assert "vadd" in train[0][2]["content"]
    val = read_jsonl(tmp_path / "ft" / "validation.jsonl")
    assert "in function [main]" in val[0][1]["content"]
    for line in (tmp_path / "ft" / "train.jsonl").read_text().splitlines():
        assert set(json.loads(line)) == {"messages"}


def test_read_jsonl_rejects_bad_files(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text('{"messages": [{"role": "user", "content": "x"}]}\n')
    with pytest.raises(InputFileError, match="assistant"):
        read_jsonl(p)
    p.write_text("not json\n")
    with pytest.raises(InputFileError, match=":1:"):
        read_jsonl(p)


def test_cli_missing_key_fails_before_any_call(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rc = main(["llm", "ask", "--model", "openai:gpt-4o-mini", "--text", "hi"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "Traceback" not in err


def test_cli_lists_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["llm", "scenarios"]) == 0
    out = capsys.readouterr().out
    assert "zero-shot@1" in out and "few-shot@1" in out and "profiling-synthetic@1" in out


def test_eval_task_rejects_other_predictors(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["eval", "--task", "paper-a", "--predictor", "analytic", "--model", "x"])
    assert rc == 2 and "--predictor llm" in capsys.readouterr().err


def test_profiling_with_counted_numbers(tmp_path: Path) -> None:
    from ridgeline.evaluation.augment import counted_profile
    from ridgeline.llm.paper_a import build_items
    from ridgeline.llm.scenarios import get_scenario

    rec = {"source": "vadd-omp", "args": "100", "launches": [
        {"kernel": "main_l12", "flops_sp": 100.0, "flops_dp": 0.0, "int_ops": 50.0,
         "dram_bytes": 1000.0, "dram_bytes_by_gpu": {"GeForce RTX 3080": 400.0}},
        {"kernel": "main_l12", "flops_sp": 300.0, "flops_dp": 0.0, "int_ops": 50.0,
         "dram_bytes": 1000.0, "dram_bytes_by_gpu": {"GeForce RTX 3080": 400.0}}]}
    f = tmp_path / "counts.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    items = build_items(_rows(), get_scenario("profiling"), extras=counted_profile(f))
    assert [i.error is None for i in items] == [False, False, True, False]
    text = items[2].messages[1]["content"]  # type: ignore[index]
    assert "counted by ridgeline" in text and "single-precision 0.5 FLOP/B" in text
    assert "integer 0.125 op/B" in text


def test_tool_augmented_uses_a_registered_predictor(tmp_path: Path) -> None:
    from ridgeline.evaluation.augment import extras_for
    from ridgeline.hardware import Counts
    from ridgeline.llm.paper_a import build_items
    from ridgeline.llm.scenarios import get_scenario
    from ridgeline.predictors import PREDICTORS, Prediction, Predictor

    class HalfPredictor(Predictor):
        """Counts from the launch size alone: 2 FLOPs and 8 bytes per thread."""

        name = "test-per-thread"

        def predict(self, kernel, launch, gpu):  # type: ignore[no-untyped-def]
            t = float(launch.threads or 0)
            if kernel.name == "fma":
                raise ZeroDivisionError("bug in a predictor")
            return Prediction.from_counts(kernel.name, gpu, Counts(2 * t, 0, 0, t, 8 * t),
                                          self.name)

    if "test-per-thread" not in PREDICTORS:
        PREDICTORS.add("test-per-thread", HalfPredictor)
    src = tmp_path / "src"
    for name in ("vadd-cuda", "fma-cuda"):
        (src / name).mkdir(parents=True)
        (src / name / "main.cu").write_text("__global__ void k(){}")
    sc = get_scenario("tool-augmented")
    items = build_items(_rows().head(2), sc, src,
                        extras=extras_for(sc, "test-per-thread", "rtx3080"))
    text = items[0].messages[1]["content"]  # type: ignore[index]
    assert "(test-per-thread)" in text and "DRAM bytes 1.311e+05" in text
    assert "single 0.25 FLOP/B" in text and "ridge points are 32.97 FLOP/B" in text
    assert items[1].messages is None and "ZeroDivisionError" in str(items[1].error)
