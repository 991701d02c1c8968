"""The HTTP base against a real loopback server that injects faults."""

from __future__ import annotations

import time

import pytest

from ridgeline.errors import BackendError
from ridgeline.llm.backends import make_backend
from ridgeline.llm.embedded import free_port
from ridgeline.llm.http import (
    AuthenticationError,
    ContextLengthError,
    EndpointError,
    HttpClient,
    ModelNotFoundError,
)
from ridgeline.llm.settings import GenerationSettings
from tests.llm.faults import FaultServer, chat_ok

MSGS = [{"role": "user", "content": "classify"}]
SET = GenerationSettings.for_model("tiny-model", 4)


def _backend(srv: FaultServer, retries: int = 3, timeout: float = 2.0, key: str = ""):
    http = HttpClient(timeout_s=timeout, max_attempts=retries + 1, backoff_s=0.01,
                      max_backoff_s=0.05)
    env = {"RIDGELINE_LLM_API_KEY": key} if key else {}
    return make_backend("tiny-model", srv.base_url, http=http, env=env)


@pytest.mark.parametrize("fault", [
    ("json", 429, {"error": "slow down"}),
    ("json", 500, {"error": "boom"}),
    ("json", 503, {"error": "busy"}),
    ("truncated",),
    ("text", 200, "<html>gateway</html>"),
])
def test_retries_then_succeeds(fault_server: FaultServer, fault: tuple) -> None:
    fault_server.actions = [fault, ("json", 200, chat_ok("Compute"))]
    comp = _backend(fault_server).complete(MSGS, SET)
    assert comp.text == "Compute" and comp.attempts == 2
    assert comp.tokens_in == 11 and comp.tokens_out == 1
    assert len(fault_server.requests) == 2


def test_timeout_is_retried(fault_server: FaultServer) -> None:
    fault_server.actions = [("sleep", 1.0, chat_ok()), ("json", 200, chat_ok("Bandwidth"))]
    comp = _backend(fault_server, timeout=0.3).complete(MSGS, SET)
    assert comp.text == "Bandwidth" and comp.attempts == 2


def test_retries_are_bounded(fault_server: FaultServer) -> None:
    fault_server.actions = [("json", 500, {"error": "boom"})] * 10
    t0 = time.monotonic()
    with pytest.raises(BackendError, match="after 3 attempts.*HTTP 500"):
        _backend(fault_server, retries=2).complete(MSGS, SET)
    assert len(fault_server.requests) == 3 and time.monotonic() - t0 < 5


def test_auth_error_is_not_retried_and_key_is_scrubbed(fault_server: FaultServer) -> None:
    key = "sk-secret-value-42"
    fault_server.actions = [("json", 401, {"error": f"bad key {key}"})]
    with pytest.raises(AuthenticationError) as e:
        _backend(fault_server, key=key).complete(MSGS, SET)
    assert key not in str(e.value) and "***" in str(e.value)
    assert len(fault_server.requests) == 1
    assert fault_server.headers[0]["Authorization"] == f"Bearer {key}"


def test_context_and_model_errors(fault_server: FaultServer) -> None:
    fault_server.actions = [
        ("json", 400, {"error": {"message": "Requested tokens (9000) exceed context window "
                                            "of 2048"}}),
        ("json", 404, {"error": {"message": "The model `gpt-9` does not exist"}}),
    ]
    b = _backend(fault_server)
    with pytest.raises(ContextLengthError, match="exceed context window"):
        b.complete(MSGS, SET)
    with pytest.raises(ModelNotFoundError, match="gpt-9"):
        b.complete(MSGS, SET)


def test_check_finds_unknown_model(fault_server: FaultServer) -> None:
    b = make_backend("tiny-modle", fault_server.base_url, env={})
    with pytest.raises(ModelNotFoundError, match="did you mean tiny-model"):
        b.check()
    make_backend("tiny-model", fault_server.base_url, env={}).check()


def test_wrong_base_url_fails_at_check() -> None:
    b = make_backend("m", f"http://127.0.0.1:{free_port()}/v1", env={})
    with pytest.raises(EndpointError, match="cannot reach"):
        b.check()
