"""A key inside --base-url (userinfo or a key parameter) is sent to the server but never
reaches the cache, a log line, an error message or the endpoint's identity."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest

from ridgeline.errors import BackendError
from ridgeline.llm.backends import make_backend
from ridgeline.llm.cache import ResponseCache
from ridgeline.llm.client import LLMClient
from ridgeline.llm.http import HttpClient
from ridgeline.llm.settings import GenerationSettings
from ridgeline.llm.urls import EndpointURL, mask_urls
from tests.llm.faults import FaultServer, chat_ok

MSGS = [{"role": "user", "content": "classify"}]
SET = GenerationSettings.for_model("tiny-model", 4)
PASSWORD = "sk-userinfo-secret-11"
TOKEN = "qk-param-secret-22"


def _url(srv: FaultServer) -> str:
    host = srv.base_url.removeprefix("http://")
    return f"http://user:{PASSWORD}@{host}?api_key={TOKEN}&region=eu"


def test_url_parts_and_masks() -> None:
    u = EndpointURL.parse("https://me:pw%40x@h:8/v1/?token=T1&api-version=2&sig=S")
    assert u.base == "https://h:8/v1"
    assert u.public == "https://h:8/v1?api-version=2"
    assert u.shown == "https://***@h:8/v1?token=***&api-version=2&sig=***"
    assert set(u.secrets) == {"pw%40x", "pw@x", "T1", "S"}
    assert u.wire("https://h:8/v1/models?a=1").endswith("?a=1&token=T1&api-version=2&sig=S")
    assert base64.b64decode(u.auth_headers()["Authorization"][6:]) == b"me:pw@x"
    assert mask_urls("at http://u:p@h/v1?apikey=K&x=1 and ?password=P") == (
        "at http://***@h/v1?apikey=***&x=1 and ?password=***")


def test_credentials_reach_the_server_only(fault_server: FaultServer, tmp_path: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = {"error": f"denied for {TOKEN} / {PASSWORD}"}
    fault_server.actions = [("json", 500, echo), ("json", 200, chat_ok("Compute")),
                            ("json", 500, echo), ("text", 502, f"bad gateway {TOKEN}")]
    http = HttpClient(timeout_s=2, max_attempts=2, backoff_s=0.01, max_backoff_s=0.02)
    b = make_backend("tiny-model", _url(fault_server), http=http, env={})
    b.check()
    cache = ResponseCache(tmp_path / "cache" / "llm.sqlite")
    client = LLMClient(b, SET, cache)
    assert client.ask(MSGS, "t").text == "Compute"  # after one echoed 500
    with pytest.raises(BackendError) as e:
        client.ask([{"role": "user", "content": "again"}], "t")
    cache.close()
    # the server got the credentials: userinfo as Basic auth, the parameters in the URL
    basic = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    assert all(h["Authorization"] == f"Basic {basic}" for h in fault_server.headers)
    assert all(f"api_key={TOKEN}" in p and "region=eu" in p for p in fault_server.paths)
    assert fault_server.paths[1].startswith("/v1/chat/completions?")
    # ... and nothing else has them
    texts = [str(e.value), b.endpoint, b.base_url, repr(b), client.key(MSGS, "t")]
    texts += [r.getMessage() for r in caplog.records]
    assert any("retry" in r.getMessage() for r in caplog.records)
    for secret in (PASSWORD, TOKEN, "user:"):
        assert not [t for t in texts if secret in t]
        for f in (tmp_path / "cache").iterdir():
            assert secret.encode() not in f.read_bytes(), f
    assert "***" in str(e.value) and "failed after 2 attempts" in str(e.value)
    assert b.endpoint == f"local:{fault_server.base_url}?region=eu"


def test_same_cache_key_with_or_without_url_credentials(fault_server: FaultServer) -> None:
    plain = make_backend("tiny-model", fault_server.base_url + "?region=eu", env={})
    keyed = make_backend("tiny-model", _url(fault_server), env={})
    assert LLMClient(plain, SET).key(MSGS, "t") == LLMClient(keyed, SET).key(MSGS, "t")
