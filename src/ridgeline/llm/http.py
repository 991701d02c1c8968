"""The one HTTP base for every LLM backend: retries with bounded backoff on 429/5xx/timeouts
and unreadable bodies, a concurrency limit, a deadline per attempt and per call (see
:class:`HttpClient`) and auth headers. Backends only build requests and read responses.
Standard library only (urllib)."""

from __future__ import annotations

import json
import logging
import math
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.client import HTTPException
from typing import Any

from ridgeline.errors import BackendError
from ridgeline.llm.transport import DeadlineExceeded, fetch
from ridgeline.llm.urls import mask_urls

__all__ = [
    "HttpRequest",
    "HttpResponse",
    "HttpClient",
    "AuthenticationError",
    "EndpointError",
    "ModelNotFoundError",
    "ContextLengthError",
    "redact",
]

log = logging.getLogger(__name__)
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524})


class AuthenticationError(BackendError):
    """The endpoint refused the API key (401/403) or no key was given."""


class EndpointError(BackendError):
    """The base URL cannot be reached or does not speak the OpenAI chat API."""


class ModelNotFoundError(BackendError):
    """The server does not have the requested model."""


class ContextLengthError(BackendError):
    """The prompt is longer than the model's context window."""


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """*text* with every secret, and the credentials of any URL in it, replaced by ``***``
    (keys never reach logs or files)."""
    for s in sorted(secrets, key=len, reverse=True):
        if s:
            text = text.replace(s, "***")
    return mask_urls(text)


def _late(e: BaseException, timeout_s: float) -> str:
    """Why an attempt timed out: nothing arrived, or the answer was still incomplete."""
    got = e.received if isinstance(e, DeadlineExceeded) else 0
    if got:
        return f"answer incomplete after {timeout_s:.3g}s ({got} bytes received)"
    return f"no answer within {timeout_s:.3g}s"


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    secrets: tuple[str, ...] = ()  # values to scrub from any message

    def __repr__(self) -> str:  # never the key, headers or URL credentials
        return f"HttpRequest({self.method} {self.shown_url})"

    @property
    def shown_url(self) -> str:
        """The URL for messages: credentials (key, URL userinfo and key parameters) as ***."""
        return redact(self.url, self.secrets)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    data: Any
    attempts: int
    latency_s: float


class _Retryable(Exception):
    def __init__(self, why: str, retry_after: float | None = None) -> None:
        super().__init__(why)
        self.retry_after = retry_after


class HttpClient:
    """POST/GET JSON with retries, every call bounded in time.

    - *timeout_s*: one attempt (connect, first byte and the whole body) ends at this
      deadline, however slowly the server trickles its answer;
    - *max_attempts*: attempts of one call (the first plus retries);
    - *total_timeout_s*: one call, all its attempts and the waits between them, ends at
      this deadline (default: 3 x *timeout_s*); no attempt or wait is started past it.

    Backoff doubles from *backoff_s* up to *max_backoff_s*, honouring Retry-After."""

    def __init__(
        self,
        timeout_s: float = 120.0,
        max_attempts: int = 5,
        total_timeout_s: float | None = None,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        concurrency: int = 4,
    ) -> None:
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.total_timeout_s = total_timeout_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.concurrency = concurrency

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @concurrency.setter
    def concurrency(self, n: int) -> None:
        """Requests in flight at once (set it before the calls start)."""
        self._concurrency = n
        self._slots = threading.BoundedSemaphore(max(1, n))

    @property
    def total_s(self) -> float:
        return self.total_timeout_s if self.total_timeout_s is not None else 3 * self.timeout_s

    def limits_text(self) -> str:
        return (f"--timeout {self.timeout_s:g}s per attempt, --total-timeout "
                f"{self.total_s:g}s, --max-attempts {self.max_attempts}")

    def send(self, req: HttpRequest) -> HttpResponse:
        """Send *req*; return the parsed JSON of a 2xx answer or raise a BackendError whose
        ``attempts`` is the number of HTTP attempts made. The call's clock starts when its
        first attempt gets a concurrency slot (waiting for one is not the server's time)."""
        t0 = end = math.inf
        last, attempt = "", 0
        while True:
            attempt += 1
            try:
                with self._slots:
                    if attempt == 1:
                        t0 = time.monotonic()
                        end = t0 + self.total_s
                    status, data = self._once(req, min(time.monotonic() + self.timeout_s, end))
                return HttpResponse(status, data, attempt, time.monotonic() - t0)
            except _Retryable as e:
                last, retry_after = str(e), e.retry_after
            except BackendError as e:
                e.attempts = attempt
                raise
            if attempt >= self.max_attempts:
                stop = "no attempts left"
                break
            delay = self._delay(attempt, retry_after)
            if time.monotonic() + delay >= end:
                stop = "out of time for another attempt"
                break
            log.info("%s: %s; retry %d in %.1fs", req.shown_url, last, attempt, delay)
            time.sleep(delay)
        err = BackendError(
            f"{req.method} {req.shown_url} failed after {attempt} attempt"
            f"{'s' if attempt > 1 else ''} in {time.monotonic() - t0:.1f}s ({stop}; limits: "
            f"{self.limits_text()}): {last}"
        )
        err.attempts = attempt
        raise err

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        base = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
        if retry_after is not None:
            base = min(self.max_backoff_s, max(base, retry_after))
        return base * (0.75 + 0.5 * random.random())

    def _once(self, req: HttpRequest, deadline: float) -> tuple[int, Any]:
        body = None if req.body is None else json.dumps(req.body).encode("utf-8")
        headers = {"Accept": "application/json", **req.headers}
        if body is not None:
            headers["Content-Type"] = "application/json"
        r = urllib.request.Request(req.url, data=body, headers=headers, method=req.method)
        t0 = time.monotonic()
        try:
            status, raw = fetch(r, deadline)
        except urllib.error.HTTPError as e:
            return self._http_error(req, e)
        except TimeoutError as e:
            raise _Retryable(_late(e, deadline - t0)) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise _Retryable(_late(e.reason, deadline - t0)) from None
            raise EndpointError(
                f"cannot reach {req.shown_url}: {redact(str(e.reason), req.secrets)}; check "
                "the base URL (--base-url or the service's *_BASE_URL variable) and that "
                "the server runs"
            ) from None
        except (HTTPException, ConnectionError) as e:
            why = redact(f"{type(e).__name__}: {e}", req.secrets)
            raise _Retryable(f"connection broken ({why})") from None
        try:
            return status, json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            shown = redact(repr(raw[:80]), req.secrets)
            raise _Retryable(f"answer is not JSON ({len(raw)} bytes: {shown})") from None

    def _http_error(self, req: HttpRequest, e: urllib.error.HTTPError) -> tuple[int, Any]:
        try:
            text = e.read().decode("utf-8", "replace")
        except (HTTPException, OSError):
            text = ""
        text = redact(text, req.secrets)[:500]
        if e.code in RETRY_STATUS:
            ra = e.headers.get("Retry-After") if e.headers else None
            try:
                retry_after = float(ra) if ra else None
            except ValueError:
                retry_after = None
            raise _Retryable(f"HTTP {e.code}: {text[:200]}", retry_after) from None
        low = text.lower()
        if e.code in (401, 403):
            raise AuthenticationError(
                f"{req.shown_url} refused the API key (HTTP {e.code}): {text[:200]}"
            ) from None
        if "context" in low and ("length" in low or "window" in low or "exceed" in low):
            raise ContextLengthError(f"prompt too long for the model: {text[:300]}") from None
        if e.code == 404 and "model" in low:
            raise ModelNotFoundError(f"{req.shown_url}: {text[:300]}") from None
        raise BackendError(f"{req.method} {req.shown_url}: HTTP {e.code}: {text}") from None
