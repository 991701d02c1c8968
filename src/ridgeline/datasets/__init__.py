"""Ground-truth datasets: a registry of named loaders, one schema, program-grouped splits."""

from ridgeline.datasets.location import data_dir, data_file
from ridgeline.datasets.readers import program_of, read_csv, read_strict_csv, require_columns
from ridgeline.datasets.registry import DATASETS, Dataset, clgen_sources, dataset_names, load
from ridgeline.datasets.sealed import is_sealed, sealed_mask, split_sealed
from ridgeline.datasets.splits import group_kfold, leave_one_gpu_out, train_test_by_program

__all__ = [
    "DATASETS",
    "Dataset",
    "clgen_sources",
    "data_dir",
    "data_file",
    "dataset_names",
    "group_kfold",
    "is_sealed",
    "leave_one_gpu_out",
    "load",
    "program_of",
    "read_csv",
    "read_strict_csv",
    "require_columns",
    "sealed_mask",
    "split_sealed",
    "train_test_by_program",
]
