import numpy as np
import pytest

from ridgeline.datasets import (
    clgen_sources,
    data_dir,
    dataset_names,
    group_kfold,
    leave_one_gpu_out,
    load,
    program_of,
    train_test_by_program,
)
from ridgeline.errors import MissingDataError, UnknownNameError, UsageError


def test_program_of_strips_model_suffix():
    assert program_of("haccmk-cuda") == "haccmk"
    assert program_of("haccmk-omp") == "haccmk"
    assert program_of("lu-decomposition-cuda") == "lu-decomposition"


def test_all_named_datasets_load(data_dir):
    assert set(dataset_names()) >= {"hecbench", "paper-a", "rtx3080-profiling", "clgen-nvidia",
                                    "clgen-amd", "ncu-imix", "sass-imix"}
    for name in dataset_names():
        df = load(name, data_dir)
        assert len(df) > 100 and "program" in df


def test_hecbench_schema(data_dir):
    df = load("hecbench", data_dir)
    assert set(df["gpu"]) == {"GeForce RTX 3080", "NVIDIA A10", "NVIDIA A100 SXM4 40GB"}
    assert set(df["model_type"]) == {"cuda", "omp"}
    row = df.iloc[0]
    assert len(row["grid"]) == 3 and len(row["block"]) == 3
    assert isinstance(row["exe_args"], str)
    assert (df["dram_bytes"] >= 0).all() and (df["time_ns"] > 0).all()


def test_paper_a_counts_match_its_intensities(data_dir):
    df = load("paper-a", data_dir)
    assert set(df["label"]) == {"Compute", "Bandwidth"}
    nz = df[df["dram_bytes"] > 0]
    np.testing.assert_allclose(nz["flops_sp"] / nz["dram_bytes"], nz["spAI"], rtol=1e-6, atol=1e-9)
    assert df["is_train"].mean() == pytest.approx(0.8, abs=0.05)


def test_clgen(data_dir):
    df = load("clgen-nvidia", data_dir)
    src = clgen_sources(data_dir)
    assert len(src) == 1000
    assert set(df["kernel_file"]) <= set(src)
    assert "__kernel" in next(iter(src.values()))


def test_missing_data_folder_names_both(tmp_path, monkeypatch):
    monkeypatch.delenv("RIDGELINE_DATA", raising=False)
    with pytest.raises(MissingDataError, match="RIDGELINE_DATA"):
        data_dir()
    with pytest.raises(MissingDataError, match="--data-dir"):
        data_dir(tmp_path / "nope")
    monkeypatch.setenv("RIDGELINE_DATA", str(tmp_path))
    with pytest.raises(MissingDataError, match="kernel-performance.csv.*" + tmp_path.name):
        load("hecbench")
    with pytest.raises(UnknownNameError, match="did you mean 'hecbench'"):
        load("hecbench2")


def test_group_kfold_never_splits_a_program(data_dir):
    df = load("hecbench", data_dir)
    seen = set()
    folds = list(group_kfold(df, 5, seed=4839))
    assert len(folds) == 5
    for train, test in folds:
        tr, te = set(df["program"].iloc[train]), set(df["program"].iloc[test])
        assert not tr & te
        assert not te & seen
        seen |= te
    assert seen == set(df["program"])
    again = [t.tolist() for _, t in group_kfold(df, 5, seed=4839)]
    assert again == [t.tolist() for _, t in folds]
    other = [t.tolist() for _, t in group_kfold(df, 5, seed=1)]
    assert other != again
    with pytest.raises(UsageError):
        list(group_kfold(df.head(3), 5))


def test_leave_one_gpu_out_and_single_split(data_dir):
    df = load("hecbench", data_dir)
    outs = list(leave_one_gpu_out(df))
    assert len(outs) == 3
    for gpu, train, test in outs:
        assert set(df["gpu"].iloc[test]) == {gpu} and gpu not in set(df["gpu"].iloc[train])
    train, test = train_test_by_program(df, 0.2, seed=4839)
    assert not set(df["program"].iloc[train]) & set(df["program"].iloc[test])
