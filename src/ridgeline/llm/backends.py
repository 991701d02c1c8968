"""LLM backends: OpenAI-compatible chat completions. Each backend names its environment
variables and builds/reads requests; the HTTP work is :class:`ridgeline.llm.http.HttpClient`.

======================  =========================================  ==========================
backend                 key / base URL variables                   default base URL
======================  =========================================  ==========================
``openai``              OPENAI_API_KEY / OPENAI_BASE_URL           https://api.openai.com/v1
``azure``               AZURE_OPENAI_API_KEY / AZURE_OPENAI_ENDPOINT (+ AZURE_OPENAI_API_VERSION)
``openrouter``          OPENROUTER_API_KEY / OPENROUTER_BASE_URL   https://openrouter.ai/api/v1
``local``               RIDGELINE_LLM_API_KEY (optional) / RIDGELINE_LLM_BASE_URL (vLLM, ollama,
                        llama.cpp, the embedded server)
======================  =========================================  ==========================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ridgeline._registry import Registry
from ridgeline.errors import BackendError, UsageError, closest
from ridgeline.llm.http import (
    AuthenticationError,
    EndpointError,
    HttpClient,
    HttpRequest,
    ModelNotFoundError,
)
from ridgeline.llm.settings import Completion, GenerationSettings
from ridgeline.llm.urls import EndpointURL

__all__ = ["Backend", "BACKENDS", "make_backend", "Message"]

Message = dict[str, str]


@dataclass
class Backend:
    """An OpenAI-compatible chat endpoint for one model. Build with :meth:`from_env`."""

    model: str
    base_url: str
    api_key: str = field(default="", repr=False)
    http: HttpClient = field(default_factory=HttpClient, repr=False)
    #: stable identity of the endpoint for the cache key when the URL is not (the embedded
    #: server listens on a new free port each time)
    endpoint_id: str = ""
    #: the base URL as given, credentials included (userinfo, key parameters): they are
    #: sent with every request; base_url, the cache key and messages never hold them
    _url: EndpointURL = field(init=False, repr=False)

    name: ClassVar[str] = "openai"
    key_env: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    url_env: ClassVar[tuple[str, ...]] = ("OPENAI_BASE_URL",)
    default_base_url: ClassVar[str | None] = "https://api.openai.com/v1"
    needs_key: ClassVar[bool] = True

    @classmethod
    def from_env(
        cls,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        http: HttpClient | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Backend:
        """Resolve base URL and key (argument, then environment); a missing key or URL is
        an error here, before any call."""
        env = os.environ if env is None else env
        url = base_url or next((env[v] for v in cls.url_env if env.get(v)), None)
        url = url or cls.default_base_url
        if not url:
            raise UsageError(
                f"backend {cls.name!r} needs a base URL: pass --base-url or set "
                f"{' or '.join(cls.url_env)}"
            )
        key = api_key or next((env[v] for v in cls.key_env if env.get(v)), "")
        if cls.needs_key and not key:
            raise AuthenticationError(
                f"backend {cls.name!r} needs an API key: set {' or '.join(cls.key_env)} "
                "(keys are never written to the cache, results or logs)"
            )
        if not model:
            raise UsageError(f"backend {cls.name!r} needs a model name (--model)")
        return cls(model=model, base_url=url, api_key=key, http=http or HttpClient())

    def __post_init__(self) -> None:
        self._url = EndpointURL.parse(self.base_url)
        self.base_url = self._url.public

    # -- requests ------------------------------------------------------------------------
    def headers(self) -> dict[str, str]:
        """Auth headers: the API key as a bearer token, else the base URL's userinfo as
        HTTP Basic authentication."""
        if self.api_key:
            return {"Authorization": f"Bearer {self.api_key}"}
        return self._url.auth_headers()

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values scrubbed from every message: the key and the base URL's credentials."""
        return (self.api_key, *self._url.secrets)

    def request(self, method: str, url: str, body: dict[str, Any] | None = None
                ) -> HttpRequest:
        """*url* (built on base_url) as sent: with the base URL's query parameters."""
        return HttpRequest(method, self._url.wire(url), self.headers(), body, self.secrets)

    def chat_url(self) -> str:
        return f"{self._url.base}/chat/completions"

    def chat_body(self, messages: list[Message], settings: GenerationSettings) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if settings.top_p is not None:
            body["top_p"] = settings.top_p
        if settings.seed is not None:
            body["seed"] = settings.seed
        if settings.reasoning_effort is not None:
            body["reasoning_effort"] = settings.reasoning_effort
            if settings.max_tokens is not None:
                body["max_completion_tokens"] = settings.max_tokens
        elif settings.max_tokens is not None:
            body["max_tokens"] = settings.max_tokens
        return body

    def chat_request(self, messages: list[Message], settings: GenerationSettings) -> HttpRequest:
        return self.request("POST", self.chat_url(), self.chat_body(messages, settings))

    def models_request(self) -> HttpRequest | None:
        return self.request("GET", f"{self._url.base}/models")

    # -- responses -----------------------------------------------------------------------
    def read_chat(self, data: Any, latency_s: float, attempts: int) -> Completion:
        try:
            choice = data["choices"][0]
            msg = choice.get("message") or {}
        except (KeyError, IndexError, TypeError):
            raise BackendError(
                f"{self.name} answer has no choices[0].message: {str(data)[:200]}"
            ) from None
        if msg.get("refusal"):
            raise BackendError(f"the model refused: {str(msg['refusal'])[:200]}")
        usage = data.get("usage") or {}
        return Completion(
            text=str(msg.get("content") or ""),
            model=str(data.get("model") or self.model),
            finish_reason=choice.get("finish_reason"),
            tokens_in=usage.get("prompt_tokens"),
            tokens_out=usage.get("completion_tokens"),
            latency_s=latency_s,
            attempts=attempts,
            reasoning=msg.get("reasoning_content") or msg.get("reasoning"),
        )

    # -- calls ---------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        """What identifies the endpoint in the cache key (never the key)."""
        return self.endpoint_id or f"{self.name}:{self.base_url}"

    def complete(self, messages: list[Message], settings: GenerationSettings) -> Completion:
        resp = self.http.send(self.chat_request(messages, settings))
        return self.read_chat(resp.data, resp.latency_s, resp.attempts)

    def check(self) -> None:
        """Before a run: the endpoint answers, accepts the key and has the model."""
        req = self.models_request()
        if req is None:
            return
        try:
            data = self.http.send(req).data
        except BackendError as e:
            if isinstance(e, AuthenticationError | EndpointError):
                raise
            raise EndpointError(f"{req.shown_url} does not list models: {e}") from None
        ids = [str(m.get("id")) for m in (data.get("data") or []) if isinstance(m, dict)]
        if ids and self.model not in ids:
            near = closest(self.model, ids)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise ModelNotFoundError(
                f"model {self.model!r} is not served at {self.base_url}{hint} "
                f"It has: {', '.join(ids[:20])}"
            )


class OpenAIBackend(Backend):
    pass


@dataclass
class OpenRouterBackend(Backend):
    name: ClassVar[str] = "openrouter"
    key_env: ClassVar[tuple[str, ...]] = ("OPENROUTER_API_KEY",)
    url_env: ClassVar[tuple[str, ...]] = ("OPENROUTER_BASE_URL",)
    default_base_url: ClassVar[str | None] = "https://openrouter.ai/api/v1"

    def chat_body(self, messages: list[Message], settings: GenerationSettings) -> dict[str, Any]:
        body = super().chat_body(messages, settings)
        effort = body.pop("reasoning_effort", None)
        if effort:
            body["reasoning"] = {"effort": effort}
        return body


@dataclass
class AzureBackend(Backend):
    name: ClassVar[str] = "azure"
    key_env: ClassVar[tuple[str, ...]] = ("AZURE_OPENAI_API_KEY",)
    url_env: ClassVar[tuple[str, ...]] = ("AZURE_OPENAI_ENDPOINT",)
    default_base_url: ClassVar[str | None] = None
    api_version: ClassVar[str] = os.environ.get("AZURE_OPENAI_API_VERSION", "2024-12-01-preview")

    def headers(self) -> dict[str, str]:
        basic = self._url.auth_headers()
        return {**basic, "api-key": self.api_key}

    def chat_url(self) -> str:
        return (
            f"{self._url.base}/openai/deployments/{self.model}/chat/completions"
            f"?api-version={self.api_version}"
        )

    def models_request(self) -> HttpRequest | None:
        return None  # deployments are not listed by the data-plane API


@dataclass
class LocalBackend(Backend):
    """Any OpenAI-compatible server of your own (vLLM, ollama, llama.cpp, the embedded one)."""

    name: ClassVar[str] = "local"
    key_env: ClassVar[tuple[str, ...]] = ("RIDGELINE_LLM_API_KEY",)
    url_env: ClassVar[tuple[str, ...]] = ("RIDGELINE_LLM_BASE_URL",)
    default_base_url: ClassVar[str | None] = None
    needs_key: ClassVar[bool] = False


#: backends by name: adding one is one class plus one line here
BACKENDS: Registry[type[Backend]] = Registry("LLM backend")
BACKENDS.add("openai", OpenAIBackend)
BACKENDS.add("azure", AzureBackend)
BACKENDS.add("openrouter", OpenRouterBackend)
BACKENDS.add("local", LocalBackend)


def make_backend(
    model: str,
    base_url: str | None = None,
    backend: str | None = None,
    http: HttpClient | None = None,
    env: Mapping[str, str] | None = None,
) -> Backend:
    """A backend from a model spec. ``service:model`` picks the service (``openai:gpt-4o``,
    ``azure:o3-mini``, ``openrouter:openai/o3-mini``, ``local:qwen2.5``); otherwise
    *backend*, else "local" when a base URL is given, else "openai"."""
    service, _, rest = model.partition(":")
    if rest and service.lower() in BACKENDS:
        backend, model = service, rest
    if backend is None:
        backend = "local" if base_url else "openai"
    return BACKENDS.get(backend).from_env(model, base_url, http=http, env=env)
