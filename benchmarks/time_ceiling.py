"""How good can learned time be when the counts are perfect? (program-grouped CV)

  OMP_NUM_THREADS=1 python benchmarks/time_ceiling.py [--out runs/time-ceiling.json]
      [--each] [--profiler] [--plot runs/time-ceiling.png]
  python benchmarks/time_ceiling.py --replot runs/time-ceiling.json --plot PNG

The time model learns a kernel's run time from its counts (FLOPs by precision, integer
operations, DRAM bytes), its launch size and the GPU's catalog numbers. This benchmark runs
the same program-grouped 5-fold CV as `ridgeline eval` (seed 4839) on the shipped feature
table twice: once with the counts ridgeline produces (what users get), and once with every
row's counts replaced by the profiler's measured ones (what a perfect counter would give;
loads, stores and the other counted detail stay as counted). The second run is a ceiling for
any time model built on these counts: where it misses the time target, better counts alone
cannot reach it. With --each, three more runs replace only the counted rows' DRAM bytes, integer
operations or FLOPs by the measured ones: which count's errors cost time accuracy most.

With --profiler, on the HeCBench rows that Nsight Compute's metrics (ncu-metrics-imix.csv.gz)
match, the measured counts are joined by what else the profiler saw, in two steps: first what a
perfect counter, cache simulator and compiler could know without a GPU (instructions executed
per thread, branch divergence, cache hit rates, bytes per sector, bank conflicts, atomics,
spills, registers, shared memory, occupancy), then also what only running on the GPU shows
(IPC, active cycles, stall reasons). A last figure needs no learning: the time the profiler's
own cycle accounting gives (warp instructions / (IPC x SMs x active share) / clock, one scale
per GPU for the clock it ran at) against the measured time, i.e. how far the measured times
agree with the profiler itself.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ridgeline import datasets
from ridgeline.evaluation import hecbench_eval as he
from ridgeline.evaluation.out_of_program import set_model_params
from ridgeline.hardware import get_gpu
from ridgeline.learning.counted import attach_counted
from ridgeline.learning.counted_columns import has_counts

#: counted column (log10(1 + x)) <- measured target
_MEASURED = {"c_sp": "flops_sp", "c_dp": "flops_dp", "c_hp": "flops_hp", "c_int": "int_ops",
             "c_dram": "dram_bytes"}


def with_measured_counts(table: pd.DataFrame) -> pd.DataFrame:
    """*table* (counted columns attached) with the measured counts in the counted columns."""
    t = table.copy()
    ok = np.ones(len(t), bool)
    for c, m in _MEASURED.items():
        v = t[m].to_numpy(float)
        ok &= np.isfinite(v)
        t[c] = np.log10(1.0 + np.clip(v, 0.0, None))
    for p in ("sp", "dp", "int"):
        t[f"c_ai_{p}"] = t[f"c_{p}"] - t["c_dram"]
    t.loc[~ok, list(_MEASURED)] = np.nan
    t["c_has"] = np.where(ok, 1.0, t["c_has"].to_numpy(float))
    return t


def with_measured(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """*table* with the measured counts in *columns* of its counted rows only."""
    full = with_measured_counts(table)
    t = table.copy()
    has = has_counts(t)
    for c in columns:
        t.loc[has, c] = full.loc[has, c]
    for p in ("sp", "dp", "int"):
        t.loc[has, f"c_ai_{p}"] = t.loc[has, f"c_{p}"] - t.loc[has, "c_dram"]
    return t


#: Nsight Compute metrics a GPU-free tool could in principle know: from executing the
#: program (instructions, branches, atomics), a cache simulator (hit rates, bytes per
#: sector, bank conflicts) and the compiler (registers, spills, shared memory, occupancy)
PROFILER_STATIC = [
    "thread_inst_per_thread", "branch_pct", "branch_divergence_pct", "l1_hit_pct",
    "l2_hit_pct", "l1_global_ld_hit_pct", "l1_global_st_hit_pct", "l2_read_hit_pct",
    "l2_write_hit_pct", "l1_to_dram_bytes_ratio", "l2_to_dram_bytes_ratio",
    "l1_bytes_per_thread_inst", "l2_bytes_per_thread_inst", "dram_bytes_per_thread_inst",
    "dram_read_frac", "gld_bytes_per_sector", "gst_bytes_per_sector", "lld_bytes_per_sector",
    "lst_bytes_per_sector", "shared_bank_conflicts_per_wave", "shared_wavefronts_per_inst",
    "atomic_inst_frac", "spill_inst_frac", "local_spill_pct", "regs_per_thread",
    "smem_per_block", "theoretical_occupancy_pct"]
#: metrics only a run on the GPU gives: how fast instructions issued and why warps waited
PROFILER_TIMING = [
    "ipc_active", "issue_to_exec", "smsp_active_cycle_frac", "avg_warp_latency_per_inst_issued",
    "barrier_stall_ratio", "membar_stall_ratio", "long_scoreboard_stall_ratio",
    "short_scoreboard_stall_ratio", "lg_throttle_stall_ratio", "tex_throttle_stall_ratio",
    "math_pipe_throttle_stall_ratio", "not_selected_stall_ratio", "imc_miss_stall_ratio",
    "no_instruction_stall_ratio"]
_JOIN = ["source", "gpu", "exe_args", "block_size", "grid_size"]


def with_profiler_metrics(table: pd.DataFrame, data_dir: str | None = None) -> pd.DataFrame:
    """The HeCBench rows of *table* that ncu-metrics-imix.csv.gz matches (same program, GPU,
    arguments and launch sizes, and a profiled kernel name containing the row's kernel), with
    the profiler's metrics as ``p_<metric>`` columns (the mean where several profiled
    instantiations match; ``p_matches`` says how many did), and two times (log10 ns) derived
    from them, each also as its distance above the row's roofline bound ``roof_t_ns`` (the time
    model's offset, so the trees can use it without having to learn a difference of two
    columns):

    - ``p_t_inst``: the launch's executed warp instructions issued one per scheduler per cycle
      (what a perfect instruction counter gives, no GPU needed);
    - ``p_t_cycles``: the same instructions at the IPC and active share the profiler measured
      (what only the GPU shows)."""
    from ridgeline.learning.columns import SCHEDULERS_PER_SM
    from ridgeline.learning.training import with_gpu_features

    ncu = datasets.load("ncu-imix", data_dir).rename(columns={
        "Block Size": "block_size", "Grid Size": "grid_size"})
    metrics = PROFILER_STATIC + PROFILER_TIMING
    groups = {k: g for k, g in ncu.groupby(_JOIN)}
    rows = table[table["dataset"] == "hecbench"].reset_index(drop=True)
    vals = np.full((len(rows), len(metrics)), np.nan)
    matches = np.zeros(len(rows), int)
    for i, r in enumerate(rows[_JOIN + ["kernel"]].astype(str).itertuples(index=False)):
        cand = groups.get(tuple(r[:5]))
        if cand is None:
            continue
        hit = cand[cand["Kernel Name"].astype(str).str.contains(r[5], regex=False)]
        matches[i] = len(hit)
        if len(hit):
            vals[i] = hit[metrics].astype(float).mean().to_numpy()
    keep = np.isfinite(vals).any(axis=1)
    rows = rows[keep].reset_index(drop=True)
    prof = pd.DataFrame(vals[keep], columns=["p_" + m for m in metrics])
    prof["p_matches"] = matches[keep]
    gpus = [get_gpu(g) for g in rows["gpu"]]
    sms = np.array([g.sm_count for g in gpus], float)
    clock_ghz = np.array([g.boost_clock_mhz / 1000.0 for g in gpus], float)
    warp_inst = (prof["p_thread_inst_per_thread"].to_numpy(float)
                 * (10.0 ** rows["a_launched"].to_numpy(float) - 1.0) / 32.0)
    ipc = (prof["p_ipc_active"].to_numpy(float)
           * np.clip(prof["p_smsp_active_cycle_frac"].to_numpy(float), 1e-3, None))
    roof = with_gpu_features(rows)["roof_t_ns"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, per_cycle in (("p_t_inst", SCHEDULERS_PER_SM), ("p_t_cycles", ipc)):
            t = np.log10(warp_inst / (per_cycle * sms * clock_ghz) + 1e-3)
            prof[name] = np.where(np.isfinite(t), t, np.nan)  # no IPC measured: unknown
            prof[name + "_over_roof"] = prof[name] - roof
    return pd.concat([rows, prof], axis=1)


def cycle_agreement(rows: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per GPU, measured time against the profiler's cycle accounting of the same launch
    (``p_t_cycles``), scaled by one constant per GPU (the clock it was profiled at): median
    APE and share within 2x, over the rows that one profiled kernel matches (where several
    instantiations share a launch, their averaged metrics describe none of them). Fitted on
    the rows it scores: a consistency check of the data, not a prediction."""
    ratio = 10.0 ** rows["p_t_cycles"].to_numpy(float) / rows["time_ns"].to_numpy(float)
    one = rows["p_matches"].to_numpy() == 1
    out = {}
    for g in sorted(rows["gpu"].unique()):
        r = ratio[(rows["gpu"] == g).to_numpy() & one & np.isfinite(ratio) & (ratio > 0)]
        r = r / np.median(r)
        out[g] = {"n": float(len(r)), "median_ape": float(np.median(np.abs(r - 1.0))),
                  "within_2x": float(np.mean((r >= 0.5) & (r <= 2.0)))}
    return out


def _time_figures(table: pd.DataFrame, seed: int,
                  extra: tuple[str, ...] = ()) -> dict[str, dict[str, float]]:
    set_model_params(extra_features=extra)
    try:
        res = he.run_protocols(table, 5, seed, which=("cv",))["cv"]
    finally:
        set_model_params()
    return {g: {k: float(v) for k, v in s["time_learned"].items()
                if isinstance(v, int | float)}
            for g, s in res.items() if not g.startswith("_")}


def _overall(figs: dict[str, dict[str, float]]) -> dict[str, float]:
    """The figures over all GPUs: the ``all`` entry, else the row-weighted mean of the GPUs."""
    if "all" in figs:
        return figs["all"]
    n = np.array([f["n"] for f in figs.values()])
    return {k: float(np.average([f[k] for f in figs.values()], weights=n))
            for k in ("median_ape", "within_2x")} | {"n": float(n.sum())}


def plot(out: dict[str, dict[str, dict[str, float]]], path: Path) -> Path:
    """Within 2x and median APE of every configuration in *out*, against the time targets."""
    from ridgeline.evaluation.plots import _plt

    plt = _plt()
    names = list(out)
    figs = [_overall(out[n]) for n in names]
    gpu_only = ["all metrics" in n or "cycles" in n for n in names]
    colors = ["tab:orange" if g else "tab:blue" for g in gpu_only]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(names) + 1.6), sharey=True)
    y = np.arange(len(names))[::-1]
    for ax, key, target, label in ((axes[0], "within_2x", 85, "rows within 2x (%)"),
                                   (axes[1], "median_ape", 25, "median APE (%)")):
        v = [100 * f[key] for f in figs]
        ax.barh(y, v, color=colors)
        for yi, vi in zip(y, v, strict=True):
            ax.text(vi - 0.5, yi, f"{vi:.1f}", va="center", ha="right", fontsize=8,
                    color="white")
        ax.axvline(target, color="k", ls="--", lw=1, label=f"target {target}%")
        ax.set_ylim(-1.3, len(names) - 0.4)  # room under the bars for the legend
        ax.legend(loc="lower right", fontsize=8)
        ax.set_xlabel(label)
    axes[0].set_yticks(y, [f"{n} ({int(f['n'])} rows)" for n, f in zip(names, figs,
                                                                      strict=True)],
                       fontsize=8)
    axes[0].set_xlim(0, 100)
    axes[1].set_xlim(0, max(100 * f["median_ape"] for f in figs) * 1.1)
    fig.suptitle("Time, program-grouped 5-fold CV: blue without the GPU, orange with what only "
                 "a GPU run shows", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="runs/time-ceiling.json")
    ap.add_argument("--seed", type=int, default=4839)
    ap.add_argument("--each", action="store_true",
                    help="also replace one count at a time, on the counted rows only")
    ap.add_argument("--profiler", action="store_true",
                    help="also add the profiler's own metrics, on the rows it matches")
    ap.add_argument("--plot", metavar="PNG", help="also draw the figures as bars")
    ap.add_argument("--replot", metavar="JSON",
                    help="only draw --plot from a JSON this script wrote earlier")
    a = ap.parse_args()
    if a.replot:
        if not a.plot:
            ap.error("--replot needs --plot PNG")
        print(f"wrote {plot(json.loads(Path(a.replot).read_text()), Path(a.plot))}")
        return
    counted = attach_counted(he.load_table())
    out = {"counted (ridgeline)": _time_figures(counted, a.seed),
           "measured counts (ceiling)": _time_figures(with_measured_counts(counted), a.seed)}
    if a.each:
        for name, cols in (("measured DRAM, counted rows", ["c_dram"]),
                           ("measured int ops, counted rows", ["c_int"]),
                           ("measured FLOPs, counted rows", ["c_sp", "c_dp", "c_hp"])):
            out[name] = _time_figures(with_measured(counted, cols), a.seed)
    if a.profiler:
        prof = with_profiler_metrics(with_measured_counts(counted))
        static = tuple("p_" + m for m in PROFILER_STATIC) + ("p_t_inst", "p_t_inst_over_roof")
        timing = tuple("p_" + m for m in PROFILER_TIMING) + ("p_t_cycles",
                                                              "p_t_cycles_over_roof")
        out["measured counts, profiled rows"] = _time_figures(prof, a.seed)
        out["+ profiler, GPU-free metrics"] = _time_figures(prof, a.seed, static)
        out["+ profiler, all metrics"] = _time_figures(prof, a.seed, static + timing)
        out["profiler cycles (no learning)"] = cycle_agreement(prof)
    print(f"time, program-grouped 5-fold CV over the HeCBench rows (seed {a.seed})")
    print(f"{'counts':32s} {'GPU':24s} {'rows':>5s} {'median APE':>10s} {'within 2x':>9s}")
    for name, figs in out.items():
        for g, f in figs.items():
            print(f"{name:32s} {g:24s} {int(f.get('n', 0)):5d} "
                  f"{100 * f['median_ape']:9.1f}% {100 * f['within_2x']:8.1f}%")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=2))
    print(f"wrote {a.out}")
    if a.plot:
        print(f"wrote {plot(out, Path(a.plot))}")


if __name__ == "__main__":
    main()
