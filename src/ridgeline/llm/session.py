"""Open a backend for a model name: the embedded model (started on loopback for the
duration) or any OpenAI-compatible service, checked before the first question."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ridgeline.llm.backends import Backend, LocalBackend, make_backend
from ridgeline.llm.embedded import EMBEDDED_ALIASES, EMBEDDED_MODEL, EmbeddedServer
from ridgeline.llm.http import HttpClient
from ridgeline.llm.settings import EMBEDDED_TIMEOUT_S, CallLimits

__all__ = ["open_backend", "is_embedded", "http_client", "EMBEDDED_TIMEOUT_S"]


def http_client(limits: CallLimits | None = None, embedded: bool = False) -> HttpClient:
    """The HTTP base with *limits* (unset ones from the environment, else the defaults of
    the embedded model or of a remote endpoint)."""
    lim = (limits or CallLimits()).resolved(embedded)
    assert lim.timeout_s and lim.max_attempts and lim.total_timeout_s
    return HttpClient(timeout_s=lim.timeout_s, max_attempts=lim.max_attempts,
                      total_timeout_s=lim.total_timeout_s)


def is_embedded(model: str) -> bool:
    return model.lower() in EMBEDDED_ALIASES


@contextmanager
def open_backend(
    model: str,
    base_url: str | None = None,
    backend: str | None = None,
    http: HttpClient | None = None,
    check: bool = True,
    n_ctx: int = 8192,
    limits: CallLimits | None = None,
) -> Iterator[Backend]:
    """A ready backend. ``smollm2`` (or ``embedded``) without a base URL starts the embedded
    server for the block; with ``check`` the endpoint, key and model are verified first, so
    a wrong URL, key or model name fails before any prompt is sent. *limits* bound every
    call (ignored when *http* is given)."""
    if is_embedded(model) and not base_url:
        threads = int(os.environ.get("RIDGELINE_LLM_THREADS", min(2, os.cpu_count() or 1)))
        http = http or http_client(limits, embedded=True)  # before starting: checks limits
        with EmbeddedServer(n_ctx=n_ctx, threads=threads) as srv:
            b: Backend = LocalBackend.from_env(EMBEDDED_MODEL, srv.base_url, http=http)
            b.endpoint_id = f"embedded:{EMBEDDED_MODEL}"  # same cache key on any port
            if check:
                b.check()
            yield b
        return
    if is_embedded(model):
        model, backend = EMBEDDED_MODEL, backend or "local"
    b = make_backend(model, base_url, backend, http=http or http_client(limits))
    if check:
        b.check()
    yield b
