"""The golden fingerprint (tests/golden/, written by tools/make_golden.py) still holds: the
shipped model's predictions, a fresh fit, the paper-A CV figures, ``predict --json``,
``predict-batch`` and every ``--help`` are what they were when it was generated.

A failure names the part and the entries that changed. A change meant to move code only must
not change any of them; a change meant to change behaviour (a new output column, a new help
line) regenerates the fingerprint with ``python tools/make_golden.py`` and says why in its
commit."""

from __future__ import annotations

import pytest
from tools import make_golden as golden

FAST = ["help", "predict_json", "predict_batch", "predictions"]
#: a fit of the full model on one thread (8 CPU minutes on the loaded development machine)
#: and the paper-A CV, five such fits
SLOW = ["fresh_fit", "paper_a_cv"]


def _check(part: str) -> None:
    stored = golden.stored()
    assert part in stored, (f"tests/golden/fingerprint.json has no {part!r}: run "
                            f"`{golden.REGENERATE} --part {part}` and commit tests/golden/")
    diffs = golden.differences(part, golden.compute(part), stored[part])
    assert not diffs, (
        f"golden part {part!r} changed:\n  " + "\n  ".join(diffs)
        + f"\nIf this change is intended, regenerate with `{golden.REGENERATE} --part {part}`"
        " and say why in the commit; a change that only moves code must not change it.")


@pytest.mark.parametrize("part", FAST)
def test_golden(part: str) -> None:
    _check(part)


@pytest.mark.slow
@pytest.mark.parametrize("part", SLOW)
def test_golden_slow(part: str) -> None:
    """In a fresh interpreter, as ``ridgeline train`` and ``eval`` run: the fits must not see
    state that earlier tests of this session left in shared caches."""
    import subprocess
    import sys

    res = subprocess.run([sys.executable, str(golden.ROOT / "tools" / "make_golden.py"),
                          "--check", "--part", part], capture_output=True, text=True,
                         cwd=golden.ROOT, timeout=3600)
    assert res.returncode == 0, (
        f"golden part {part!r} changed (a fresh `{golden.REGENERATE} --check --part {part}`):\n"
        + res.stdout[-4000:] + res.stderr[-2000:]
        + f"\nIf this change is intended, regenerate with `{golden.REGENERATE} --part {part}`"
        " and say why in the commit; a change that only moves code must not change it.")


def test_the_fresh_fit_is_the_shipped_model() -> None:
    """Recorded by the generator: the shipped model file is what a fresh fit from the shipped
    table gives (so the fingerprint's fit is that of the shipped model)."""
    assert golden.stored()["fresh_fit"]["equals_shipped_model_file"] is True


def test_every_part_is_stored_and_tested() -> None:
    assert set(golden.PARTS) == set(FAST) | set(SLOW) == set(golden.stored())
