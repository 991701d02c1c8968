"""How the embedded model's llama.cpp child processes are reported when they end badly."""

from __future__ import annotations

import signal
import subprocess
import sys

from ridgeline.llm.embedded import _exit_text


def _ended_by(sig: int) -> int:
    return subprocess.run([sys.executable, "-c", f"import os; os.kill(os.getpid(), {sig})"],
                          check=False).returncode


def test_an_illegal_instruction_names_the_build_for_another_cpu() -> None:
    text = _exit_text(_ended_by(signal.SIGILL))
    assert text.startswith("killed by SIGILL")
    assert "instructions this CPU lacks" in text and "scripts/setup.d/30-llm.sh" in text


def test_exit_codes_and_other_signals() -> None:
    assert _exit_text(3) == "exit 3"
    assert _exit_text(_ended_by(signal.SIGTERM)) == "killed by SIGTERM"
