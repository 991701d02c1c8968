"""Counts of recorded launches at their real arguments, under the real Oclgrind: a loop over
a size scalar counted exactly when every work-group runs and when two of them stand for the
rest; scalars given as recorded bytes or as values reach the count; bad rows get clear
errors; the counted time model and regress-batch on real PoCL peaks."""

from __future__ import annotations

import json
import struct

import pytest

from ridgeline.errors import LaunchError, SchemaError
from ridgeline.opencl.launchargs import RecordedLaunch, default_local, resolve_type
from ridgeline.opencl.launchcount import count_launch, counting_local
from ridgeline.profiles.oclgrind import oclgrind_available
from tests.conftest import require

# typedef'd element type (Oclgrind cannot fill it by its declared name) and a loop whose
# trip count is the scalar n: per work-item n FMAs (2 FLOPs each) and one store
LOOP = """
typedef float real;
__kernel void loop(__global real *a, __global real *out, real alpha, int n) {
  int i = get_global_id(0);
  real s = 0;
  for (int k = 0; k < n; k++) s = fma(alpha, a[k], s);
  out[i] = s;
}
"""
# refers to its work-group: counted in its own groups
GROUPED = """
__kernel void grouped(__global float *out, int n) {
  float s = 0;
  for (int k = 0; k < n; k++) s += (float)k;
  out[get_global_id(0)] = s + get_local_id(0);
}
"""


def _hex(fmt: str, v: float) -> str:
    return struct.pack("<" + fmt, v).hex()


def _launch(n: int, items: int = 4096, local: int = 64, src: str = LOOP, kernel: str = "loop",
            scalar_as_value: bool = False) -> RecordedLaunch:
    nrec = {"kind": "scalar", "value": n} if scalar_as_value else {
        "kind": "scalar", "bytes": 4, "hex": _hex("i", n)}
    if kernel == "loop":
        args = [{"kind": "buffer", "bytes": 4 * max(n, 1)}, {"kind": "buffer", "bytes": 4 * items},
                {"kind": "scalar", "bytes": 4, "hex": _hex("f", 1.5)}, nrec]
    else:
        args = [{"kind": "buffer", "bytes": 4 * items}, nrec]
    return RecordedLaunch.from_json(src, kernel, str(items), str(local), json.dumps(args))


@pytest.fixture(autouse=True)
def _oclgrind(tmp_path, monkeypatch):
    require("Oclgrind with its plugin headers", oclgrind_available())
    monkeypatch.setenv("RIDGELINE_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("n", [7, 300])
def test_scalar_loop_bound_reaches_the_count_exactly_and_sampled(n):
    items = 4096
    exact = count_launch(_launch(n, items), sample_above=None, cache=False).counts
    assert exact.flops_sp == 2 * n * items
    assert not exact.sampled and exact.groups_total == items // 64
    lc = count_launch(_launch(n, items), cache=False)
    c = lc.counts
    # the kernel never refers to its work-group: counted in groups of 32, two of them
    assert c.sampled and c.groups_run == 2 and c.groups_total == items // 32
    assert c.flops_sp == exact.flops_sp
    assert c.global_store_bytes == exact.global_store_bytes == 4 * items
    assert c.local_size == (64, 1, 1)  # the launch's own groups, for the time model
    assert "sampled: 2 of 128" in lc.note and "groups of 32" in lc.note


def test_group_dependent_kernel_keeps_its_groups_and_scales():
    launch = _launch(50, 2048, 128, GROUPED, "grouped")
    assert counting_local(launch) == ((128,), "")
    lc = count_launch(launch, cache=False)
    assert lc.counts.groups_run == 2 and lc.counts.groups_total == 16
    exact = count_launch(launch, sample_above=None, cache=False).counts
    assert lc.counts.flops_sp == exact.flops_sp == 2048 * (50 + 1)


def test_scalar_as_value_and_cache():
    a = count_launch(_launch(40, scalar_as_value=True))
    assert a.counts.flops_sp == 2 * 40 * 4096 and not a.cached
    b = count_launch(_launch(40, scalar_as_value=True))
    assert b.cached and b.counts.flops_sp == a.counts.flops_sp


def test_bad_rows_get_clear_errors():
    with pytest.raises(LaunchError, match="global_dims 'abc'"):
        RecordedLaunch.from_json(LOOP, "loop", "abc", "", "[]")
    with pytest.raises(LaunchError, match="dimensions"):
        RecordedLaunch.from_json(LOOP, "loop", "64,64", "8", "[]")
    with pytest.raises(SchemaError, match="not JSON"):
        RecordedLaunch.from_json(LOOP, "loop", "64", "8", "[{")
    few = RecordedLaunch.from_json(LOOP, "loop", "64", "8", json.dumps([{"kind": "buffer",
                                                                         "bytes": 4}]))
    with pytest.raises(SchemaError, match="records 1 arguments; kernel 'loop' takes 4"):
        count_launch(few, cache=False)
    bad = _launch(5)
    args = list(bad.args)
    args[3] = {"kind": "scalar", "bytes": 2, "hex": "0500"}
    with pytest.raises(SchemaError, match=r"argument 3 \(n\): 2 bytes recorded"):
        count_launch(RecordedLaunch(LOOP, "loop", (64,), (8,), tuple(args)), cache=False)
    args[3] = {"kind": "image", "bytes": 64}
    with pytest.raises(SchemaError, match="is an image"):
        count_launch(RecordedLaunch(LOOP, "loop", (64,), (8,), tuple(args)), cache=False)


def test_types_and_default_local():
    assert resolve_type("real", LOOP) == "float"
    assert resolve_type("FPTYPE4", "", "-DFPTYPE4=double4") == "double"
    assert resolve_type("struct point", "") is None
    assert default_local((1000, 6)) == (8, 2)


def test_counted_model_and_regress_batch_on_pocl(tmp_path):
    import pandas as pd

    from ridgeline.opencl import list_devices
    from ridgeline.opencl.counted_model import CountedTimeModel
    from ridgeline.workflows.regressors import load_regressor, predict_batch

    require("PoCL", any("portable" in d.platform.lower() for d in list_devices()))
    model = load_regressor("counted")
    assert isinstance(model, CountedTimeModel) and model.peaks_.fp32_flops > 0
    assert model.peaks_.source["bench"]
    short, long_ = (json.dumps([dict(a) for a in _launch(n).args]) for n in (10, 1000))
    rows = pd.DataFrame([
        {"src": LOOP, "kernel": "loop", "wgsize": "64", "transfer": "32768", "dataset": "4096",
         "global_dims": "4096", "local_dims": "64", "args": short},
        {"src": LOOP, "kernel": "loop", "wgsize": "64", "transfer": "32768", "dataset": "4096",
         "global_dims": "4096", "local_dims": "64", "args": long_},
        {"src": LOOP, "kernel": "loop", "wgsize": "64", "transfer": "0", "dataset": "4096",
         "global_dims": "4096", "local_dims": "64", "args": "[1, 2]"},
        {"src": "__kernel void k(", "kernel": "", "wgsize": "64", "transfer": "0",
         "dataset": "64", "global_dims": "", "local_dims": "", "args": ""}])
    out = predict_batch(model, rows)
    assert list(out["error"][:2]) == ["", ""]
    assert "must be a JSON list of objects" in out["error"][2]
    assert out["error"][3] == "SourceError: no __kernel function found in the source"
    t_short, t_long = (float(v) for v in out["pred_runtime_ms"][:2])
    assert t_long > 20 * t_short  # 100x the loop: the bound follows the scalar
    assert float(out["pred_transfer_ms"][0]) > 0
    assert out["includes"][0].startswith("kernel only")


def test_long_work_items_fall_back_to_single_work_item_groups(monkeypatch):
    from ridgeline.opencl import launchcount

    monkeypatch.setattr(launchcount, "FIRST_TRY", 0.001)  # groups of 32 cannot finish in time
    lc = count_launch(_launch(300, 4096), cache=False)
    assert "work-groups of 1 " in lc.note
    assert lc.counts.groups_run == 2 and lc.counts.groups_total == 4096
    assert lc.counts.flops_sp == 2 * 300 * 4096


def test_a_launch_that_did_not_finish_is_said_at_once_until_given_more_time():
    from ridgeline.errors import ExecutionError

    launch = _launch(20, 1024, src=GROUPED, kernel="grouped")
    with pytest.raises(ExecutionError, match="did not finish under Oclgrind within 0.001 s"):
        count_launch(launch, timeout=0.001)
    with pytest.raises(ExecutionError, match="within 0.001 s"):
        count_launch(launch, timeout=0.001)  # from the cache
    assert count_launch(launch, timeout=60).counts.flops_sp == 1024 * 21


def test_a_buffer_short_of_a_whole_element_is_rounded_up():
    from ridgeline.opencl.launchargs import oclgrind_args

    launch = RecordedLaunch.from_json(
        LOOP.replace("typedef float real", "typedef double real"), "loop", "64", "8",
        json.dumps([{"kind": "buffer", "bytes": 20}, {"kind": "buffer", "bytes": 512},
                    {"kind": "scalar", "bytes": 8, "hex": _hex("d", 1.0)},
                    {"kind": "scalar", "bytes": 4, "hex": _hex("i", 2)}]))
    args, _ = oclgrind_args(launch)
    assert args[0].nbytes == 24 and args[0].sim_type == "double"
    assert count_launch(launch, cache=False).counts.flops_dp == 2 * 2 * 64
