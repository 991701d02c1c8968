"""One HTTP exchange bounded by a single deadline: connect, the status line and headers, and
the whole body must all arrive before it. Socket timeouts alone restart on every byte, so a
server that trickles one byte every few seconds would never time out; here every read of
the socket is given only the time left, and a read after the deadline fails.

Built on urllib (proxies, TLS and redirects as usual) with its connection classes swapped
for ones whose socket reads through a deadline-checking reader. Standard library only."""

from __future__ import annotations

import http.client
import io
import socket
import time
import urllib.request
from functools import partial
from typing import Any

__all__ = ["DeadlineExceeded", "fetch"]


class DeadlineExceeded(TimeoutError):
    """The deadline passed; *received* bytes of the answer had arrived by then."""

    def __init__(self, received: int) -> None:
        super().__init__(f"deadline passed after {received} bytes")
        self.received = received


class _DeadlineReader(io.RawIOBase):
    """Reads a socket giving each read only the time left before the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline
        self.received = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.received)
        self._sock.settimeout(left)
        try:
            n = self._raw.readinto(b)
        except TimeoutError:
            raise DeadlineExceeded(self.received) from None
        self.received += n or 0
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocket:
    """A connected socket whose reads (through makefile) and writes stop at the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def _left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(0)
        return left

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))

    def sendall(self, data: Any, *args: Any) -> None:
        self._sock.settimeout(self._left())
        self._sock.sendall(data, *args)

    def close(self) -> None:
        self._sock.close()


class _DeadlineConnection:
    """Mixed into http.client's connection classes: the socket is wrapped once connected
    (after TLS, which HTTPSConnection.connect sets up in its own connect)."""

    sock: Any

    def __init__(self, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self.sock = _DeadlineSocket(self.sock, self._deadline)


class _HTTPConnection(_DeadlineConnection, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_DeadlineConnection, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_HTTPConnection, deadline=self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        # TLS with the default context, as urllib's own handler without arguments
        return self.do_open(partial(_HTTPSConnection, deadline=self.deadline), req)


def fetch(req: urllib.request.Request, deadline: float) -> tuple[int, bytes]:
    """Status and body of *req*, all of it received before *deadline* (``time.monotonic``).
    Raises :class:`DeadlineExceeded` (a TimeoutError; urllib wraps one that happens before
    the headers in a URLError), ``urllib.error.HTTPError`` for a non-2xx answer (its body
    read under the same deadline) and the usual OSError/HTTPException for broken links."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceeded(0)
    opener = urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline))
    with opener.open(req, timeout=left) as resp:
        return int(resp.status), resp.read()
