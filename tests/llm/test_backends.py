from __future__ import annotations

import pytest

from ridgeline.errors import UnknownNameError, UsageError
from ridgeline.llm.backends import BACKENDS, make_backend
from ridgeline.llm.http import AuthenticationError
from ridgeline.llm.settings import GenerationSettings

MSGS = [{"role": "user", "content": "hi"}]


def test_openai_key_and_url_from_env() -> None:
    env = {"OPENAI_API_KEY": "sk-test-123", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1/"}
    b = make_backend("gpt-4o-mini", env=env)
    assert b.name == "openai" and b.base_url == "http://127.0.0.1:9/v1"
    req = b.chat_request(MSGS, GenerationSettings.for_model("gpt-4o-mini", 5))
    assert req.url == "http://127.0.0.1:9/v1/chat/completions"
    assert req.headers["Authorization"] == "Bearer sk-test-123"
    assert req.body == {"model": "gpt-4o-mini", "messages": MSGS, "temperature": 0.1,
                        "top_p": 0.2, "max_tokens": 5}
    assert "sk-test-123" not in repr(b)


def test_reasoning_request_has_no_temperature() -> None:
    b = make_backend("openai:o3-mini", env={"OPENAI_API_KEY": "k"})
    body = b.chat_body(MSGS, GenerationSettings.for_model("o3-mini", 50, "high"))
    assert "temperature" not in body and "top_p" not in body
    assert body["reasoning_effort"] == "high" and body["max_completion_tokens"] == 50


def test_missing_key_is_an_error_before_any_call() -> None:
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY"):
        make_backend("gpt-4o", env={})
    with pytest.raises(AuthenticationError, match="OPENROUTER_API_KEY"):
        make_backend("openrouter:openai/o3-mini", env={"OPENAI_API_KEY": "x"})


def test_azure_url_and_header() -> None:
    env = {"AZURE_OPENAI_API_KEY": "az", "AZURE_OPENAI_ENDPOINT": "https://r.example/"}
    b = make_backend("azure:o3-mini", env=env)
    req = b.chat_request(MSGS, GenerationSettings.for_model("o3-mini"))
    assert req.url.startswith("https://r.example/openai/deployments/o3-mini/chat/completions")
    assert req.headers == {"api-key": "az"}
    assert b.models_request() is None
    with pytest.raises(UsageError, match="AZURE_OPENAI_ENDPOINT"):
        make_backend("azure:o3-mini", env={"AZURE_OPENAI_API_KEY": "az"})


def test_openrouter_reasoning_object() -> None:
    b = make_backend("openrouter:openai/o3-mini", env={"OPENROUTER_API_KEY": "or"})
    body = b.chat_body(MSGS, GenerationSettings.for_model("openai/o3-mini"))
    assert body["reasoning"] == {"effort": "medium"} and "reasoning_effort" not in body
    assert b.base_url.endswith("/api/v1")


def test_local_needs_url_not_key() -> None:
    b = make_backend("qwen", base_url="http://127.0.0.1:1/v1", env={})
    assert b.name == "local" and b.headers() == {}
    with pytest.raises(UsageError, match="base URL"):
        make_backend("local:qwen", env={})


def test_unknown_backend_suggests() -> None:
    with pytest.raises(UnknownNameError, match="openai"):
        make_backend("m", backend="opnai", env={})
    assert set(BACKENDS.names()) >= {"openai", "azure", "openrouter", "local"}


def test_embedded_endpoint_identity_is_stable() -> None:
    a = make_backend("m", base_url="http://127.0.0.1:1111/v1", env={})
    b = make_backend("m", base_url="http://127.0.0.1:2222/v1", env={})
    assert a.endpoint != b.endpoint
    a.endpoint_id = b.endpoint_id = "embedded:m"
    assert a.endpoint == b.endpoint == "embedded:m"
