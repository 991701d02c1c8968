"""Cache keys, resumable runs and key hygiene, with the scripted backend."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ridgeline.errors import BackendError
from ridgeline.llm.cache import ResponseCache, cache_key
from ridgeline.llm.client import LLMClient
from ridgeline.llm.http import AuthenticationError, ContextLengthError, HttpClient
from ridgeline.llm.runner import Item, run_items
from ridgeline.llm.scenarios import get_scenario
from ridgeline.llm.settings import GenerationSettings
from tests.llm.conftest import ScriptedBackend

MSG = [{"role": "user", "content": "q"}]
SET = GenerationSettings.for_model("m")


def test_key_has_what_matters_and_nothing_else(scripted: ScriptedBackend) -> None:
    k = cache_key("m", "local:http://a/v1", MSG, SET, "zero-shot@1#abc")
    assert k == cache_key("m", "local:http://a/v1", MSG, SET, "zero-shot@1#abc")
    assert k != cache_key("m2", "local:http://a/v1", MSG, SET, "zero-shot@1#abc")
    assert k != cache_key("m", "local:http://b/v1", MSG, SET, "zero-shot@1#abc")
    assert k != cache_key("m", "local:http://a/v1", [{"role": "user", "content": "r"}], SET,
                          "zero-shot@1#abc")
    assert k != cache_key("m", "local:http://a/v1", MSG, SET.with_max_tokens(5),
                          "zero-shot@1#abc")
    assert k != cache_key("m", "local:http://a/v1", MSG, SET, "zero-shot@2#abc")
    # the key, timeouts and concurrency of the backend do not change the client's key
    a = ScriptedBackend(model="m", base_url="http://a/v1", api_key="k1",
                        http=HttpClient(timeout_s=1, concurrency=1))
    b = ScriptedBackend(model="m", base_url="http://a/v1", api_key="k2",
                        http=HttpClient(timeout_s=99, concurrency=8))
    assert LLMClient(a, SET).key(MSG, "t") == LLMClient(b, SET).key(MSG, "t")


def test_failed_and_empty_answers_are_not_cached(tmp_path: Path,
                                                 scripted: ScriptedBackend) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = LLMClient(scripted, SET, cache)
    scripted.script = [BackendError("refused"), "   ", "Compute"]
    with pytest.raises(BackendError, match="refused"):
        client.ask(MSG, "t")
    with pytest.raises(BackendError, match="empty answer"):
        client.ask(MSG, "t")
    assert len(cache) == 0
    assert client.ask(MSG, "t").text == "Compute" and len(cache) == 1
    again = client.ask(MSG, "t")
    assert again.cached and again.text == "Compute" and scripted.calls == 3


def _items(n: int) -> list[Item]:
    return [Item(str(i), [{"role": "user", "content": f"kernel {i}"}],
                 "Compute" if i % 2 else "Bandwidth", {"model_type": "cuda"})
            for i in range(n)]


def test_killed_run_resumes_without_asking_twice(tmp_path: Path,
                                                 scripted: ScriptedBackend) -> None:
    sc = get_scenario("zero-shot")
    path = tmp_path / "c.sqlite"
    scripted.script = ["Compute"] * 5 + [KeyboardInterrupt()]
    with pytest.raises(KeyboardInterrupt):
        run_items(LLMClient(scripted, SET, ResponseCache(path)), sc, _items(10), 1, False)
    time.sleep(0.3)  # a worker that was mid-call finishes it (a real kill would drop it)
    stored = len(ResponseCache(path))
    assert stored >= 5 and scripted.calls == stored + 1  # every good answer was kept
    fresh = ScriptedBackend(model=scripted.model, base_url=scripted.base_url)
    res = run_items(LLMClient(fresh, SET, ResponseCache(path)), sc, _items(10), 3, False)
    assert fresh.calls == 10 - stored  # nothing asked twice
    assert sum(r.cached for r in res) == stored
    assert [r.answer for r in res] == ["Compute"] * 10
    assert sum(r.correct for r in res) == 5


def test_one_bad_item_does_not_stop_the_batch(tmp_path: Path,
                                              scripted: ScriptedBackend) -> None:
    sc = get_scenario("zero-shot")
    items = _items(4)
    items[1] = Item("1", None, "Compute", {}, error="UsageError: sources missing")
    scripted.script = [ContextLengthError("prompt too long"), "no idea", "Compute"]
    res = run_items(LLMClient(scripted, SET, None), sc, items, 1, False)
    assert [r.error is not None for r in res] == [True, True, False, False]
    assert res[2].answer is None and not res[2].correct  # no match: recorded, counted wrong
    assert res[3].answer == "Compute" and res[3].correct
    assert res[0].cost_usd is None


def test_auth_failure_stops_the_run(scripted: ScriptedBackend) -> None:
    scripted.script = [AuthenticationError("bad key")]
    with pytest.raises(AuthenticationError):
        run_items(LLMClient(scripted, SET, None), get_scenario("zero-shot"), _items(3), 1,
                  False)


def test_keys_never_reach_the_cache_file(tmp_path: Path) -> None:
    key = "sk-never-store-me-7"
    b = ScriptedBackend(model="m", base_url="http://a/v1", api_key=key)
    cache = ResponseCache(tmp_path / "c.sqlite")
    LLMClient(b, SET, cache).ask(MSG, "t")
    cache.close()
    for f in tmp_path.iterdir():
        assert key.encode() not in f.read_bytes()
