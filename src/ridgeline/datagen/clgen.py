"""CLgen rows (Cummins et al., CGO 2017) as regression rows: ``src``, ``global_size``,
``local_size``, ``transfer``, ``time_us`` (``runtime_gpu``, which includes transfers)."""

from __future__ import annotations

from typing import Any

from ridgeline.errors import UsageError

__all__ = ["clgen_rows", "CLGEN_GPUS"]

CLGEN_GPUS = {"nvidia": ("clgen-nvidia", "NVIDIA GTX 970"), "amd": ("clgen-amd", "AMD HD 7970")}


def clgen_rows(which: str, data_dir: str | None = None) -> Any:
    """One row per CLgen launch on the named GPU (``nvidia`` or ``amd``)."""
    from ridgeline.datasets import clgen_sources, load

    if which not in CLGEN_GPUS:
        raise UsageError(f"--clgen {which!r} is not known; use one of {sorted(CLGEN_GPUS)}")
    df = load(CLGEN_GPUS[which][0], data_dir)
    srcs = clgen_sources(data_dir)
    files = df["benchmark"].str.replace(r"-A$", "", regex=True)
    out = df.assign(src=files.map(srcs), kernel_file=files, global_size=df["dataset"],
                    local_size=df["wgsize"], time_us=df["runtime_gpu"] * 1000.0)
    out = out[out["src"].notna()].reset_index(drop=True)
    return out[["kernel_file", "src", "global_size", "local_size", "transfer", "dataset",
                "wgsize", "time_us"]]
