"""Every `predict-batch` row says whether its counts come from CPU execution and, when not,
why (count_status, count_error); the batch's summary groups the causes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ridgeline.cli import main
from ridgeline.errors import RidgelineError

from .conftest import STENCIL


@pytest.mark.slow
def test_each_row_says_why_it_was_not_counted(tmp_path: Path, stencil_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from ridgeline.counting.toolchain import find_toolchain

    try:
        find_toolchain()
    except RidgelineError as e:
        pytest.skip(f"no toolchain to count with: {e}")
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))
    broken = tmp_path / "broken-cuda"
    broken.mkdir()
    (broken / "main.cu").write_text(STENCIL.replace("return 0;", "return 0"))
    rows = tmp_path / "rows.csv"
    rows.write_text(
        "source,kernel,model_type,block_size,grid_size,exe_args,device\n"
        'stencil-cuda,stencil,cuda,"(128, 1, 1)","(8, 1, 1)",1000 4,3080\n'
        'broken-cuda,stencil,cuda,"(128, 1, 1)","(8, 1, 1)",1000 4,3080\n'
        'broken-cuda,stencil,cuda,"(128, 1, 1)","(8, 1, 1)",1000 4,A100\n'
        '..,stencil,cuda,"(128, 1, 1)","(8, 1, 1)",1000 4,A100\n')
    out = tmp_path / "out.csv"
    base = ["predict-batch", str(rows), "--sources", str(tmp_path), "--out", str(out),
            "--jobs", "2"]

    def run(mode: str) -> pd.DataFrame:
        capsys.readouterr()
        assert main([*base, "--count", mode]) == 0
        return pd.read_csv(out, keep_default_na=False, dtype=str)

    df = run("auto")
    assert list(df["count_status"]) == ["failed", "failed", "failed", ""]
    # the cause, then the first error line: the program crashed, or did not compile (where)
    assert df["count_error"][0].startswith("crash: ")
    for i in (1, 2):
        assert df["count_error"][i].startswith("compile: ")
        assert "main.cu" in df["count_error"][i] and "error" in df["count_error"][i]
    assert df["count_error"][3] == "" and "SchemaError" in df["error"][3]
    assert list(df["pred_origin"]) == ["learned", "learned", "learned", ""]
    err = capsys.readouterr().err
    assert "not counted, failed (3 rows): compile 2, crash 1" in err
    assert "errors: SchemaError 1" in err
    df = run("cached")  # runs nothing: nothing cached for these programs
    assert list(df["count_status"]) == ["not-cached"] * 3 + [""]
    assert "not counted, not-cached (3 rows)" in capsys.readouterr().err
    df = run("never")
    assert list(df["count_status"]) == ["off"] * 3 + [""]
    assert list(df["count_error"]) == [""] * 4
