"""The golden fingerprint: what ridgeline computes and prints, compact but exact, so a change
that is meant to move code only (issue 51's re-layering) can show it changed nothing.

    python tools/make_golden.py            # recompute every part, rewrite tests/golden/
    python tools/make_golden.py --check    # recompute and say which parts differ (exit 1)
    python tools/make_golden.py --part help --part predict_json   # only these parts

Run from the repository root with ``RIDGELINE_DATA`` unset or set (no part reads the ground
truth: every input ships in the package or in tests/golden/). ``tests/test_golden.py``
recomputes each part and compares it with ``tests/golden/fingerprint.json``.

Parts (each a sha256 unless said otherwise):

- ``predictions``: the shipped model's predictions (every target, the time range) on every
  row of the shipped feature table, as float64 bytes; ``tests/golden/predictions-excerpt.csv``
  shows a few rows to read.
- ``fresh_fit``: the model a fresh fit from the shipped feature table gives (``ridgeline train
  --from-table``: :func:`ridgeline.predictors.training.train_from_table`), as the content of
  its model file (each member's name and uncompressed bytes, in order); and that it equals
  the shipped model file's content.
- ``paper_a_cv``: the paper-A program-grouped 5-fold CV figures of ``ridgeline train`` /
  ``ridgeline eval --task hecbench`` (:func:`ridgeline.evaluation.hecbench_eval.cv_paper_a`),
  every number as it is (JSON), and a hash of the per-row predicted classes.
- ``predict_json``: ``ridgeline predict --sample S --json`` with every cataloged GPU, for
  each sample.
- ``predict_batch``: ``ridgeline predict-batch tests/golden/batch-rows.csv --sources
  <the shipped samples> --count never`` and ``--count cached`` (an empty count cache), the
  output file.
- ``help``: every command's and subcommand's ``--help`` text (80 columns).

Determinism: help, predict_json, predict_batch and predictions gave the same fingerprint each
time they were recomputed (two or three times); the fresh fit (run once) reproduced the
content of the shipped model file, which an earlier ``ridgeline train --from-table`` wrote.
The fit and the CV run with one OpenMP thread: scikit-learn's histogram gradient boosting
sums gradients in per-thread chunks, so the last bits of a fit could depend on the number of
threads (for these losses, absolute error and a quantile, the float32 gradients' float64
sums are exact in any order, but one thread keeps it so). The fresh fit took 8 CPU minutes
(27 min wall) on the shared 2-core development machine at load 12-17; the CV is five such
fits. ``tests/test_golden.py`` marks both slow.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
FINGERPRINT = GOLDEN / "fingerprint.json"
BATCH_ROWS = GOLDEN / "batch-rows.csv"
EXCERPT = GOLDEN / "predictions-excerpt.csv"
REGENERATE = "python tools/make_golden.py"
SAMPLES = ("saxpy", "polyeval")
HELP_COLUMNS = "80"


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _pkg_dir(*parts: str) -> Path:
    return Path(str(resources.files("ridgeline").joinpath(*parts)))


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _cli(*argv: str) -> str:
    """stdout of ``ridgeline ARGV`` run in this process (exit code 0 required)."""
    from ridgeline.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(list(argv))
    if rc != 0:
        raise RuntimeError(f"ridgeline {' '.join(argv)} exited {rc}")
    return buf.getvalue()


def _normalised(text: str) -> str:
    """Machine-specific paths replaced: the installed samples folder and the checkout."""
    return text.replace(str(_pkg_dir("data", "samples")), "<samples>").replace(
        str(ROOT), "<root>")


def _table() -> Any:
    from ridgeline.evaluation.hecbench_eval import load_table

    return load_table()


# -- parts -----------------------------------------------------------------------------------

def part_predictions() -> dict[str, Any]:
    import numpy as np

    from ridgeline.learning.shipped import shipped_model
    from ridgeline.learning.training import with_gpu_features

    table = _table()
    y = shipped_model().predict(with_gpu_features(table))
    cols = list(y.columns)
    vals = y.to_numpy(np.float64)
    vals = np.where(np.isnan(vals), np.nan, vals)  # one NaN bit pattern
    ids = table[["dataset", "source", "kernel", "gpu", "grid_size", "block_size", "exe_args"]]
    excerpt = ids.join(y).iloc[:: max(1, len(y) // 12)]
    return {"rows": len(y), "columns": cols,
            "sha256": _sha(json.dumps(cols).encode() + np.ascontiguousarray(vals).tobytes()),
            "_excerpt": excerpt.to_csv(index=False, float_format="%.6g",
                                       lineterminator="\n")}


def model_content(data: bytes) -> str:
    """sha256 of a model file's members (name and uncompressed bytes, in order): the same
    for the same arrays whatever the zip's timestamps or compressor."""
    h = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            h.update(name.encode() + b"\0" + z.read(name))
    return h.hexdigest()


def part_fresh_fit() -> dict[str, Any]:
    from ridgeline.learning.shipped import MODEL_FILE
    from ridgeline.learning.training import train_from_table

    with _one_thread():
        model = train_from_table(_table())
    fresh = model_content(model.export().to_bytes())
    shipped = model_content(_pkg_dir("models", MODEL_FILE).read_bytes())
    return {"sha256": fresh, "equals_shipped_model_file": fresh == shipped}


def part_paper_a_cv() -> dict[str, Any]:
    from ridgeline.evaluation.hecbench_eval import cv_paper_a

    with _one_thread():
        figs = cv_paper_a(_table())
    pred = figs.pop("_pred")
    figs = json.loads(json.dumps({k: v for k, v in figs.items() if not k.startswith("_")},
                                 default=str))
    figs["rows_sha256"] = _sha(pred.to_csv(index=False, lineterminator="\n"))
    return figs


def part_predict_json() -> dict[str, Any]:
    gpus = [g["name"] for g in json.loads(_cli("gpus", "--json"))]
    out: dict[str, Any] = {"gpus": len(gpus)}
    for s in SAMPLES:
        argv = ["predict", "--sample", s, "--json"]
        for g in gpus:
            argv += ["--gpu", g]
        out[s] = _sha(_normalised(_cli(*argv)))
    return out


def part_predict_batch() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, _env(RIDGELINE_CACHE=tmp):
        for mode in ("never", "cached"):
            dest = Path(tmp) / f"out-{mode}.csv"
            _cli("predict-batch", str(BATCH_ROWS), "--sources", str(_pkg_dir("data", "samples")),
                 "--out", str(dest), "--count", mode, "--jobs", "1")
            out[mode] = _sha(_normalised(dest.read_text()))
    return out


def _commands(p: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, str]]:
    yield path, p.format_help()
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _commands(sub, f"{path} {name}")


def part_help() -> dict[str, Any]:
    from ridgeline.cli._app import build_parser

    with _env(COLUMNS=HELP_COLUMNS):
        return {path: _sha(_normalised(text))
                for path, text in _commands(build_parser(), "ridgeline")}


PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "help": part_help,
    "predict_json": part_predict_json,
    "predict_batch": part_predict_batch,
    "predictions": part_predictions,
    "fresh_fit": part_fresh_fit,
    "paper_a_cv": part_paper_a_cv,
}


def compute(part: str) -> dict[str, Any]:
    """One part's fingerprint as stored (entries starting with ``_`` are not stored)."""
    return PARTS[part]()


def stored() -> dict[str, Any]:
    return json.loads(FINGERPRINT.read_text())


def differences(part: str, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """What differs between a recomputed part and the stored one, key by key."""
    new = {k: v for k, v in new.items() if not k.startswith("_")}
    keys = sorted(set(new) | set(old))
    return [f"{part}.{k}: stored {old.get(k)!r}, now {new.get(k)!r}" for k in keys
            if new.get(k) != old.get(k)]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    ap.add_argument("--part", action="append", choices=list(PARTS), help="only these parts")
    args = ap.parse_args(argv)
    parts = args.part or list(PARTS)
    old = stored() if FINGERPRINT.is_file() else {}
    new: dict[str, Any] = {}
    diffs: list[str] = []
    for part in parts:
        got = compute(part)
        changed = differences(part, got, old.get(part, {}))
        diffs += changed
        if part == "predictions" and not args.check:
            EXCERPT.write_text(got["_excerpt"])
        new[part] = {k: v for k, v in got.items() if not k.startswith("_")}
        print(f"{part}: {'differs' if changed else 'same'}", file=sys.stderr)
    for d in diffs:
        print(d, file=sys.stderr)
    if args.check:
        return 1 if diffs else 0
    # parts not recomputed stay as stored now (another run may have written them meanwhile)
    merged = {**(stored() if FINGERPRINT.is_file() else {}), **new}
    FINGERPRINT.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FINGERPRINT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))  # this checkout's ridgeline, not an installed one
    sys.exit(main(sys.argv[1:]))
