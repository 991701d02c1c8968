"""Open a backend for a model name: the embedded model (started on loopback for the
duration) or any OpenAI-compatible service, checked before the first question."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ridgeline.llm.backends import Backend, LocalBackend, make_backend
from ridgeline.llm.embedded import EMBEDDED_ALIASES, EMBEDDED_MODEL, EmbeddedServer
from ridgeline.llm.http import HttpClient

__all__ = ["open_backend", "is_embedded", "EMBEDDED_TIMEOUT_S"]

#: the embedded model answers on a shared CPU: a long prompt can take many minutes, and a
#: retried request only queues behind the one the server is still working on
EMBEDDED_TIMEOUT_S = 1800.0


def _embedded_http() -> HttpClient:
    timeout = float(os.environ.get("RIDGELINE_LLM_TIMEOUT", EMBEDDED_TIMEOUT_S))
    return HttpClient(timeout_s=timeout, max_retries=1)


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
) -> Iterator[Backend]:
    """A ready backend. ``smollm2`` (or ``embedded``) without a base URL starts the embedded
    server for the block; with ``check`` the endpoint, key and model are verified first, so
    a wrong URL, key or model name fails before any prompt is sent."""
    if is_embedded(model) and not base_url:
        threads = int(os.environ.get("RIDGELINE_LLM_THREADS", min(2, os.cpu_count() or 1)))
        with EmbeddedServer(n_ctx=n_ctx, threads=threads) as srv:
            b: Backend = LocalBackend.from_env(EMBEDDED_MODEL, srv.base_url,
                                               http=http or _embedded_http())
            b.endpoint_id = f"embedded:{EMBEDDED_MODEL}"  # same cache key on any port
            if check:
                b.check()
            yield b
        return
    if is_embedded(model):
        model, backend = EMBEDDED_MODEL, backend or "local"
    b = make_backend(model, base_url, backend, http=http)
    if check:
        b.check()
    yield b
