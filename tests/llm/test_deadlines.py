"""Bounded calls against a real loopback server: a deadline per attempt that a trickling
server cannot stretch, a total per call across retries, and attempts counted truly."""

from __future__ import annotations

import time

import pytest

from ridgeline.errors import BackendError, UsageError
from ridgeline.llm.backends import Backend, make_backend
from ridgeline.llm.client import LLMClient
from ridgeline.llm.http import HttpClient
from ridgeline.llm.runner import Failures, Item, run_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.llm.settings import CallLimits, GenerationSettings
from tests.llm.faults import FaultServer, chat_ok

MSGS = [{"role": "user", "content": "classify"}]
SET = GenerationSettings.for_model("tiny-model", 4)
GRACE = 0.6  # seconds past a deadline a test accepts (scheduling on a busy machine)


def _backend(srv: FaultServer, timeout: float, attempts: int,
             total: float | None = None) -> Backend:
    http = HttpClient(timeout_s=timeout, max_attempts=attempts, total_timeout_s=total,
                      backoff_s=0.01, max_backoff_s=0.05)
    return make_backend("tiny-model", srv.base_url, http=http, env={})


def _fails(backend: Backend, limit: float) -> tuple[BackendError, float]:
    t0 = time.monotonic()
    with pytest.raises(BackendError) as e:
        backend.complete(MSGS, SET)
    took = time.monotonic() - t0
    assert took < limit + GRACE, f"took {took:.2f}s, limit {limit}s"
    return e.value, took


def test_trickled_body_is_cut_at_the_deadline(fault_server: FaultServer) -> None:
    # one byte every 0.5 s: a socket timeout of 1.5 s would never fire
    fault_server.actions = [("trickle", 0.5, chat_ok())] * 2
    err, took = _fails(_backend(fault_server, timeout=1.5, attempts=2), 3.0)
    assert took > 2.9
    assert "failed after 2 attempts" in str(err) and "answer incomplete after 1.5s" in str(err)
    assert "bytes received" in str(err) and "--timeout 1.5s" in str(err)
    assert err.attempts == 2 == len(fault_server.requests)


def test_trickled_status_line_is_cut_at_the_deadline(fault_server: FaultServer) -> None:
    fault_server.actions = [("trickle_head", 0.3)]
    err, _ = _fails(_backend(fault_server, timeout=1.0, attempts=1), 1.0)
    assert "failed after 1 attempt " in str(err) and "answer incomplete after 1s" in str(err)
    assert err.attempts == 1


def test_slow_first_byte_times_out(fault_server: FaultServer) -> None:
    fault_server.actions = [("sleep", 3.0, chat_ok())]
    err, _ = _fails(_backend(fault_server, timeout=0.5, attempts=1), 0.5)
    assert "no answer within 0.5s" in str(err) and err.attempts == 1


def test_total_timeout_bounds_the_retries(fault_server: FaultServer) -> None:
    fault_server.actions = [("sleep", 3.0, chat_ok())] * 5
    err, _ = _fails(_backend(fault_server, timeout=0.6, attempts=5, total=1.5), 1.5)
    assert err.attempts == len(fault_server.requests) < 5
    assert "--total-timeout 1.5s" in str(err)


def test_fails_then_answers_counts_every_attempt(fault_server: FaultServer) -> None:
    fault_server.actions = [("json", 503, {"error": "busy"})] * 3 + [
        ("json", 200, chat_ok("Compute"))]
    comp = _backend(fault_server, timeout=2, attempts=4).complete(MSGS, SET)
    assert comp.text == "Compute" and comp.attempts == 4 == len(fault_server.requests)


def test_result_rows_record_attempts_and_last_error(fault_server: FaultServer) -> None:
    """One item answers on its 3rd attempt, the next fails all 3: both rows say so."""
    busy = ("json", 503, {"error": "busy"})
    fault_server.actions = [busy, busy, ("json", 200, chat_ok("Compute")), busy, busy,
                            ("json", 500, {"error": "last straw"})]
    items = [Item(str(i), MSGS, "Compute") for i in range(2)]
    client = LLMClient(_backend(fault_server, timeout=2, attempts=3), SET)
    res = run_items(client, get_scenario("zero-shot"), items, 1, False)
    assert [r.attempts for r in res] == [3, 3]
    assert res[0].error is None and res[0].answer == "Compute"
    assert res[1].error is not None and "HTTP 500: " in res[1].error
    assert "last straw" in res[1].error and res[1].latency_s is not None
    fails = Failures.of(res)
    assert not fails.all_failed and fails.lines()[0] == "1 of 2 items failed"
    fails.raise_if_all_failed()  # some answers: not an error


def test_limits_are_validated_and_named() -> None:
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(UsageError, match="--timeout / RIDGELINE_LLM_TIMEOUT must be a "
                                             "positive number of seconds"):
            CallLimits(timeout_s=bad)
    with pytest.raises(UsageError, match="--max-attempts.*whole number"):
        CallLimits(max_attempts=0)
    with pytest.raises(UsageError, match="RIDGELINE_LLM_TOTAL_TIMEOUT must be.*'soon'"):
        CallLimits.from_env({"RIDGELINE_LLM_TOTAL_TIMEOUT": "soon"})
    env = {"RIDGELINE_LLM_TIMEOUT": "7", "RIDGELINE_LLM_MAX_ATTEMPTS": "3"}
    assert CallLimits(timeout_s=2).resolved(False, env) == CallLimits(2, 3, 6)
    assert CallLimits().resolved(False, env) == CallLimits(7, 3, 21)
    assert CallLimits().resolved(True, {}) == CallLimits(1800, 2, 5400)
    assert CallLimits().resolved(False, {}) == CallLimits(120, 5, 360)


def test_waiting_for_a_concurrency_slot_is_not_the_calls_time(
        fault_server: FaultServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fault_server.actions = [("sleep", 0.7, chat_ok("Compute"))] * 2
    b = _backend(fault_server, timeout=1.0, attempts=1, total=1.0)
    b.http.concurrency = 1  # the second call waits ~0.7 s for the first
    with ThreadPoolExecutor(2) as pool:
        texts = [c.text for c in pool.map(lambda _: b.complete(MSGS, SET), range(2))]
    assert texts == ["Compute", "Compute"]
