"""The foundation commands end to end: gpus, label, datasets, and error handling."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from ridgeline.cli import main

RIDGES = {"sp": 32.97, "dp": 0.515, "int": 16.49}


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_gpus_json(capsys):
    rc, out, _ = run(capsys, "gpus", "--json")
    assert rc == 0
    gpus = json.loads(out)
    assert len(gpus) >= 20
    for g in gpus:
        for k in ("name", "aliases", "peak_fp32_tflops", "peak_fp64_tflops", "peak_fp16_tflops",
                  "peak_int32_tops", "dram_bandwidth_gbps", "sm_count"):
            assert k in g
    assert "3080" in next(g for g in gpus if g["name"] == "GeForce RTX 3080")["aliases"]


def test_gpus_table(capsys):
    rc, out, _ = run(capsys, "gpus")
    assert rc == 0 and "GeForce RTX 3080" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("GeForce RTX 3080"))
    assert line.rstrip().endswith("33/0.515/16.5")  # the paper's ridges, 3 digits


def test_label_paper_a_agrees_with_answer_on_every_row(capsys, data_dir, tmp_path):
    out = tmp_path / "out.csv"
    rc, _, err = run(capsys, "label", str(data_dir / "hecbench/paper-a-balanced.csv"),
                     "--gpu", "rtx3080", "--rule", "paper-a", "--out", str(out))
    assert rc == 0 and "243 rows" in err
    df = pd.read_csv(out)
    assert len(df) == 243
    assert (df["label"] == df["answer"]).all()


def test_label_rtx3080_profiling_matches_independent_rule(capsys, data_dir, tmp_path):
    out = tmp_path / "out.csv"
    rc, _, _ = run(capsys, "label", str(data_dir / "hecbench/rtx3080-profiling.csv"),
                   "--gpu", "3080", "--out", str(out))
    assert rc == 0
    df = pd.read_csv(out)
    # recomputed independently: intensities from the rates, ridges from the paper's text
    sp, dp, it = (df["spPerf"] / df["traffic"], df["dpPerf"] / df["traffic"],
                  df["intops"] / (df["traffic"] * df["xtime"] * 1e-9))
    expected = ((sp < RIDGES["sp"]) & (dp < RIDGES["dp"]) & (it < RIDGES["int"])).map(
        {True: "Bandwidth", False: "Compute"})
    assert len(df) == 2710
    assert (df["label"] == expected).mean() == 1.0


def test_label_kernel_performance_schema_and_fp_rule(capsys, data_dir, tmp_path):
    out = tmp_path / "out.csv"
    rc, _, err = run(capsys, "label", str(data_dir / "hecbench/kernel-performance.csv"),
                     "--rule", "fp", "--out", str(out))
    assert rc == 0 and "kernel-performance schema" in err
    df = pd.read_csv(out)
    assert set(df["label"]) == {"Compute", "Bandwidth"}
    int_only = df[df["dominant_precision"] == "int-only"]
    assert (int_only["label"] == "Bandwidth").all()


def test_label_reports_nan_and_zero_rows_without_dropping(capsys, tmp_path):
    src = tmp_path / "p.csv"
    src.write_text(
        "source,kernel,model_type,device,block_size,grid_size,exe_args,SP_FLOP,DP_FLOP,HP_FLOP,"
        "int_ops,bytes_total,xtime_ns\n"
        "a-cuda,k,cuda,3080,256,1,,100,0,0,0,0,5\n"
        "a-cuda,k,cuda,3080,256,1,,0,0,0,0,0,5\n"
        "a-cuda,k,cuda,3080,256,1,,,0,0,0,10,5\n"
        "a-cuda,k,cuda,3080,256,1,,1,0,0,1,1000,5\n"
    )
    out = tmp_path / "o.csv"
    rc, _, err = run(capsys, "label", str(src), "--gpu", "3080", "--out", str(out))
    assert rc == 0
    df = pd.read_csv(out, keep_default_na=False)
    assert list(df["label"]) == ["Compute", "", "", "Bandwidth"]
    assert "undefined" in df["label_note"][1] and "missing" in df["label_note"][2]
    assert "row 3" in err and "row 4" in err


@pytest.mark.parametrize(
    "content,needle",
    [
        (b"a,b\n1,2\n", "missing ['xtime'"),
        (b"", "empty file"),
        (b"xtime,traffic\n\xff\xfe\x00bad\n", "not UTF-8"),
        (b'xtime,traffic,spPerf\n"1,2\n', "malformed CSV"),
    ],
)
def test_label_bad_files_are_clear_errors(capsys, tmp_path, content, needle):
    f = tmp_path / "bad.csv"
    f.write_bytes(content)
    rc, _, err = run(capsys, "label", str(f), "--gpu", "3080")
    assert rc != 0
    assert needle in err and "Traceback" not in err


def test_unknown_gpu_and_rule(capsys, data_dir):
    f = str(data_dir / "hecbench/paper-a-balanced.csv")
    rc, _, err = run(capsys, "label", f, "--gpu", "rtx3070")
    assert rc == 2 and "did you mean" in err and "GeForce RTX 3080" in err
    rc, _, err = run(capsys, "label", f, "--gpu", "3080", "--rule", "paper")
    assert rc == 2 and "'paper-a'" in err


def test_datasets_command(capsys, data_dir):
    rc, out, _ = run(capsys, "datasets", "--data-dir", str(data_dir), "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rc == 0 and rows["paper-a"]["rows"] == 243 and rows["hecbench"]["status"] == "ok"


def test_console_script_prints_errors_without_traceback(tmp_path):
    exe = [sys.executable, "-m", "ridgeline.cli._app"]
    r = subprocess.run([*exe, "label", str(tmp_path / "none.csv")], capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert "does not exist" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*exe, "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ridgeline ")
