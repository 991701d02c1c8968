"""The llm commands report failed calls with their last error: every call failed -> exit 2
with the last error; some failed -> exit 0, a warning listing them, and a failed column."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.llm.embedded import free_port
from tests.llm.faults import FaultServer, chat_ok

SECRET = "sk-cli-secret-33"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    for var in ("RIDGELINE_LLM_TIMEOUT", "RIDGELINE_LLM_MAX_ATTEMPTS",
                "RIDGELINE_LLM_TOTAL_TIMEOUT", "RIDGELINE_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def _keyed(srv: FaultServer) -> str:
    return srv.base_url.replace("http://", f"http://u:{SECRET}@")


def _profiling(url: str, *extra: str) -> int:
    return main(["llm", "profiling", "--model", "tiny-model", "--base-url", url, "-n", "3",
                 "--examples", "0", "--max-attempts", "1", *extra])


def test_profiling_all_failed_exits_2_with_the_last_error(
        fault_server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    fault_server.default = ("json", 500, {"error": "model crashed"})
    assert _profiling(_keyed(fault_server)) == 2
    err = capsys.readouterr().err
    assert "all 3 items failed" in err and "attempts=1" in err
    assert "HTTP 500" in err and "model crashed" in err and SECRET not in err


def test_profiling_some_failed_exits_0_with_a_warning(
        fault_server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    fault_server.actions = [("json", 200, chat_ok("Compute")),
                            ("json", 503, {"error": "overloaded"})]
    assert _profiling(fault_server.base_url) == 0
    out, err = capsys.readouterr()
    assert "failed" in out.splitlines()[0]
    assert out.splitlines()[2].split()[-1] == "1"  # the model's row: 1 failed
    assert "warning: 1 of 3 items failed" in err and "HTTP 503" in err


def test_dead_endpoint_and_bad_limits_fail_before_any_call(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _profiling(f"http://127.0.0.1:{free_port()}/v1") == 2
    assert "cannot reach" in capsys.readouterr().err
    assert _profiling("http://127.0.0.1:9/v1", "--timeout", "0") == 2
    err = capsys.readouterr().err
    assert "--timeout / RIDGELINE_LLM_TIMEOUT must be a positive number of seconds" in err
    with pytest.raises(SystemExit):
        _profiling("http://127.0.0.1:9/v1", "--total-timeout", "soon")
    assert "argument --total-timeout" in capsys.readouterr().err


def test_ask_reports_attempts_and_the_last_error(
        fault_server: FaultServer, capsys: pytest.CaptureFixture[str]) -> None:
    fault_server.actions = [("json", 503, {"error": "busy"})]
    fault_server.default = ("sleep", 3.0, chat_ok())
    rc = main(["llm", "ask", "--model", "tiny-model", "--base-url", _keyed(fault_server),
               "--text", "hi", "--timeout", "0.5", "--max-attempts", "2",
               "--total-timeout", "5"])
    err = capsys.readouterr().err
    assert rc == 2 and "failed after 2 attempts" in err and "no answer within 0.5s" in err
    assert SECRET not in err


def test_run_all_failed_writes_results_then_exits_2(
        fault_server: FaultServer, data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    fault_server.default = ("json", 500, {"error": "model crashed"})
    rc = main(["llm", "run", "--model", "tiny-model", "--base-url", _keyed(fault_server),
               "--scenario", "profiling", "--limit", "2", "--max-attempts", "1",
               "--out", str(tmp_path / "runs"), "--data-dir", str(data_dir)])
    err = capsys.readouterr().err
    assert rc == 2 and "all 2 items failed" in err and "model crashed" in err
    out = tmp_path / "runs" / "paper-a_profiling_tiny-model"
    res = pd.read_csv(out / "results.csv")
    assert list(res.attempts) == [1, 1] and res.error.str.contains("HTTP 500").all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors"] == 2 and summary["attempts"] == 2
    assert summary["provenance"]["settings"]["limits"]["max_attempts"] == 1
    table = pd.read_csv(out / "table.csv")
    assert list(table.failed) == [2, 0, 2] and list(table.unanswered) == [0, 0, 0]
    for f in [*out.iterdir(), *(tmp_path / "cache").iterdir()]:
        assert SECRET.encode() not in f.read_bytes(), f
