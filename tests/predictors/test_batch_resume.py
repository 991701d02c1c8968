"""`predict-batch` writes finished rows as it goes and a rerun after a kill continues: the
final output equals an uninterrupted run's, no row lost or written twice."""

from __future__ import annotations

import csv
import io
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.predictors import batch_stream
from ridgeline.predictors.batch_stream import partial_path

from .conftest import OMP, STENCIL

HEADER = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device",
          "note"]


def _table(tmp_path: Path, programs: int = 6, per: int = 5) -> tuple[Path, Path]:
    """*programs* small programs, *per* rows each, interleaved in a seeded order (plus one
    row refused by its check)."""
    src = tmp_path / "src"
    rows = []
    for k in range(programs):
        cuda = k % 2 == 0
        d = src / (f"stencil{k}-cuda" if cuda else f"axpy{k}-omp")
        d.mkdir(parents=True)
        (d / ("main.cu" if cuda else "main.cpp")).write_text(STENCIL if cuda else OMP)
        for j in range(per):
            gpu = ("3080", "A100", "A10")[j % 3]
            rows.append([d.name, "stencil", "cuda", "(128, 1, 1)", f"({8 + j}, 1, 1)",
                         f"{1000 + 7 * j} 4", gpu, f"k{k}, j{j}"] if cuda else
                        [d.name, "main_l8", "omp", "(256, 1, 1)", f"({20 + j}, 1, 1)",
                         f"{5000 + 3 * j}", gpu, f'"quoted"\nk{k} j{j}'])
    rows.append(["..", "k", "cuda", "1", "1", "", "A10", "outside"])
    random.Random(7).shuffle(rows)
    p = tmp_path / "rows.csv"
    with p.open("w", newline="") as fh:
        csv.writer(fh).writerows([HEADER, *rows])
    return src, p


def _cmd(rows: Path, src: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ridgeline", "predict-batch", str(rows), "--sources",
            str(src), "--out", str(out), "--count", "never", "--jobs", "1", *extra]


def _rows_in(partial: Path) -> list[str]:
    """Row numbers of the complete lines of *partial* (a line may be cut short)."""
    try:
        text = partial.read_text(errors="replace")
    except FileNotFoundError:  # not yet, or no more (the run finished)
        return []
    text = text[:text.rfind("\n") + 1]
    recs = list(csv.reader(text.splitlines(keepends=True)[1:]))
    return [r[0] for r in recs if r and r[0].isdigit()]


@pytest.mark.slow

def _interrupt_in_chunk(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """The batch stops with Ctrl-C as it starts its *n*-th chunk (the earlier ones written)."""
    real, calls = batch_stream.predict_rows, []

    def interrupted(*a: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(batch_stream, "predict_rows", interrupted)

def test_kill_9_at_random_points_then_rerun_equals_an_uninterrupted_run(
        tmp_path: Path) -> None:
    src, rows = _table(tmp_path)
    env = {**os.environ, "RIDGELINE_CACHE": str(tmp_path / "cache")}
    ref = tmp_path / "ref.csv"
    subprocess.run(_cmd(rows, src, ref), env=env, check=True, stderr=subprocess.DEVNULL)
    n = len(pd.read_csv(ref))
    out = tmp_path / "out.csv"
    partial = partial_path(out)
    rng = random.Random(53)
    killed_after: list[int] = []
    for _ in range(10):
        before = len(set(_rows_in(partial)))
        # kill once the run has added 0 to 10 rows (whole programs of 5; short of the last),
        # and a random moment later
        target = min(before + rng.randint(0, 10), n - 2)
        proc = subprocess.Popen(_cmd(rows, src, out, "--chunk-rows", "1"), env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while (proc.poll() is None and len(_rows_in(partial)) < target
               and time.time() < deadline):
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.3))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done = _rows_in(partial)
        assert len(done) == len(set(done)), "a row was written twice"
        killed_after.append(len(done))
        if proc.returncode == 0:  # finished before the kill: start the next trial afresh
            assert out.read_bytes() == ref.read_bytes()
            out.unlink()
    assert any(0 < k < n for k in killed_after), killed_after  # some kills came mid-run
    res = subprocess.run(_cmd(rows, src, out), env=env, stderr=subprocess.PIPE, text=True)
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == ref.read_bytes()
    assert not partial.exists()
    if killed_after[-1]:
        assert f"{killed_after[-1]} resumed from an interrupted run" in res.stderr


def test_a_damaged_or_stale_partial_output_is_predicted_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    src, rows = _table(tmp_path, programs=3, per=3)
    out, ref = tmp_path / "out.csv", tmp_path / "ref.csv"
    partial = partial_path(out)
    args = ["predict-batch", str(rows), "--sources", str(src), "--count", "never", "--jobs",
            "1", "--chunk-rows", "1"]
    assert main([*args, "--out", str(ref)]) == 0
    full = ref.read_bytes()
    args += ["--out", str(out)]
    # a run interrupted in its third chunk (one program each) keeps the first two
    _interrupt_in_chunk(monkeypatch, 3)
    assert main(args) == 130
    assert "the same command continues from there" in capsys.readouterr().err
    monkeypatch.undo()
    text = partial.read_text()
    recs = list(csv.reader(io.StringIO(text, newline="")))
    first = [r for r in recs[1:] if r[2] == recs[1][2]]  # the first chunk's program
    assert 0 < len(first) < len(recs) - 1 and not out.exists()

    def rerun(partial_text: str, extra: tuple[str, ...] = ()) -> str:
        partial.write_text(partial_text)
        capsys.readouterr()
        assert main([*args, *extra]) == 0
        assert out.read_bytes() == full and not partial.exists()
        return capsys.readouterr().err

    # the last line cut short by the kill: its program is predicted again
    assert f"{len(first)} resumed" in rerun(text[:-9])
    # a line whose fields changed (checksum) or whose key is another row's: predicted again
    for field, value in ((8, "12345"), (1, "0" * 24)):
        doctored = [r.copy() for r in recs]
        doctored[1][field] = value
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(doctored)
        assert f"{len(recs) - 1 - len(first)} resumed" in rerun(buf.getvalue())
    # a rerun with other settings takes nothing over
    assert "resumed" not in rerun(text, ("--count-timeout", "60"))
    # nor one with another predictor (other columns)
    partial.write_text(text)
    assert main([*args, "--predictor", "analytic"]) == 0
    assert set(pd.read_csv(out, keep_default_na=False)["pred_origin"]) == {"analytic", ""}


def test_a_program_changed_since_the_kill_is_predicted_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The resume key holds a fingerprint of the program folder's files (names, sizes,
    times): a program edited between the kill and the rerun is not taken over."""
    src, rows = _table(tmp_path, programs=3, per=3)
    out = tmp_path / "out.csv"
    partial = partial_path(out)
    args = ["predict-batch", str(rows), "--sources", str(src), "--count", "never", "--jobs",
            "1", "--chunk-rows", "1", "--out", str(out)]
    _interrupt_in_chunk(monkeypatch, 3)
    assert main(args) == 130
    monkeypatch.undo()
    recs = list(csv.reader(io.StringIO(partial.read_text(), newline="")))[1:]
    by_source: dict[str, int] = {}
    for r in recs:
        by_source[r[2]] = by_source.get(r[2], 0) + 1
    assert len(by_source) == 2, by_source  # two programs finished before the interruption
    edited, kept = sorted(by_source)
    # one program edited (its predictions might differ now): they are not taken over
    main_file = next((src / edited).iterdir())
    main_file.write_text(main_file.read_text() + "\n// edited\n")
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"{by_source[kept]} resumed" in err and f"{len(recs)} resumed" not in err
    # a fresh run on the edited sources writes the same file
    fresh = tmp_path / "fresh.csv"
    assert main([*args[:-1], str(fresh)]) == 0
    assert out.read_bytes() == fresh.read_bytes()


def test_the_fingerprint_follows_the_folder_and_is_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prog = tmp_path / "src" / "p-cuda"
    (prog / "sub").mkdir(parents=True)
    (prog / "main.cu").write_text("int x;\n")
    fp = batch_stream.folder_fingerprint
    first = fp(tmp_path / "src", "p-cuda")
    assert first == fp(tmp_path / "src", "p-cuda") and len(first) == 24
    (prog / "sub" / "data.txt").write_text("1\n")  # a file added below it
    second = fp(tmp_path / "src", "p-cuda")
    assert second != first
    os.utime(prog / "main.cu", ns=(1, 1))  # same bytes, another time
    assert fp(tmp_path / "src", "p-cuda") != second
    assert fp(tmp_path / "src", "..") == fp(tmp_path / "src", "missing") == ""
    monkeypatch.setattr(batch_stream, "FINGERPRINT_FILES", 1)
    bounded = fp(tmp_path / "src", "p-cuda")
    (prog / "sub" / "data.txt").write_text("22\n")  # past the bound: not read
    assert fp(tmp_path / "src", "p-cuda") == bounded
