"""The learned count model: fit on the shipped derived table, numpy export, shipped model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ridgeline.errors import NotFittedError, SchemaError, UsageError
from ridgeline.hardware import Counts, get_gpu, get_rule
from ridgeline.learning.columns import FEATURES, TARGETS, features_frame
from ridgeline.learning.confidence import CONFIDENCE, class_confidence, ridge_margin
from ridgeline.learning.counted_columns import COUNTED_COLUMNS
from ridgeline.learning.featvec import LAUNCH_COLUMNS
from ridgeline.learning.model import CountModel, ExportedCountModel, _offset, use_slow_bound
from ridgeline.learning.shipped import TABLE_FILE, shipped_model
from ridgeline.learning.training import with_gpu_features
from ridgeline.predictors.learned import LearnedPredictor


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    from importlib import resources

    with resources.files("ridgeline").joinpath("models", TABLE_FILE).open("rb") as fh:
        t = pd.read_parquet(fh)
    t = t[(t["dataset"] == "hecbench") & (t["error"].fillna("") == "")]
    return with_gpu_features(t.head(600)).assign(**{c: t.head(600)[c].to_numpy()
                                                    for c in TARGETS})


def test_fit_predict_and_numpy_export_agree(table: pd.DataFrame) -> None:
    m = CountModel(max_iter=30).fit(table[FEATURES], table[TARGETS])
    direct = m.predict(table)
    exported = ExportedCountModel.from_bytes(m.export().to_bytes()).predict(table)
    np.testing.assert_allclose(direct.to_numpy(), exported.to_numpy(), rtol=1e-9)
    # it learned something: log error on its training rows is below a decade for bytes
    err = np.abs(np.log10(1 + direct["dram_bytes"]) - np.log10(1 + table["dram_bytes"]))
    assert float(np.median(err)) < 1.0


def test_bagged_members_are_averaged(table: pd.DataFrame) -> None:
    from ridgeline.learning.trees import average_ensembles, export_hgb

    m = CountModel(max_iter=20, bags=3).fit(table[FEATURES], table[TARGETS])
    members = m.models_["dram_bytes"]
    assert len(members) == 3
    Xn = table[FEATURES].to_numpy(float)
    each = [e.predict(Xn) for e in members]
    assert not np.allclose(each[0], each[1])  # each saw its own share of the rows
    # the exported model is one ensemble of all their trees, predicting their mean
    avg = average_ensembles([export_hgb(e) for e in members])
    np.testing.assert_allclose(avg.predict(Xn), np.mean(each, axis=0), rtol=1e-9, atol=1e-12)
    assert len(avg.roots) == sum(len(export_hgb(e).roots) for e in members)
    one = CountModel(max_iter=20, bags=1).fit(table[FEATURES], table[TARGETS])
    assert len(one.models_["dram_bytes"]) == 1
    for bad in ({"bags": 0}, {"bag_share": 0.0}, {"bag_share": 1.5}):
        with pytest.raises(UsageError, match="bags must be 1 or more"):
            CountModel(**bad)  # type: ignore[arg-type]


def test_time_is_fitted_at_its_quantile_and_the_counts_at_the_median(
        table: pd.DataFrame) -> None:
    low = CountModel(max_iter=40, bags=1, time_quantile=0.2).fit(table[FEATURES],
                                                                 table[TARGETS])
    high = CountModel(max_iter=40, bags=1, time_quantile=0.8).fit(table[FEATURES],
                                                                  table[TARGETS])
    # on its own training rows each lands near its quantile: about 20% (80%) of the
    # measured times lie below the predictions
    t, Xn = table["time_ns"].to_numpy(float), table[FEATURES].to_numpy(float)
    below = {q: float(np.mean(t < 10.0 ** (m.models_["time_ns"][0].predict(Xn)
                                           + _offset(table, "time_ns")) - 1.0))
             for q, m in ((0.2, low), (0.8, high))}
    assert below[0.2] < 0.35 and below[0.8] > 0.65
    a, b = low.predict(table), high.predict(table)
    counts = [c for c in TARGETS if c != "time_ns"]
    np.testing.assert_array_equal(a[counts].to_numpy(), b[counts].to_numpy())
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(UsageError, match="time_quantile must be in"):
            CountModel(time_quantile=bad)


def test_the_time_range_comes_from_held_out_programs_and_ships_with_the_model(
        table: pd.DataFrame) -> None:
    from ridgeline.learning.model import TIME_RANGE, _with_time_range

    groups = table["program"].to_numpy()
    m = CountModel(max_iter=30, bags=2).fit(table[FEATURES], table[TARGETS], groups=groups)
    r = m.time_range_
    assert r is not None and r.shape == (2, 2)
    assert (r[:, 0] <= 0).all() and (r[:, 1] >= 0).all() and (r[:, 1] - r[:, 0] > 0.05).all()
    p = m.predict(table)
    assert (p["time_lo_ns"] <= p["time_ns"]).all() and (p["time_ns"] <= p["time_hi_ns"]).all()
    # the factors are quantiles of errors on programs left out, so the range is wider than
    # one fitted on the programs' own rows would need: at least its share of training rows
    t = table["time_ns"].to_numpy(float)
    inside = np.mean((t >= p["time_lo_ns"]) & (t <= p["time_hi_ns"]))
    assert inside >= TIME_RANGE - 0.05
    again = ExportedCountModel.from_bytes(m.export().to_bytes())
    np.testing.assert_array_equal(again.time_range, r)
    np.testing.assert_allclose(again.predict(table)[["time_lo_ns", "time_hi_ns"]].to_numpy(),
                               p[["time_lo_ns", "time_hi_ns"]].to_numpy(), rtol=1e-9)
    # without programs to hold out there is no range, and it says so with NaN
    plain = CountModel(max_iter=30, bags=1).fit(table[FEATURES], table[TARGETS])
    assert plain.time_range_ is None and plain.predict(table)["time_lo_ns"].isna().all()
    one = CountModel(max_iter=30, bags=1).fit(table[FEATURES], table[TARGETS],
                                              groups=np.zeros(len(table)))
    assert one.time_range_ is None
    # rows with CPU counts take the first pair of factors, the others the second
    x = pd.DataFrame({"c_has": [1.0, np.nan]})
    got = _with_time_range(x, pd.DataFrame({"time_ns": [100.0, 100.0]}),
                           np.array([[-1.0, 1.0], [-2.0, 0.5]]))
    np.testing.assert_allclose(got["time_lo_ns"], [10.0, 1.0])
    np.testing.assert_allclose(got["time_hi_ns"], [1000.0, 100.0 * 10 ** 0.5])
    with pytest.raises(SchemaError, match="groups for"):
        CountModel().fit(table[FEATURES], table[TARGETS], groups=groups[:5])


def test_the_count_models_never_see_the_time_only_columns(table: pd.DataFrame) -> None:
    # the longest thread and the warps' issue factor change the time model only: with them
    # scrambled the counts are predicted to the last bit as before, the time is not
    from ridgeline.learning.columns import TIME_ONLY_COLUMNS

    assert set(TIME_ONLY_COLUMNS) <= set(FEATURES)
    rng = np.random.default_rng(0)
    other = table.copy()
    for c in TIME_ONLY_COLUMNS:
        other[c] = rng.uniform(0.0, 8.0, len(other))
    a = CountModel(max_iter=20, bags=2).fit(table[FEATURES], table[TARGETS]).predict(other)
    b = CountModel(max_iter=20, bags=2).fit(other[FEATURES], other[TARGETS]).predict(other)
    counts = [t for t in TARGETS if t != "time_ns"]
    np.testing.assert_array_equal(a[counts].to_numpy(), b[counts].to_numpy())
    assert not np.allclose(a["time_ns"], b["time_ns"])


def test_extra_features_reach_the_trees_and_keep_the_model_out_of_the_shipped_format(
        table: pd.DataFrame) -> None:
    # a column the trees see besides FEATURES: here one that knows, to within a few percent,
    # how far each row's time lies above the time model's offset, so on programs it did not
    # see, time fitted with it lands far closer
    rng = np.random.default_rng(1)
    t = table["time_ns"].to_numpy(float)
    above = np.log10(1.0 + t) - _offset(table, "time_ns")
    x = table.assign(oracle=above + rng.normal(0.0, 0.01, len(t)))
    progs = x["program"].unique()
    train = x["program"].isin(progs[::2]).to_numpy()
    plain = CountModel(max_iter=60, bags=1).fit(x[FEATURES][train], x[TARGETS][train])
    told = CountModel(max_iter=60, bags=1, extra_features=("oracle",))
    assert told.features == FEATURES + ["oracle"] and plain.features == FEATURES
    told.fit(x[told.features][train], x[TARGETS][train])

    def median_err(m: CountModel) -> float:
        return float(np.median(np.abs(np.log10(m.predict(x[~train])["time_ns"] / t[~train]))))

    assert median_err(told) < 0.5 * median_err(plain)
    with pytest.raises(SchemaError, match="oracle"):
        told.fit(table[FEATURES], table[TARGETS])
    # the shipped format holds FEATURES only: such a model is refused on load
    with pytest.raises(SchemaError, match="does not match this ridgeline version"):
        ExportedCountModel.from_bytes(told.export().to_bytes())


def test_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        CountModel().predict(pd.DataFrame(columns=FEATURES))


def test_shipped_model_predicts_for_an_uncataloged_style_gpu(table: pd.DataFrame) -> None:
    model = shipped_model()
    assert isinstance(model, ExportedCountModel)  # loads without scikit-learn
    rows = table.head(5)[[c for c in table.columns if c.startswith(("a_", "t_"))] +
                         ["loops", "unknown_loops", "max_depth", "static_fp_sp", "static_fp_dp",
                          "static_accesses", "n_bound", "is_omp", "grid_x", "grid_y", "grid_z",
                          "block_x", "block_y", "block_z", "n_args", "args_max", "args_sum",
                          "args_prod"]]
    a = model.predict(features_frame(rows, [get_gpu("mi300x")] * 5))
    b = model.predict(features_frame(rows, [get_gpu("gtx970")] * 5))
    assert (a["time_ns"] > 0).all() and not np.allclose(a["time_ns"], b["time_ns"])


def test_single_row_path_matches_vectorised(table: pd.DataFrame) -> None:
    ens = shipped_model().ensembles["dram_bytes"]  # type: ignore[union-attr]
    X = table[FEATURES].to_numpy(float)[:40]
    X[::3, 2] = np.nan
    many = ens.predict(X)  # vectorised (> 16 rows)
    one = np.array([ens.predict(X[i:i + 1])[0] for i in range(len(X))])
    np.testing.assert_allclose(many, one, rtol=1e-12)


def test_counted_openmp_rows_get_the_gpu_runtime_integer_work() -> None:
    # counted launches of 1e6 integer ops over 4096 x 128 GPU threads: an OpenMP one with a
    # worksharing loop (or not known to lack one) gains OMP_DEVICE_INT_PER_THREAD per launched
    # thread, one without gains OMP_DEVICE_INT_PER_THREAD_NO_LOOP, the CUDA one keeps its
    # count; uncounted rows stay NaN
    from ridgeline.counting.omp import (
        OMP_DEVICE_INT_PER_THREAD,
        OMP_DEVICE_INT_PER_THREAD_NO_LOOP,
    )
    from ridgeline.learning.counted_columns import COUNTED_COLUMNS
    from ridgeline.learning.featvec import LAUNCH_COLUMNS

    threads = 4096 * 128
    nan = float("nan")
    rows = pd.DataFrame([{c: 0.0 for c in LAUNCH_COLUMNS + COUNTED_COLUMNS} for _ in range(5)])
    rows["a_launched"] = np.log10(1 + threads)
    rows["is_omp"] = [1.0, 0.0, 1.0, 1.0, 1.0]
    rows["c_has"] = [1.0, 1.0, nan, 1.0, 1.0]
    rows["c_omp_loop"] = [1.0, nan, nan, 0.0, nan]
    rows["c_int"] = [np.log10(1 + 1e6)] * 2 + [nan] + [np.log10(1 + 1e6)] * 2
    rows["c_dram"] = np.log10(1 + 1e5)
    rows["c_ai_int"] = rows["c_int"] - rows["c_dram"]
    f = features_frame(rows, [get_gpu("a100")] * 5)
    ints = 10 ** f["c_int"].to_numpy(float) - 1
    assert ints[0] == pytest.approx(1e6 + OMP_DEVICE_INT_PER_THREAD * threads, rel=1e-9)
    assert ints[1] == pytest.approx(1e6, rel=1e-9)
    assert np.isnan(f["c_int"].iloc[2])
    assert ints[3] == pytest.approx(1e6 + OMP_DEVICE_INT_PER_THREAD_NO_LOOP * threads,
                                    rel=1e-9)
    assert ints[4] == pytest.approx(ints[0], rel=1e-9)
    assert OMP_DEVICE_INT_PER_THREAD_NO_LOOP < OMP_DEVICE_INT_PER_THREAD
    assert f["c_ai_int"].iloc[0] == pytest.approx(f["c_int"].iloc[0] - f["c_dram"].iloc[0])


def test_latency_bound_exceeds_the_roofline_for_a_launch_too_small_to_hide_latency() -> None:
    # 1e9 integer ops: over one block of 256 threads every thread issues ~4e6 dependent
    # instructions at a fraction of a scheduler's rate; over 2^20 threads the same work fills
    # the GPU and the latency bound falls to the issue-rate time, under the roofline bound
    from ridgeline.learning.columns import ISSUE_LATENCY_CYCLES
    from ridgeline.learning.counted_columns import COUNTED_COLUMNS
    from ridgeline.learning.featvec import LAUNCH_COLUMNS

    rows = pd.DataFrame([{c: 0.0 for c in LAUNCH_COLUMNS + COUNTED_COLUMNS} for _ in range(3)])
    rows["a_launched"] = np.log10(1 + np.array([256.0, 2.0 ** 20, 256.0]))
    rows["c_has"] = [1.0, 1.0, float("nan")]
    rows["c_int"] = np.log10(1 + 1e9)
    rows["c_dram"] = np.log10(1 + 1e6)
    g = get_gpu("a100")
    f = features_frame(rows, [g] * 3)
    # one block: 8 warps on 108 x 4 schedulers -> each active scheduler needs 8 cycles per
    # instruction; per warp 1e9 / 256 instructions
    small = 1e9 / 256 * ISSUE_LATENCY_CYCLES / (g.boost_clock_mhz * 1e6) * 1e9
    assert 10 ** f["lat_t_issue"].iloc[0] == pytest.approx(small, rel=1e-3)
    assert f["time_bound_ns"].iloc[0] == pytest.approx(f["lat_t_ns"].iloc[0])
    assert f["time_bound_ns"].iloc[0] > f["roof_t_ns"].iloc[0] + 2
    full = 1e9 / 32 / (g.sm_count * 4 * g.boost_clock_mhz * 1e6) * 1e9
    assert 10 ** f["lat_t_issue"].iloc[1] == pytest.approx(full, rel=1e-3)
    assert f["time_bound_ns"].iloc[1] == pytest.approx(f["roof_t_ns"].iloc[1])
    # no counts: no latency bound, the roofline bound stands
    assert np.isnan(f["lat_t_ns"].iloc[2])
    assert f["time_bound_ns"].iloc[2] == pytest.approx(f["roof_t_ns"].iloc[2], nan_ok=True)
    # the time model also sees each bound as its distance above the roofline bound
    assert f["lat_t_issue_over_roof"].iloc[0] == pytest.approx(
        f["lat_t_issue"].iloc[0] - f["roof_t_ns"].iloc[0])
    assert f["time_bound_ns_over_roof"].iloc[0] > 2
    assert f["gc_t_int_over_roof"].iloc[1] <= 0.0  # a part of the roofline bound, not above
    assert np.isnan(f["lat_t_issue_over_roof"].iloc[2])


def test_atomics_on_one_address_bound_a_counted_launchs_time() -> None:
    # rfs's sum: 5e6 float atomics into one address, a few MB of DRAM, 11-17 ms measured;
    # the roofline bound is microseconds, the atomics one after another take milliseconds.
    # The same number of integer atomics on one counter go 32 (a warp's) at a time. Without
    # such atomics (0), with the count unknown (NaN) or without counts, the roofline bound
    # stands
    from ridgeline.learning.columns import ATOMIC_FP_CYCLES, ATOMIC_INT_WARP_CYCLES
    from ridgeline.learning.counted_columns import COUNTED_COLUMNS
    from ridgeline.learning.featvec import LAUNCH_COLUMNS

    rows = pd.DataFrame([{c: 0.0 for c in LAUNCH_COLUMNS + COUNTED_COLUMNS} for _ in range(5)])
    rows["a_launched"] = np.log10(1 + 65536.0)
    rows["c_has"] = [1.0, 1.0, 1.0, 1.0, float("nan")]
    rows["c_sp"] = np.log10(1 + 1e7)
    rows["c_dram"] = np.log10(1 + 2e7)
    many = np.log10(1 + 5e6)
    rows["c_atom_hot_fp"] = [many, 0.0, float("nan"), 0.0, many]
    rows["c_atom_hot"] = [0.0, 0.0, float("nan"), many, many]
    g = get_gpu("a100")
    f = features_frame(rows, [g] * 5)
    clock = g.boost_clock_mhz * 1e6
    serial = 5e6 * ATOMIC_FP_CYCLES / clock * 1e9
    assert 10 ** f["roof_t_ns"].iloc[0] == pytest.approx(serial, rel=1e-6)
    assert 1e7 < serial < 3e7  # the measured 11-17 ms
    roof = 2e7 / (g.dram_bandwidth_gbps * 1e9) * 1e9
    for i in (1, 2):
        assert 10 ** f["roof_t_ns"].iloc[i] == pytest.approx(roof, rel=1e-3)
    warps = 5e6 / 32 * ATOMIC_INT_WARP_CYCLES / clock * 1e9
    assert 10 ** f["roof_t_ns"].iloc[3] == pytest.approx(max(warps, roof), rel=1e-3)
    assert warps < serial / 10
    # a row without counts (c_has NaN): its bound is the analysed roofline alone
    assert 10 ** f["roof_t_ns"].iloc[4] < serial / 100


def test_counted_rows_also_train_the_uncounted_case(table: pd.DataFrame) -> None:
    # each counted row gets a copy as an uncounted row would look: counted and latency
    # columns NaN, the time bound from the analysed counts alone; the same targets
    from ridgeline.learning.columns import with_uncounted_copies
    from ridgeline.learning.counted_columns import COUNTED_COLUMNS

    has = table["c_has"].to_numpy(float) == 1.0
    assert 0 < has.sum() < len(table)
    X, Y = with_uncounted_copies(table[FEATURES], table[TARGETS])
    assert len(X) == len(Y) == len(table) + has.sum()
    copies = X.iloc[len(table):]
    assert copies[COUNTED_COLUMNS + ["lat_t_ns"]].isna().all().all()
    plain = table[~has]  # rows that really have no counts: the same rule for the bound
    assert np.allclose(plain["time_bound_ns"], plain["roof_t_ns"], equal_nan=True)
    assert np.allclose(copies["time_bound_ns"], copies["roof_t_ns"], equal_nan=True)
    np.testing.assert_array_equal(Y.iloc[len(table):].to_numpy(), table[TARGETS][has])
    # the time model is fitted on the rows as they are: with or without the copies, the same
    a = CountModel(max_iter=20).fit(table[FEATURES], table[TARGETS])
    b = CountModel(max_iter=20, augment_uncounted=False).fit(table[FEATURES], table[TARGETS])
    x = table[FEATURES].head(50)
    np.testing.assert_allclose(a.predict(x)["time_ns"], b.predict(x)["time_ns"])


def test_counted_time_scales_with_its_roofline_bound(table: pd.DataFrame) -> None:
    # rows with CPU counts learn time over their whole roofline bound: a kernel that runs a
    # constant factor above its bound is predicted so even where the bound leaves the range
    # the trees were fitted on (half the bound as offset gave a tenth of the time here). The
    # model is fitted on the counted rows alone: rows without counts, in the same leaves,
    # would pull the learned factor of the shifted rows by as much as the data happen to
    counted = table[(table["c_has"] == 1.0) & np.isfinite(table["roof_t_ns"])]
    assert len(counted) > 100
    y = counted[TARGETS].assign(time_ns=3.0 * 10.0 ** counted["roof_t_ns"])
    m = CountModel(max_iter=30, bags=1).fit(counted[FEATURES], y)
    rows = counted.head(20)
    longer = rows.assign(roof_t_ns=rows["roof_t_ns"] + 2.0)
    # 100x the time for the same counts passes their slow bound, which would bring it down:
    # what is checked here is the time model itself
    use_slow_bound(False)
    try:
        ratio = m.predict(longer)["time_ns"].to_numpy() / m.predict(rows)["time_ns"].to_numpy()
    finally:
        use_slow_bound(True)
    np.testing.assert_allclose(ratio, 100.0, rtol=0.01)
    assert (m.predict(longer)["time_capped"] == 1.0).any()
    np.testing.assert_allclose(m.predict(rows)["time_ns"].to_numpy(),
                               3.0 * 10.0 ** rows["roof_t_ns"].to_numpy(), rtol=0.05)


def test_no_time_is_below_the_roofline_of_its_own_counts(table: pd.DataFrame) -> None:
    # time and counts come from separate models; a kernel is never predicted to move its
    # bytes or run its operations faster than the GPU's peaks allow
    m = CountModel(max_iter=30, bags=1).fit(table[FEATURES], table[TARGETS])
    for gpu in ("rtx3080", "mi300x"):
        # the launch and counted columns, with the GPU's derived from them again
        keep = [c for c in table.columns
                if c not in FEATURES or c in LAUNCH_COLUMNS + COUNTED_COLUMNS]
        rows = with_gpu_features(table.assign(gpu=get_gpu(gpu).name)[keep])
        for model in (m, ExportedCountModel.from_bytes(m.export().to_bytes())):
            p = model.predict(rows)
            with np.errstate(divide="ignore"):
                seconds = np.max([np.log10(p[t].to_numpy()) - rows[g].to_numpy()
                                  for t, g in (("dram_bytes", "g_bw"), ("flops_sp", "g_sp"),
                                               ("flops_dp", "g_dp"), ("int_ops", "g_int"))],
                                 axis=0)
            assert (p["time_ns"].to_numpy() >= 10.0 ** (seconds + 9.0) * (1 - 1e-9)).all()


def test_confidence_grows_with_the_distance_from_the_ridge_and_trusts_counts_more() -> None:
    # counts from CPU execution miss their ridge side less often than learned ones, so the
    # same distance from the ridge states a higher confidence for them
    gpu = get_gpu("a100")
    ridge = get_rule("paper-a").ridges(gpu)["int"]
    seen = {}
    for origin in (True, False):
        confs = []
        for factor in (1.05, 1.5, 3.0, 30.0):  # integer intensity over the ridge
            c = Counts(0.0, 0.0, 0.0, factor * ridge * 1e6, 1e6)
            assert ridge_margin(c, gpu) == pytest.approx(np.log10(factor))
            confs.append(class_confidence(c, gpu, counted=origin))
            # below the ridge by the same factor: the same distance, the same confidence
            below = Counts(0.0, 0.0, 0.0, ridge * 1e6 / factor, 1e6)
            assert class_confidence(below, gpu, counted=origin) == pytest.approx(confs[-1])
        assert all(0.5 < c < 1.0 for c in confs) and confs == sorted(confs)
        seen[origin] = confs
    assert all(a > b for a, b in zip(seen[True], seen[False], strict=True))
    assert seen[True][-1] > 0.99


def test_predict_states_the_confidence_of_its_own_origin() -> None:
    from ridgeline.cli.predict import sample_dir
    from ridgeline.launch import KernelRef, Launch

    # the sample saxpy without CPU-execution counts: the learned origin's logistic at the
    # margin of its own predicted counts
    srcs = tuple(sorted(sample_dir("saxpy").glob("*.cu")))
    gpu = get_gpu("rtx3080")
    pred = LearnedPredictor().predict(KernelRef("saxpy", srcs), Launch(args="16777216 10"), gpu)
    m = ridge_margin(pred.counts, gpu)
    assert m is not None
    a, b = CONFIDENCE["learned"]
    assert pred.confidence == pytest.approx(1 / (1 + np.exp(-(a + b * abs(m)))))
    assert pred.confidence == pytest.approx(class_confidence(pred.counts, gpu, counted=False))
