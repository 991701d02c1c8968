"""Named ground-truth datasets with loaders that return one schema (see readers.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd

from ridgeline._registry import Registry
from ridgeline.datasets.location import data_dir, data_file
from ridgeline.datasets.readers import (
    canonical_gpu,
    clean_args,
    dims,
    program_of,
    read_clgen_sources,
    read_csv,
    require_columns,
)

__all__ = ["Dataset", "DATASETS", "load", "clgen_sources", "dataset_names"]


@dataclass(frozen=True)
class Dataset:
    name: str
    file: str
    description: str
    reader: Callable[[Path], pd.DataFrame]


DATASETS: Registry[Dataset] = Registry("dataset")


def _model_type(source: pd.Series) -> pd.Series:
    return source.str.extract(r"-(cuda|omp)$", expand=False).fillna("unknown")


def _kernel_performance(path: Path) -> pd.DataFrame:
    df = read_csv(path)
    cols = ["source", "kernel", "model_type", "device", "block_size", "grid_size", "exe_args",
            "SP_FLOP", "DP_FLOP", "HP_FLOP", "int_ops", "bytes_total", "xtime_ns"]
    require_columns(df, cols, str(path))
    out = df.copy()
    out["program"] = df["source"].map(program_of)
    out["gpu"] = canonical_gpu(df["device"])
    out["grid"] = dims(df["grid_size"], "grid_size")
    out["block"] = dims(df["block_size"], "block_size")
    out["exe_args"] = clean_args(df["exe_args"])
    out["flops_sp"] = df["SP_FLOP"].astype(float)
    out["flops_dp"] = df["DP_FLOP"].astype(float)
    out["flops_hp"] = df["HP_FLOP"].astype(float)
    out["int_ops"] = df["int_ops"].astype(float)
    out["dram_bytes"] = df["bytes_total"].astype(float)
    out["time_ns"] = df["xtime_ns"].astype(float)
    return out


def _profiling_counts(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Rows in the rtx3080-profiling schema (per-second rates) -> canonical counts."""
    cols = ["Kernel Name", "kernelName", "targetName", "exeArgs", "Block Size", "Grid Size",
            "device", "xtime", "traffic", "spPerf", "dpPerf", "intops"]
    require_columns(df, cols, str(path))
    out = df.copy()
    secs = df["xtime"].astype(float) * 1e-9
    out["source"] = df["targetName"]
    out["program"] = df["targetName"].map(program_of)
    out["kernel"] = df["kernelName"]
    out["kernel_signature"] = df["Kernel Name"]
    out["model_type"] = _model_type(df["targetName"])
    out["gpu"] = canonical_gpu(df["device"])
    out["grid"] = dims(df["Grid Size"], "Grid Size")
    out["block"] = dims(df["Block Size"], "Block Size")
    out["exe_args"] = clean_args(df["exeArgs"])
    out["flops_sp"] = df["spPerf"].astype(float) * secs
    out["flops_dp"] = df["dpPerf"].astype(float) * secs
    out["flops_hp"] = 0.0
    out["int_ops"] = df["intops"].astype(float)
    out["dram_bytes"] = df["traffic"].astype(float) * secs
    out["time_ns"] = df["xtime"].astype(float)
    return out


def _rtx3080_profiling(path: Path) -> pd.DataFrame:
    return _profiling_counts(read_csv(path), path)


def _paper_a(path: Path) -> pd.DataFrame:
    df = read_csv(path)
    require_columns(df, ["answer", "isTrain", "numTokens", "spAI", "dpAI", "intAI"], str(path))
    out = _profiling_counts(df, path)
    out["label"] = df["answer"].astype(str).str.strip().str.capitalize()
    out["is_train"] = df["isTrain"].astype(int).astype(bool)
    out["num_tokens"] = df["numTokens"].astype(int)
    return out


def _with_source_columns(path: Path) -> pd.DataFrame:
    df = read_csv(path)
    require_columns(df, ["source", "device", "exeArgs", "model_type"], str(path))
    out = df.copy()
    out["program"] = df["source"].map(program_of)
    out["gpu"] = canonical_gpu(df["device"])
    out["exe_args"] = clean_args(df["exeArgs"])
    if "Block Size" in df:
        out["block"] = dims(df["Block Size"], "Block Size")
        out["grid"] = dims(df["Grid Size"], "Grid Size")
    return out


def _clgen(path: Path) -> pd.DataFrame:
    df = read_csv(path)
    require_columns(df, ["benchmark", "dataset", "wgsize", "transfer", "runtime_gpu"], str(path))
    out = df.copy()
    out["kernel_file"] = df["benchmark"].astype(str).str.rsplit("-", n=1).str[0]
    out["program"] = out["kernel_file"]
    out["time_ns"] = df["runtime_gpu"].astype(float) * 1e6
    out["global_size"] = pd.to_numeric(df["dataset"], errors="coerce").astype("Int64")
    return out


for _ds in (
    Dataset("hecbench", "hecbench/kernel-performance.csv",
            "HeCBench kernel launches on RTX 3080, A10, A100 (ncu counts and times)",
            _kernel_performance),
    Dataset("paper-a", "hecbench/paper-a-balanced.csv",
            "the 2025 roofline paper's balanced classification set (RTX 3080)", _paper_a),
    Dataset("rtx3080-profiling", "hecbench/rtx3080-profiling.csv",
            "RTX 3080 Nsight Compute rows behind the 2025 roofline paper", _rtx3080_profiling),
    Dataset("ncu-imix", "hecbench/ncu-metrics-imix.csv.gz",
            "per-kernel ncu metrics joined with the static SASS instruction mix",
            _with_source_columns),
    Dataset("sass-imix", "hecbench/sass-imix.csv.gz",
            "static SASS opcode histogram per compiled kernel and architecture",
            _with_source_columns),
    Dataset("clgen-nvidia", "clgen/nvidia-clgen.csv",
            "CLgen OpenCL kernels timed on a GTX 970 (runtime_gpu, ms, with transfers)", _clgen),
    Dataset("clgen-amd", "clgen/amd-clgen.csv",
            "CLgen OpenCL kernels timed on an HD 7970 (runtime_gpu, ms, with transfers)", _clgen),
):
    DATASETS.add(_ds.name, _ds)


def dataset_names() -> list[str]:
    return DATASETS.names()


@lru_cache(maxsize=16)
def _load_cached(name: str, root: str) -> pd.DataFrame:
    ds = DATASETS.get(name)
    return ds.reader(data_file(ds.file, root))


def load(name: str, data_dir_: str | Path | None = None) -> pd.DataFrame:
    """Load a named dataset as a DataFrame (a fresh copy; the parsed table is cached)."""
    root = data_dir(data_dir_)
    return _load_cached(name.lower(), str(root)).copy()


def clgen_sources(data_dir_: str | Path | None = None) -> dict[str, str]:
    """``<sha1>.cl`` -> OpenCL source of the 1,000 CLgen kernels."""
    return dict(_clgen_cached(str(data_file("clgen/clgen-1000-kernels.tar.bz2", data_dir_))))


@lru_cache(maxsize=1)
def _clgen_cached(path: str) -> dict[str, str]:
    return read_clgen_sources(Path(path))


