"""The OpenCL time regressors (GBM, LLM) trained on CLgen's GPU runtimes and saved, loaded
again, and the ``regress-batch`` contract (rows checked, predicted, each with its error)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ridgeline.errors import MissingDataError, RidgelineError, SchemaError
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.regressors import evaluate_split, make_regressor
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["train_clgen", "train_datagen", "load_regressor", "predict_batch", "parse_problems",
           "row_build", "COUNTED"]

#: ``--model counted``: the counted bound at the local PoCL device's measured peaks, no
#: learned correction
COUNTED = "counted"


def train_clgen(which: str, out: str | Path, model: str = "gbm", backbone: str | None = None,
                finetune: bool = False, seed: int = 4839, data_dir: str | None = None,
                refit_all: bool = False, limit_kernels: int | None = None,
                progress: bool = False) -> dict[str, Any]:
    """Train a regressor for CLgen's GPU runtimes, report the held-out split, save it."""
    from ridgeline.datagen.clgen import CLGEN_GPUS, clgen_rows

    rows = clgen_rows(which, data_dir)
    if limit_kernels:
        keep = sorted(rows["kernel_file"].unique())[:limit_kernels]
        rows = rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)
    reg = make_regressor(model, backbone, finetune, seed)
    metrics, reg = evaluate_split(rows, reg, seed, progress)
    if refit_all:
        reg = make_regressor(model, backbone, finetune, seed).fit(rows, progress=progress)
    reg.target_ = f"CLgen {CLGEN_GPUS[which][1]} runtime_gpu"
    d = Path(out)
    reg.save(d)
    report = {"model": model, "gpu": CLGEN_GPUS[which][1], "target": "log2(us) of runtime_gpu",
              "split": f"kernel-grouped 90/10, seed {seed}", "held_out": metrics,
              "trained_on": "all rows" if refit_all else "the 90% split",
              "params": reg.get_params(),
              "provenance": provenance(dataset=CLGEN_GPUS[which][0], seed=seed)}
    (d / "meta.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def train_datagen(folder: str | Path, out: str | Path, model: str = "gbm",
                  backbone: str | None = None, finetune: bool = False, seed: int = 4839,
                  refit_all: bool = False, time: str = "median",
                  progress: bool = False) -> dict[str, Any]:
    """Train a regressor on a local ``ridgeline datagen`` run (kernel time on that device,
    no transfers), report the held-out split, save it."""
    from ridgeline.datagen.store import datagen_rows, read_samples

    rows = datagen_rows(folder, time) if not read_samples(folder).empty else None
    if rows is None or rows.empty:
        raise MissingDataError(f"{str(folder)!r} holds no timed datagen samples; make some "
                               "with: ridgeline datagen KERNELS_DIR --device pocl "
                               f"--out {folder}")
    reg = make_regressor(model, backbone, finetune, seed)
    metrics, reg = evaluate_split(rows, reg, seed, progress)
    if refit_all:
        reg = make_regressor(model, backbone, finetune, seed).fit(rows, progress=progress)
    device = ", ".join(sorted({str(d) for d in rows.get("device", ["the datagen device"])}))
    reg.target_ = f"kernel time on {device} (datagen {folder}), no transfers"
    d = Path(out)
    reg.save(d)
    report = {"model": model, "device": device, "includes": "kernel only",
              "target": f"log2(us) of kernel time ({time} of each sample's repeats)",
              "split": f"kernel-grouped 90/10, seed {seed}", "held_out": metrics,
              "trained_on": "all rows" if refit_all else "the 90% split",
              "rows": int(len(rows)), "kernels": int(rows["kernel_file"].nunique()),
              "params": reg.get_params(),
              "provenance": provenance(dataset=f"datagen {folder}", seed=seed)}
    (d / "meta.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def load_regressor(model_dir: str | Path) -> Any:
    """The regressor saved in *model_dir* (GBM, LLM or counted), or the counted bound
    alone for ``counted``."""
    if str(model_dir) == COUNTED and not Path(model_dir).exists():
        from ridgeline.opencl.counted_model import CountedTimeModel

        return CountedTimeModel.bounds_only("pocl")
    d = Path(model_dir)
    meta = d / "meta.json"
    if not meta.exists():
        raise MissingDataError(f"{str(d)!r} is not a trained regressor folder (no meta.json); "
                               "train one with: ridgeline train-regressor --clgen nvidia "
                               f"--out {d}")
    kind = json.loads(meta.read_text()).get("model", "gbm")
    if kind == "llm":
        from ridgeline.predictors.llm_regressor import LLMRegressor

        return LLMRegressor.load(d)
    if kind == "counted":
        from ridgeline.opencl.counted_model import CountedTimeModel

        return CountedTimeModel.load(d)
    from ridgeline.predictors.gbm_regressor import GBMRegressor

    return GBMRegressor.load(d)


@lru_cache(maxsize=4096)
def parse_problems(src: str, build_options: str = "") -> str:
    """Why the source does not compile with these build options: what is undefined (the
    undeclared identifiers, unknown type names and missing includes, with their lines), else
    the first parse error inside its kernels ("" when it parses, or when no libclang is
    installed to check: the prediction then stands unchecked)."""
    from ridgeline.sources import clang_available

    if not clang_available():
        return ""
    from ridgeline.sources.clbuild import describe_parse_errors, undefined_names
    from ridgeline.sources.opencl import check_opencl

    build = BuildOptions.parse(build_options) if build_options else None
    kernels, errors = check_opencl(src, build=build)
    if undefined_names(errors):
        return describe_parse_errors(errors)
    for k in kernels:
        if k.problems:
            return k.problems[0]
    return ""


def row_build(row: Any, build: BuildOptions, base_dir: str | None) -> BuildOptions:
    text = str(row.get("build_options", "") or "").strip()
    if not text:
        return build
    return build.merged(BuildOptions.parse(text, base_dir, "build_options column"))


def row_source(row: Any, build: BuildOptions, base_dir: str | None
               ) -> tuple[str, BuildOptions]:
    """A row's kernel text and build options, refused with the reason when the text is empty
    or does not compile."""
    src = str(row["src"])
    if not src.strip():
        raise SchemaError("src is empty")
    b = row_build(row, build, base_dir)
    problem = parse_problems(src, b.cl_string())
    if problem:
        raise SchemaError(f"the kernel does not compile: {problem}")
    return src, b


def row_sizes(row: Any, spec: Any) -> tuple[int, int, float]:
    """(global size, work-group size, transfer) of a datagen-style row: ``wgsize`` and
    ``transfer`` as given, the global size inferred from the dataset and transfer as datagen
    sizes it."""
    from ridgeline.datagen.features import infer_global_size

    try:
        wg = int(float(row["wgsize"]))
        transfer = float(row["transfer"]) if str(row["transfer"]).strip() else 0.0
    except ValueError as e:
        raise SchemaError(f"wgsize/transfer must be numbers: {e}") from None
    if wg < 1:
        raise SchemaError(f"wgsize must be >= 1, got {wg}")
    return infer_global_size(row["dataset"], transfer, spec), wg, transfer


def _prepare(row: Any, build: BuildOptions, base_dir: str | None = None) -> dict[str, Any]:
    from ridgeline.datagen.args import kernel_spec

    src, b = row_source(row, build, base_dir)
    name = str(row.get("kernel", "") or "").strip()
    spec = kernel_spec(src, kernel=name or None, build=b)
    g, wg, transfer = row_sizes(row, spec)
    return {"src": src, "kernel": name, "global_size": g, "local_size": wg,
            "transfer": transfer, "build_options": b.cl_string()}


def predict_batch(model: Any, rows: Any, build: BuildOptions | None = None,
                  base_dir: str | None = None, progress: bool = False) -> Any:
    """The regress-batch contract: each row back with ``pred_runtime_ms``, ``error`` and
    ``counts_note`` (how the row's Oclgrind counts were taken). A row's optional ``kernel``
    names the kernel of ``src`` it launches (default: the first). *build* applies to every
    row, a row's ``build_options`` column is added to it (relative ``-I`` folders from
    *base_dir*). The counted model has its own contract
    (:func:`ridgeline.workflows.counted.predict_counted`)."""
    import pandas as pd
    from tqdm import tqdm

    from ridgeline.opencl.counted_model import CountedTimeModel

    if isinstance(model, CountedTimeModel):
        from ridgeline.workflows.counted import predict_counted

        return predict_counted(model, rows, build, base_dir, progress)
    build = build or BuildOptions()
    prepared: list[dict[str, Any] | None] = []
    errors: list[str] = []
    for _, r in tqdm(rows.iterrows(), total=len(rows), desc="checking", unit="row",
                     disable=not progress, leave=False):
        try:
            prepared.append(_prepare(r, build, base_dir))
            errors.append("")
        except (RidgelineError, KeyError, IndexError) as e:  # KernelNotFoundError lists the names
            prepared.append(None)
            errors.append(f"{type(e).__name__}: {e}"[:400])
    ok = [i for i, p in enumerate(prepared) if p is not None]
    preds: list[Any] = [""] * len(rows)
    notes: list[str] = [""] * len(rows)
    if ok:
        frame = pd.DataFrame([prepared[i] for i in ok])
        try:
            us = model.predict_rows(frame, progress=progress)
            for i, v, note in zip(ok, us, model.count_notes(frame), strict=True):
                preds[i] = float(v) / 1000.0
                notes[i] = note
        except RidgelineError as e:
            for i in ok:
                errors[i] = f"{type(e).__name__}: {e}"[:400]
    out = rows.copy()
    out["pred_runtime_ms"] = preds
    out["error"] = errors
    out["counts_note"] = notes
    out["includes"] = f"as the model's training target: {getattr(model, 'target_', 'unknown')}"
    return out
