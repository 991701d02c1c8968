"""The counted OpenCL time model as a use case: trained on a ``ridgeline datagen`` run
(each timed sample counted at its own arguments), and ``regress-batch`` rows predicted with
it (kernel time, its bound, the transfers apart).

Rows may carry the launch as recorded: ``global_dims`` / ``local_dims`` ("512,512") and
``args`` (a JSON list of ``{"kind": "buffer"|"scalar"|"local", "bytes": B, "hex": ...}``, as
``ridgeline.opencl.trace`` records them, or ``"value"`` for a scalar). Without them the
launch is 1-D (``dataset`` work-items in groups of ``wgsize``) with datagen's arguments
(one element per work-item, integer scalars = the global size), and the note says so.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ridgeline.errors import MissingDataError, RidgelineError
from ridgeline.evaluation.metrics import regression
from ridgeline.evaluation.provenance import provenance
from ridgeline.evaluation.regressors import grouped_split
from ridgeline.opencl.counted_model import CountedTimeModel, count_all
from ridgeline.opencl.counted_time import transfer_time
from ridgeline.opencl.launchargs import RecordedLaunch
from ridgeline.profiles.oclgrind import Buffer, LocalBuffer, Scalar
from ridgeline.sources.clbuild import BuildOptions

__all__ = ["train_counted", "predict_counted", "datagen_launches", "INCLUDES"]

INCLUDES = "kernel only (device START..END); transfers apart in pred_transfer_ms"


def _arg_records(summary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """datagen's argument summary (kind buffer/localbuffer/scalar with nbytes, value) as
    trace-style records."""
    out = []
    for a in summary:
        kind = str(a.get("kind", ""))
        if kind == "scalar":
            out.append({"kind": "scalar", "value": a.get("value", 0)})
        elif kind in ("localbuffer", "local"):
            out.append({"kind": "local", "bytes": int(a.get("nbytes", 1))})
        else:
            out.append({"kind": "buffer", "bytes": int(a.get("nbytes", 1))})
    return out


def datagen_launches(rows: Any) -> list[RecordedLaunch]:
    """The launches of datagen regression rows (:func:`ridgeline.datagen.store.datagen_rows`)
    at the arguments they were timed with."""
    out = []
    for r in rows.itertuples(index=False):
        out.append(RecordedLaunch(str(r.src), str(r.kernel_name), (int(r.global_size),),
                                  (int(r.local_size),),
                                  tuple(_arg_records(json.loads(r.args)))))
    return out


def train_counted(folder: str | Path, out: str | Path, device: str = "pocl",
                  seed: int = 4839, limit_kernels: int | None = None,
                  progress: bool = False) -> dict[str, Any]:
    """Count every timed sample of a datagen run at its arguments, fit the correction on a
    kernel-grouped 90% and score the held-out 10% (with and without the correction), then
    refit on all rows and save."""
    from ridgeline.datagen.store import datagen_rows, read_samples

    rows = datagen_rows(folder) if not read_samples(folder).empty else None
    if rows is None or rows.empty:
        raise MissingDataError(f"{str(folder)!r} holds no timed datagen samples; make some "
                               f"with: ridgeline datagen KERNELS_DIR --device {device} "
                               f"--out {folder}")
    if limit_kernels:
        keep = sorted(rows["kernel_file"].unique())[:limit_kernels]
        rows = rows[rows["kernel_file"].isin(keep)].reset_index(drop=True)
    launches = datagen_launches(rows)
    counts = count_all(launches, progress, "counting datagen samples")
    secs = (rows["time_us"].to_numpy(dtype=float) * 1e-6).tolist()
    tr, te = grouped_split(rows["kernel_file"].tolist(), 0.1, seed)
    held: dict[str, Any] = {}
    for label, corr in (("counted", True), ("bound only", False)):
        m = CountedTimeModel(device=device, correction=corr, random_state=seed)
        m.fit([launches[i] for i in range(len(rows)) if tr[i]],
              [secs[i] for i in range(len(rows)) if tr[i]],
              counts=[counts[i] for i in range(len(rows)) if tr[i]])
        idx = [i for i in range(len(rows)) if te[i]]
        pred = m.predict_launches([launches[i] for i in idx], counts=[counts[i] for i in idx])
        ok = [(secs[i], p.kernel_s) for i, p in zip(idx, pred, strict=True) if p.kernel_s]
        held[label] = regression([t for t, _ in ok], [p for _, p in ok])
    model = CountedTimeModel(device=device, random_state=seed).fit(launches, secs,
                                                                   counts=counts)
    d = Path(out)
    model.save(d)
    n_err = sum(isinstance(c, str) for c in counts)
    report = {"model": "counted", "device": device, "includes": "kernel only",
              "target": "log2(measured / bound) of kernel time (median of each sample's "
                        "repeats)", "split": f"kernel-grouped 90/10, seed {seed}",
              "held_out": held, "rows": len(rows), "kernels": int(rows["kernel_file"].nunique()),
              "rows_counted": len(rows) - n_err, "rows_not_counted": n_err,
              "count_seconds_median": _median([c.seconds for c in counts
                                               if not isinstance(c, str)]),
              "peaks": model.peaks_.to_dict(), "params": model.get_params(),
              "provenance": provenance(dataset=f"datagen {folder}", seed=seed)}
    (d / "meta.json").write_text(json.dumps(report, indent=2, default=str))
    return report


def _median(v: list[float]) -> float | None:
    import statistics

    return statistics.median(v) if v else None


@lru_cache(maxsize=1024)
def _spec(src: str, kernel: str, build_options: str) -> Any:
    from ridgeline.datagen.args import kernel_spec

    build = BuildOptions.parse(build_options) if build_options else None
    return kernel_spec(src, kernel=kernel or None, build=build)


def _row_launch(row: Any, build: BuildOptions, base_dir: str | None
                ) -> tuple[RecordedLaunch, str]:
    from ridgeline.datagen.sizing import make_args
    from ridgeline.workflows.regressors import row_sizes, row_source

    src, b = row_source(row, build, base_dir)
    spec = _spec(src, str(row.get("kernel", "") or "").strip(), b.cl_string())
    gd, ld, args = (str(row.get(k, "") or "").strip() for k in ("global_dims", "local_dims",
                                                               "args"))
    if gd and args:
        return RecordedLaunch.from_json(src, spec.name, gd, ld, args, b.cl_string()), ""
    g, wg, _ = row_sizes(row, spec)
    recs = [_record(a) for a in make_args(spec, g)]
    launch = RecordedLaunch(src, spec.name, (g,), (wg,), tuple(recs), b.cl_string())
    return launch, "arguments by datagen's convention (the row has no global_dims/args)"


def _record(a: Buffer | LocalBuffer | Scalar) -> dict[str, Any]:
    if isinstance(a, Buffer):
        return {"kind": "buffer", "bytes": a.nbytes}
    if isinstance(a, LocalBuffer):
        return {"kind": "local", "bytes": a.nbytes}
    return {"kind": "scalar", "value": a.value}


def predict_counted(model: CountedTimeModel, rows: Any, build: BuildOptions | None = None,
                    base_dir: str | None = None, progress: bool = False) -> Any:
    """regress-batch with the counted model: each row back with ``pred_runtime_ms`` (kernel
    only), ``pred_bound_ms``, ``pred_transfer_ms`` (the ``transfer`` bytes over the link,
    one call per buffer argument each way), ``includes``, ``counts_note``, ``count_s`` and
    ``error``."""
    build = build or BuildOptions()
    launches: list[RecordedLaunch | None] = []
    errors, extra = [], []
    for _, r in rows.iterrows():
        try:
            launch, note = _row_launch(r, build, base_dir)
            launches.append(launch)
            errors.append("")
            extra.append(note)
        except (RidgelineError, KeyError, IndexError, ValueError) as e:
            launches.append(None)
            errors.append(f"{type(e).__name__}: {e}"[:400])
            extra.append("")
    ok = [i for i, x in enumerate(launches) if x is not None]
    preds = model.predict_launches([launches[i] for i in ok], progress)  # type: ignore[misc]
    peaks = model._peaks()
    cols: dict[str, list[Any]] = {k: [""] * len(rows) for k in (
        "pred_runtime_ms", "pred_bound_ms", "pred_transfer_ms", "counts_note", "count_s")}
    for i, p in zip(ok, preds, strict=True):
        if p.error:
            errors[i] = p.error
            continue
        cols["pred_runtime_ms"][i] = float(p.kernel_s or 0.0) * 1e3
        cols["pred_bound_ms"][i] = float(p.bound_s or 0.0) * 1e3
        cols["counts_note"][i] = "; ".join(x for x in (p.note, extra[i]) if x)
        cols["count_s"][i] = round(p.count_s, 3)
        nbuf = sum(1 for a in (launches[i] or RecordedLaunch("", "", (1,), None, ())).args
                   if a.get("kind") == "buffer")
        tr = str(rows.iloc[i].get("transfer", "") or "").strip()
        cols["pred_transfer_ms"][i] = transfer_time(float(tr) if tr else 0.0, 2 * nbuf,
                                                    peaks) * 1e3
    out = rows.copy()
    for k, v in cols.items():
        out[k] = v
    out["includes"] = INCLUDES
    out["error"] = errors
    return out
