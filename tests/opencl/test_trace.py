"""The launch/transfer interposer on a real OpenCL host program run on PoCL: the host creates
its queue without profiling, passes no events and builds with its own -D options, as suite
programs do; the trace still has every launch's device times, sizes and arguments."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.conftest import require

HOST = r"""
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
static const char *SRC =
  "__kernel void scale(__global const float *x, __global float *y, const float a,\n"
  "                    __local float *tile, const int n) {\n"
  "  int i = get_global_id(0), l = get_local_id(0);\n"
  "  tile[l] = x[i];\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (i < n) y[i] = a * tile[l] + OFFSET;\n"
  "}\n"
  "__kernel void twice(__global float *y) {\n"
  "  y[get_global_id(1) * get_global_size(0) + get_global_id(0)] *= 2.0f;\n"
  "}\n";
int main(int argc, char **argv) {
  enum { N = 4096 };
  cl_platform_id pf; cl_device_id dev; cl_int err;
  cl_device_type want = argc > 1 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;  /* gpu, ctx */
  cl_context ctx;
  if (clGetPlatformIDs(1, &pf, NULL)) return 2;
  if (argc > 1 && argv[1][0] == 'c') {  /* the context by device type, as Rodinia makes it */
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)pf, 0};
    cl_uint nd = 0;
    ctx = clCreateContextFromType(props, want, NULL, NULL, &err);
    if (!ctx || clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, NULL) || !nd)
      return 2;
    clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL);
  } else {
    if (clGetDeviceIDs(pf, want, 1, &dev, NULL)) return 2;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  }
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);  /* no profiling asked */
  cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  if (clBuildProgram(p, 1, &dev, "-DOFFSET=1.0f -cl-mad-enable", NULL, NULL)) return 3;
  cl_kernel k = clCreateKernel(p, "scale", &err), k2 = clCreateKernel(p, "twice", &err);
  float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) x[i] = (float)i;
  cl_mem bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY, N * sizeof(float), NULL, &err);
  cl_mem by = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
  clEnqueueWriteBuffer(q, bx, CL_TRUE, 0, N * sizeof(float), x, 0, NULL, NULL);
  float a = 3.0f; int n = N;
  clSetKernelArg(k, 0, sizeof(cl_mem), &bx);
  clSetKernelArg(k, 1, sizeof(cl_mem), &by);
  clSetKernelArg(k, 2, sizeof(float), &a);
  clSetKernelArg(k, 3, 64 * sizeof(float), NULL);
  clSetKernelArg(k, 4, sizeof(int), &n);
  size_t g = N, l = 64;
  cl_event mine;
  if (clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &mine)) return 4;
  clWaitForEvents(1, &mine);
  clReleaseEvent(mine);  /* the host's own event, released by the host */
  clSetKernelArg(k2, 0, sizeof(cl_mem), &by);
  size_t g2[2] = {N / 2, 2};
  clEnqueueNDRangeKernel(q, k2, 2, NULL, g2, NULL, 0, NULL, NULL);
  clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof(float), y, 0, NULL, NULL);
  clFinish(q);
  for (int i = 0; i < N; i++)
    if (y[i] != 2.0f * (3.0f * i + 1.0f)) { printf("wrong y[%d]=%f\n", i, y[i]); return 5; }
  printf("ok\n");
  return 0;
}
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require("gcc", shutil.which("gcc") is not None)
    require("the OpenCL ICD loader and headers", Path("/usr/include/CL/cl.h").exists())
    d = tmp_path_factory.mktemp("host")
    d.chmod(0o755)  # run as root, the sandboxed program runs as a uid of its own
    (d / "host.c").write_text(HOST)
    res = subprocess.run(["gcc", "-O1", "-o", str(d / "host"), str(d / "host.c"), "-lOpenCL"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    return d


def test_trace_records_launches_transfers_source_and_options(host: Path,
                                                             tmp_path: Path) -> None:
    from ridgeline.opencl.trace import run_traced

    outcome, t = run_traced(["./host"], cwd=host, work=tmp_path / "w", seconds=120)
    assert outcome.returncode == 0 and "ok" in outcome.stdout, outcome.stderr[-2000:]
    assert t.bad_lines == 0
    (pid, src), = t.sources.items()
    assert "__kernel void scale" in src and "__kernel void twice" in src
    assert t.build_options[pid] == "-DOFFSET=1.0f -cl-mad-enable"
    scale, twice = t.launches
    assert scale["kernel"] == "scale" and scale["program"] == pid
    assert scale["global"] == [4096] and scale["local"] == [64] and scale["dim"] == 1
    kinds = [(a["kind"], a["bytes"]) for a in scale["args"]]
    assert kinds == [("buffer", 16384), ("buffer", 16384), ("scalar", 4), ("local", 256),
                     ("scalar", 4)]
    assert scale["args"][2]["hex"] == struct.pack("<f", 3.0).hex()
    assert scale["args"][4]["hex"] == struct.pack("<i", 4096).hex()
    assert twice["kernel"] == "twice" and twice["global"] == [2048, 2] and twice["local"] is None
    for r in (scale, twice):  # device times from the forced profiling
        assert 0 < r["queued"] <= r["submit"] <= r["start"] < r["end"]
    assert t.kernel_ns() == [float(scale["end"] - scale["start"]),
                             float(twice["end"] - twice["start"])]
    ops = [(r["op"], r["bytes"], r["blocking"]) for r in t.transfers]
    assert ops == [("write", 16384, 1), ("read", 16384, 1)]
    assert all(r["end"] >= r["start"] > 0 for r in t.transfers)
    seqs = [r["seq"] for r in (t.transfers[0], scale, twice, t.transfers[1])]
    assert seqs == sorted(seqs)  # one issue order over launches and transfers
    assert t.fallbacks == []


@pytest.mark.parametrize(("how", "call"), [("gpu", "clGetDeviceIDs"),
                                           ("ctx", "clCreateContextFromType")])
def test_a_program_asking_for_a_gpu_gets_the_cpu_device_only_when_allowed(
        host: Path, tmp_path: Path, how: str, call: str) -> None:
    from ridgeline.opencl.trace import run_traced

    no, t = run_traced(["./host", how], cwd=host, work=tmp_path / "a", seconds=120)
    assert no.returncode == 2 and t.launches == []  # PoCL has no GPU device
    yes, t = run_traced(["./host", how], cwd=host, work=tmp_path / "b", seconds=120,
                        env={"RL_CLTRACE_ANY_DEVICE": "1"})
    assert yes.returncode == 0 and "ok" in yes.stdout, yes.stderr[-2000:]
    assert [(r["call"], r["asked"]) for r in t.fallbacks] == [(call, 4)]  # a GPU
    assert [r["kernel"] for r in t.launches] == ["scale", "twice"]


def test_trace_of_a_program_cut_by_its_time_limit_keeps_complete_lines(tmp_path: Path) -> None:
    from ridgeline.opencl.trace import read_trace

    f = tmp_path / "t.jsonl"
    good = {"ev": "launch", "seq": 0, "kernel": "k", "start": 1, "end": 5}
    f.write_text(json.dumps(good) + "\n" + '{"ev":"launch","seq":1,"kern')
    t = read_trace(f)
    assert t.bad_lines == 1 and t.kernel_ns() == [4.0]
