"""``ridgeline count-run`` prints one JSON object per counted launch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ridgeline.cli import main
from ridgeline.counting.records import LAUNCH_DRAM_FLOOR

pytestmark = pytest.mark.slow
KEYS = {"kernel", "flops_sp", "flops_dp", "flops_hp", "int_ops", "global_load_bytes",
        "global_store_bytes", "dram_bytes", "backend"}


def test_count_run_json(toolchain: None, programs: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "rescan-cuda"), "--args", "1000", "--gpu", "a10",
               "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1 and set(out[0]) >= KEYS
    assert out[0]["kernel"] == "rescan" and out[0]["backend"] == "cuda"
    assert out[0]["flops_sp"] == 2 * 125  # one add per sector, two passes
    assert out[0]["dram_bytes"] == 4000 + 32 + LAUNCH_DRAM_FLOOR["cuda"]


def test_count_run_error_exit(programs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["count-run", str(programs / "thrust-cuda")])
    assert rc != 0
    assert "unsupported" in capsys.readouterr().err


def test_count_run_rejects_a_sample_range_that_is_empty(programs: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    rc = main(["count-run", str(programs / "saxpy-cuda"), "--sample-min", "64",
               "--sample-max", "16"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "--sample-min (64)" in err and "--sample-max (16)" in err
