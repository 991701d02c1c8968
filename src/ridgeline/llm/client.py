"""A backend behind the response cache: ask once, remember good answers."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ridgeline.errors import BackendError
from ridgeline.llm.backends import Backend, Message
from ridgeline.llm.cache import ResponseCache, cache_key
from ridgeline.llm.settings import Completion, GenerationSettings

__all__ = ["LLMClient"]

log = logging.getLogger(__name__)


@dataclass
class LLMClient:
    """Chat completions through *backend*, cached in *cache* (None: no cache)."""

    backend: Backend
    settings: GenerationSettings
    cache: ResponseCache | None = None

    def key(self, messages: list[Message], template: str) -> str:
        return cache_key(self.backend.model, self.backend.endpoint, messages, self.settings,
                         template)

    def ask(self, messages: list[Message], template: str = "") -> Completion:
        """The model's answer to *messages*; *template* is the scenario's ``name@version``.
        Failed, refused and empty answers raise BackendError and are not cached."""
        key = self.key(messages, template)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        comp = self.backend.complete(messages, self.settings)
        if not comp.text.strip():
            err = BackendError(
                f"empty answer from {self.backend.model} (finish_reason={comp.finish_reason})"
            )
            err.attempts = comp.attempts
            raise err
        if self.cache is not None:
            request = {"messages": messages, "settings": self.settings.to_dict()}
            self.cache.put(key, self.backend.model, self.backend.endpoint, template, request,
                           comp)
        return comp
