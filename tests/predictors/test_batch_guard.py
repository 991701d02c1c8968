"""`predict-batch` refuses what it must not run: rows naming folders outside --sources,
launches CUDA cannot make, unknown model types, absurd arguments, and files whose rows do
not line up with their header; `predict` refuses impossible launches too."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.datasets import read_strict_csv
from ridgeline.errors import InputFileError

HEADER = ["source", "kernel", "model_type", "block_size", "grid_size", "exe_args", "device"]
GOOD = ["stencil-cuda", "stencil", "cuda", "(128, 1, 1)", "(8, 1, 1)", "1000 4", "A10"]


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        w.writerows(rows)
    return path


def _run(tmp_path: Path, sources: Path, rows: list[list[str]]) -> tuple[int, pd.DataFrame]:
    out = tmp_path / "out.csv"
    rc = main(["predict-batch", str(_write(tmp_path / "rows.csv", rows)), "--sources",
               str(sources), "--out", str(out), "--count", "never", "--jobs", "1"])
    return rc, pd.read_csv(out, keep_default_na=False, dtype=str)


def _with(**kw: str) -> list[str]:
    row = dict(zip(HEADER, GOOD, strict=True))
    row.update(kw)
    return [row[c] for c in HEADER]


def test_sources_outside_the_folder_are_refused_row_by_row(
        tmp_path: Path, stencil_dir: Path) -> None:
    sources = stencil_dir.parent
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "main.cu").write_text(stencil_dir.joinpath("main.cu").read_text())
    (sources / "escape").symlink_to(outside, target_is_directory=True)
    (sources / "inner").symlink_to(stencil_dir, target_is_directory=True)  # stays inside
    bad = ["..", "/etc", "../../../etc", "escape", str(stencil_dir), ".", "stencil-cuda/.."]
    rows = [_with()] + [_with(source=s) for s in bad] + [_with(source="inner"), _with()]
    rc, df = _run(tmp_path, sources, rows)
    assert rc == 0
    err = list(df["error"])
    assert err[0] == err[-1] == err[-2] == ""  # the others are predicted
    assert all(float(df["pred_xtime_ns"][i]) > 0 for i in (0, len(rows) - 2, len(rows) - 1))
    for i, source in enumerate(bad, start=1):
        assert err[i].startswith("SchemaError: source "), (source, err[i])
        assert repr(source) in err[i] and f"line {i + 2})" in err[i]
        assert df["pred_xtime_ns"][i] == "" and df["count_status"][i] == ""
    assert "'..' component" in err[1] and "'..' component" in err[3]
    assert "absolute path" in err[2] and "absolute path" in err[5]
    assert "not inside --sources" in err[4] and str(outside.resolve()) in err[4]
    assert "not inside --sources" in err[6]  # "." is --sources itself


def test_impossible_launches_and_values_are_refused_row_by_row(
        tmp_path: Path, stencil_dir: Path) -> None:
    cases = {
        "block_size '(2048,1,1)'": (_with(block_size="(2048,1,1)"),
                                    "LaunchError: block_size (2048, 1, 1): 2048 threads in x"),
        "block z": (_with(block_size="(1, 1, 65)"), "65 threads in z"),
        "block product": (_with(block_size="(32, 32, 2)"), "2048 threads per block"),
        "grid 1e30": (_with(grid_size="1e30"), "grid_size (1e+30, 1, 1): 1e+30 blocks in x"),
        "grid y": (_with(grid_size="(1, 65536, 1)"), "65536 blocks in y"),
        "fortran": (_with(model_type="fortran"), "unknown model type 'fortran'"),
        "non-numeric": (_with(block_size="many"), "block_size 'many' is not understood"),
        "fraction": (_with(grid_size="2.5"), "positive integers"),
        "long args": (_with(exe_args="1 " * 3000), "exe_args has 6000 characters"),
        "huge int arg": (_with(exe_args="9" * 40 + " 4"), "does not fit a 64-bit integer"),
        "gpu": (_with(device="Voodoo 2"), "unknown GPU 'Voodoo 2'"),
        "kernel": (_with(kernel=" "), "kernel is empty"),
        "two problems": (_with(block_size="4096", model_type="f77"), "unknown model type"),
    }
    rows = [_with()] + [r for r, _ in cases.values()] + [_with(block_size="(1024, 1, 1)")]
    rc, df = _run(tmp_path, stencil_dir.parent, rows)
    assert rc == 0
    err = list(df["error"])
    assert err[0] == err[-1] == ""
    for i, (name, (_, want)) in enumerate(cases.items(), start=1):
        assert want in err[i], (name, err[i])
        assert err[i].endswith(f"(rows.csv line {i + 2})")
        assert df["pred_SP_FLOP"][i] == "" and df["pred_xtime_ns"][i] == ""
    assert "4096 threads in x" in err[-2]  # every problem of a row is named
    assert "cuda, ocl, omp, opencl" in err[6]  # the allowed model types are listed


def test_every_row_failing_exits_non_zero(tmp_path: Path, stencil_dir: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rc, df = _run(tmp_path, stencil_dir.parent, [_with(source=".."), _with(block_size="0")])
    assert rc == 1 and len(df) == 2
    text = capsys.readouterr().err
    assert "every row failed" in text and "errors: " in text and "SchemaError 1" in text


@pytest.mark.parametrize("text, lines", [
    # one trailing comma on the first data row: pandas would shift every row one column
    ("{h}\n{g},\n{g}\n", "line 2 has 8"),
    ("{h}\n{g}\n{g}\n{short}\n", "line 4 has 6"),
    ("{h}\n\n{g}\n{g},x,y\n{g},\n", "2 rows do not have the header's 7 fields (line 4 has 9, "
                                     "line 5 has 8)"),
])
def test_ragged_rows_refuse_the_file_with_their_lines(
        tmp_path: Path, stencil_dir: Path, capsys: pytest.CaptureFixture[str], text: str,
        lines: str) -> None:
    g = ",".join(f'"{v}"' for v in GOOD)
    p = tmp_path / "ragged.csv"
    p.write_text(text.format(h=",".join(HEADER), g=g, short=g[:g.rfind(",")]))
    out = tmp_path / "out.csv"
    assert main(["predict-batch", str(p), "--sources", str(stencil_dir.parent), "--out",
                 str(out), "--count", "never"]) == 2
    err = capsys.readouterr().err
    assert f"{p}: " in err and lines in err and "shifts columns" in err
    assert not out.exists() and not out.with_name("out.csv.partial").exists()


def test_strict_reader_keeps_text_and_lines(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_bytes(b'\xef\xbb\xbfa,b\n"x\ny",007\n\n,\n')
    df, lines = read_strict_csv(p)
    assert list(df.columns) == ["a", "b"] and lines == [2, 5]
    assert df.to_dict("list") == {"a": ["x\ny", ""], "b": ["007", ""]}
    p.write_bytes(b"a,a\n1,2\n")
    with pytest.raises(InputFileError, match=r"\['a'\] appear more than once"):
        read_strict_csv(p)
    p.write_bytes(b"a,b\n1,2\n3,\xff\n")
    with pytest.raises(InputFileError, match="line 3: not UTF-8"):
        read_strict_csv(p)
    p.write_bytes(b"a,b\n1,2\n3,4\n5," + b"6" * 200_000 + b"\n")
    with pytest.raises(InputFileError, match="line 4: malformed CSV: field larger"):
        read_strict_csv(p)


@pytest.mark.parametrize("flag, value, want", [
    ("--block", "2048", "--block (2048, 1, 1): 2048 threads in x"),
    ("--block", "(16, 16, 8)", "--block (16, 16, 8): 2048 threads per block"),
    ("--grid", "1e30", "--grid (1e+30, 1, 1): 1e+30 blocks in x"),
    ("--grid", "1,70000", "--grid (1, 70000, 1): 70000 blocks in y"),
])
def test_predict_refuses_launches_beyond_cuda_limits(
        capsys: pytest.CaptureFixture[str], flag: str, value: str, want: str) -> None:
    assert main(["predict", "--sample", "saxpy", "--gpu", "a100", flag, value]) == 2
    err = capsys.readouterr().err
    assert want in err and "allowed" in err and "Traceback" not in err
