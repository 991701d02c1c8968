"""A loopback HTTP server that answers from a script: each request takes the next action
(status + body, a delay past the client's timeout, a truncated or non-JSON body, an answer
trickled one byte at a time)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OK_MODELS = {"object": "list", "data": [{"id": "tiny-model", "object": "model"}]}


def chat_ok(text: str = "Bandwidth", model: str = "tiny-model") -> dict[str, Any]:
    return {
        "id": "x", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 1, "total_tokens": 12},
    }


class FaultServer:
    """``actions`` is a list consumed one per POST (then ``default``); GET /models always
    lists tiny-model. Action forms: ("json", status, obj) | ("sleep", seconds, obj) |
    ("truncated",) | ("text", status, str) | ("trickle", seconds, obj): headers at once,
    then the body one byte every *seconds* | ("trickle_head", seconds): the status line
    one byte every *seconds*. ``paths`` and ``headers`` record every request, GET included;
    ``requests`` the POST bodies."""

    def __init__(self) -> None:
        self.actions: list[tuple[Any, ...]] = []
        self.default: tuple[Any, ...] = ("json", 200, chat_ok())
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.end_headers()
                self.wfile.write(body)

            def _trickle(self, data: bytes, every: float) -> None:
                with contextlib.suppress(OSError):  # the client hung up at its deadline
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        time.sleep(every)

            def do_GET(self) -> None:
                owner.paths.append(self.path)
                owner.headers.append(dict(self.headers))
                self._send(200, json.dumps(OK_MODELS).encode())

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length", 0))
                owner.requests.append(json.loads(self.rfile.read(n)))
                owner.paths.append(self.path)
                owner.headers.append(dict(self.headers))
                act = owner.actions.pop(0) if owner.actions else owner.default
                kind = act[0]
                if kind == "json":
                    self._send(act[1], json.dumps(act[2]).encode())
                elif kind == "sleep":
                    time.sleep(act[1])
                    with contextlib.suppress(OSError):
                        self._send(200, json.dumps(act[2]).encode())
                elif kind == "truncated":
                    body = json.dumps(chat_ok()).encode()
                    self._send(200, body[: len(body) // 2], length=len(body))
                    self.close_connection = True
                elif kind == "text":
                    self._send(act[1], act[2].encode())
                elif kind == "trickle":  # a complete answer, had the client waited
                    body = b" " * 100 + json.dumps(act[2]).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self._trickle(body, act[1])
                    self.close_connection = True
                elif kind == "trickle_head":
                    body = json.dumps(chat_ok()).encode()
                    head = (f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n"
                            ).encode()
                    self._trickle(head + body, act[1])
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *a: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
