"""A physically grounded timing model: a launch's time from its counts, its launch shape and
the GPU's numbers, with a few constants per architecture generation.

Per launch (ns)::

    t = t0 (+ t0_omp for OpenMP target regions) + smax_p(t_issue, t_mem, t_lat, t_atom)

- occupancy: blocks per SM = min(the generation's block limit, threads per SM / block
  threads rounded up to warps, the register file / (registers x block), shared memory per SM /
  shared memory per block); registers and shared memory enter only where the frame has them
  (``k_regs``, ``k_smem``); waves = blocks / (blocks per SM x SMs); ``util`` the share of the
  GPU's SMs busy on average (the last wave's tail; a grid of fewer blocks than SMs);
- ``t_issue``: the instruction mix at the GPU's issue rates per operation class, the longest
  of FP32 (FLOPs / 1.5 per instruction over the FP32 lanes), FP64, FP16 (two per lane),
  integer, load/store units (32 lanes per SM: global, shared and atomic accesses) and the
  dispatch limit (4 warp instructions per SM per cycle), times the warps' issue factor
  (divergence, where counted), over ``e_issue`` x util;
- ``t_mem``: the DRAM bytes at the achievable bandwidth x ``e_stream`` (or ``e_scatter``
  when the launch moves more DRAM bytes than its threads access: partly used sectors, a
  strided or random pattern), and the bytes the threads access at the L2's ``k_l2`` bytes per
  cycle per SM, whichever is longer;
- ``t_lat``: waves one after another, each as long as a thread's dependent work (its
  operations at ``c_dep`` cycles, its memory accesses at ``c_mem``), or the longest thread's
  operations at ``c_dep`` (CUDA counts that followed threads);
- ``t_atom``: atomics on one address serialised in the L2, integer ones 32 per
  ``c_atom_int`` cycles (a warp's are combined), float ones ``c_atom_fp`` cycles each;
- ``smax_p``: (sum of t_i^p)^(1/p), a smooth maximum.

Counts come from CPU execution where a row has them (``c_*`` columns), else from the source
analysis (``a_*`` and per-thread ``t_*``). Constants are fitted per generation
(:mod:`ridgeline.predictors.physical_fit`) and shipped in ``models/physical-constants.json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from ridgeline.errors import SchemaError
from ridgeline.hardware import GPU

__all__ = ["PARAMS", "DEFAULTS", "BOUNDS", "TERMS", "PhysInputs", "inputs_from_frame",
           "terms_ns", "time_ns", "generation", "load_constants", "CONSTANTS_FILE",
           "dominant_note", "subset"]

#: the constants of one generation: name -> starting value (physical units: ns, shares of a
#: rate, bytes per cycle per SM, cycles, the smooth maximum's exponent)
DEFAULTS: dict[str, float] = {
    "t0": 2000.0, "t0_omp": 3000.0, "e_stream": 0.9, "e_scatter": 0.5, "k_l2": 64.0,
    "e_issue": 0.7, "c_dep": 8.0, "c_mem": 400.0, "c_atom_int": 1.0, "c_atom_fp": 4.0,
    "p": 4.0,
}
PARAMS = tuple(DEFAULTS)
#: the range each constant is fitted in
BOUNDS: dict[str, tuple[float, float]] = {
    "t0": (200.0, 2e4), "t0_omp": (1.0, 5e4), "e_stream": (0.05, 1.0),
    "e_scatter": (0.01, 1.0), "k_l2": (4.0, 1024.0), "e_issue": (0.02, 1.0),
    "c_dep": (0.5, 64.0), "c_mem": (10.0, 4000.0), "c_atom_int": (0.05, 64.0),
    "c_atom_fp": (0.05, 64.0), "p": (1.0, 16.0),
}
TERMS = ("issue", "memory", "latency", "atomics")
#: blocks one SM holds at once, by compute capability (CUDA programming guide); 32 otherwise
MAX_BLOCKS_PER_SM = {"7.0": 32, "7.5": 16, "8.0": 32, "8.6": 16, "8.7": 16, "8.9": 24,
                     "9.0": 32}
#: shared memory per SM (bytes) by compute capability; 64 KiB otherwise
SMEM_PER_SM = {"7.0": 96 << 10, "7.5": 64 << 10, "8.0": 164 << 10, "8.6": 100 << 10,
               "8.7": 164 << 10, "8.9": 100 << 10, "9.0": 228 << 10}
REGISTERS_PER_SM = 65536
#: thread instructions per FLOP: an FMA is two FLOPs in one instruction
INSTR_PER_FLOP = 1.0 / 1.5
CONSTANTS_FILE = "physical-constants.json"


@dataclass
class PhysInputs:
    """Linear per-row quantities the model reads (NaN where unknown)."""

    threads: np.ndarray
    block: np.ndarray
    sp: np.ndarray
    dp: np.ndarray
    hp: np.ndarray
    int_ops: np.ndarray
    mem_ops: np.ndarray
    access_bytes: np.ndarray
    dram: np.ndarray
    hot_int: np.ndarray
    hot_fp: np.ndarray
    longest: np.ndarray
    issue_factor: np.ndarray
    is_omp: np.ndarray
    regs: np.ndarray
    smem: np.ndarray


def subset(x: PhysInputs, rows: Any) -> PhysInputs:
    """The rows *rows* (indices or a mask) of *x*."""
    return PhysInputs(**{k: np.asarray(v)[rows] for k, v in vars(x).items()})


def _lin(X: pd.DataFrame, col: str) -> np.ndarray:
    """A log10(1 + x) column back to x (NaN where absent)."""
    if col not in X:
        return np.full(len(X), np.nan)
    return np.clip(10.0 ** X[col].to_numpy(float) - 1.0, 0.0, None)


def inputs_from_frame(X: pd.DataFrame) -> PhysInputs:
    """The model's inputs from a feature frame (``features_frame`` columns): CPU-execution
    counts where ``c_has`` is 1, else the analysed source counts."""
    has = (X["c_has"].to_numpy(float) == 1.0) if "c_has" in X else np.zeros(len(X), bool)
    threads = _lin(X, "a_launched")

    def pick(counted: np.ndarray, analysed: np.ndarray) -> np.ndarray:
        return np.nan_to_num(np.where(has, counted, analysed), nan=0.0)

    per_thread = np.nan_to_num(threads, nan=0.0)
    analysed_mem = per_thread * (np.nan_to_num(_lin(X, "t_loads")) + np.nan_to_num(
        _lin(X, "t_stores")) + np.nan_to_num(_lin(X, "t_shared"))
        + np.nan_to_num(_lin(X, "t_atomics")))
    counted_mem = (np.nan_to_num(_lin(X, "c_loads")) + np.nan_to_num(_lin(X, "c_stores"))
                   + np.nan_to_num(_lin(X, "c_shared")) + np.nan_to_num(_lin(X, "c_atomics")))
    block = np.nan_to_num(_lin(X, "block_x"), nan=1.0) * np.nan_to_num(
        _lin(X, "block_y"), nan=1.0) * np.nan_to_num(_lin(X, "block_z"), nan=1.0)
    warp_issue = X["c_warp_issue"].to_numpy(float) if "c_warp_issue" in X else np.full(
        len(X), np.nan)
    return PhysInputs(
        threads=threads, block=np.clip(block, 1.0, None),
        sp=pick(_lin(X, "c_sp"), _lin(X, "a_sp")),
        dp=pick(_lin(X, "c_dp"), _lin(X, "a_dp")),
        hp=pick(_lin(X, "c_hp"), _lin(X, "a_hp")),
        int_ops=pick(_lin(X, "c_int"), _lin(X, "a_int")),
        mem_ops=pick(counted_mem, analysed_mem),
        access_bytes=pick(_lin(X, "c_load_b") + _lin(X, "c_store_b"),
                          _lin(X, "a_load_b") + _lin(X, "a_store_b")),
        dram=pick(_lin(X, "c_dram"), _lin(X, "a_bytes")),
        hot_int=np.where(has, np.nan_to_num(_lin(X, "c_atom_hot")), 0.0),
        hot_fp=np.where(has, np.nan_to_num(_lin(X, "c_atom_hot_fp")), 0.0),
        longest=np.where(has, _lin(X, "c_tw_max"), np.nan),
        issue_factor=np.where(has & np.isfinite(warp_issue), 10.0 ** warp_issue, 1.0),
        is_omp=np.nan_to_num(X["is_omp"].to_numpy(float) if "is_omp" in X
                             else np.zeros(len(X))),
        regs=X["k_regs"].to_numpy(float) if "k_regs" in X else np.full(len(X), np.nan),
        smem=X["k_smem"].to_numpy(float) if "k_smem" in X else np.full(len(X), np.nan),
    )


def _gpu_arrays(gpus: Sequence[GPU]) -> dict[str, np.ndarray]:
    def arr(f: Any) -> np.ndarray:
        return np.array([f(g) for g in gpus], float)

    return {
        "sms": arr(lambda g: g.sm_count), "clock": arr(lambda g: g.boost_clock_mhz * 1e6),
        "sp": arr(lambda g: g.peak("sp")), "dp": arr(lambda g: g.peak("dp")),
        "hp": arr(lambda g: g.peak("hp")), "int": arr(lambda g: g.peak("int")),
        "bw": arr(lambda g: g.achievable_bandwidth),
        "threads_sm": arr(lambda g: g.resident_threads_per_sm),
        "blocks_sm": arr(lambda g: MAX_BLOCKS_PER_SM.get(g.compute_capability or "", 32)),
        "smem_sm": arr(lambda g: SMEM_PER_SM.get(g.compute_capability or "", 64 << 10)),
    }


def _occupancy(x: PhysInputs, g: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(waves, util): blocks over what the GPU holds at once, and the average share of its
    SMs busy (1 for a grid of many full waves)."""
    warps_block = np.ceil(x.block / 32.0)
    limits = [g["blocks_sm"], np.floor(g["threads_sm"] / (warps_block * 32.0))]
    with np.errstate(invalid="ignore", divide="ignore"):
        limits.append(np.where(x.regs > 0, np.floor(
            REGISTERS_PER_SM / (np.ceil(x.regs / 8.0) * 8.0 * warps_block * 32.0)), np.inf))
        limits.append(np.where(x.smem > 0, np.floor(g["smem_sm"] / x.smem), np.inf))
    per_sm = np.clip(np.min(np.vstack(limits), axis=0), 1.0, None)
    blocks = np.clip(np.nan_to_num(x.threads, nan=1.0) / x.block, 1.0, None)
    waves = blocks / (per_sm * g["sms"])
    util = np.where(waves >= 1.0, waves / np.ceil(waves), np.minimum(blocks, g["sms"]) / g["sms"])
    return waves, util


def terms_ns(x: PhysInputs, gpus: Sequence[GPU], c: Mapping[str, float]
             ) -> dict[str, np.ndarray]:
    """Each term's time in ns per row (see the module docstring), and ``waves``."""
    g = _gpu_arrays(gpus)
    waves, util = _occupancy(x, g)
    lanes_hp = g["hp"] / (2.0 * g["sms"] * g["clock"])  # FP16 FLOPs per cycle per SM / 2
    per_class = np.vstack([
        x.sp * INSTR_PER_FLOP / (g["sp"] / 2.0),
        x.dp * INSTR_PER_FLOP / (g["dp"] / 2.0),
        x.hp * INSTR_PER_FLOP / 2.0 / (lanes_hp * g["sms"] * g["clock"]),
        x.int_ops / g["int"],
        x.mem_ops / (32.0 * g["sms"] * g["clock"]),
        (x.int_ops + (x.sp + x.dp + x.hp / 2.0) * INSTR_PER_FLOP + x.mem_ops)
        / (128.0 * g["sms"] * g["clock"]),
    ])
    t_issue = per_class.max(axis=0) * x.issue_factor / (c["e_issue"] * util) * 1e9
    scatter = x.dram > 1.2 * np.maximum(x.access_bytes, 1.0)
    e_dram = np.where(scatter, c["e_scatter"], c["e_stream"])
    t_mem = np.fmax(x.dram / (g["bw"] * e_dram),
                    x.access_bytes / (c["k_l2"] * g["sms"] * g["clock"])) * 1e9
    threads = np.clip(np.nan_to_num(x.threads, nan=1.0), 1.0, None)
    instr = x.int_ops + (x.sp + x.dp + x.hp) * INSTR_PER_FLOP
    chain = (instr / threads * c["c_dep"] + x.mem_ops / threads * c["c_mem"]) / g["clock"]
    longest = np.nan_to_num(x.longest, nan=0.0) * c["c_dep"] / g["clock"]
    t_lat = np.fmax(np.ceil(waves) * chain, longest) * 1e9
    t_atom = (x.hot_int / 32.0 * c["c_atom_int"] + x.hot_fp * c["c_atom_fp"]) / g["clock"] * 1e9
    return {"issue": t_issue, "memory": t_mem, "latency": t_lat, "atomics": t_atom,
            "waves": waves, "util": util, "e_dram": e_dram}


def time_ns(x: PhysInputs, gpus: Sequence[GPU], c: Mapping[str, float]) -> np.ndarray:
    """The model's time per row (ns)."""
    t = terms_ns(x, gpus, c)
    p = c["p"]
    body = np.vstack([t[k] for k in TERMS])
    top = np.max(body, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        smax = top * np.sum((body / np.where(top > 0, top, 1.0)) ** p, axis=0) ** (1.0 / p)
    return c["t0"] + c["t0_omp"] * x.is_omp + np.nan_to_num(smax, nan=0.0)


def dominant_note(terms: Mapping[str, np.ndarray], i: int, gpu: GPU) -> str:
    """What bounds row *i*: the largest term, and for memory the share of the achievable
    DRAM bandwidth it reaches."""
    name = max(TERMS, key=lambda k: float(terms[k][i]))
    share = float(terms["e_dram"][i])
    if name == "memory":
        return (f"memory-bound at {share:.0%} of the achievable DRAM bandwidth "
                f"({gpu.achievable_bandwidth / 1e9:.0f} GB/s); {float(terms['waves'][i]):.3g} "
                "waves")
    what = {"issue": "issue-bound (instruction mix at the GPU's issue rates)",
            "latency": "latency-bound (each wave waits on its threads' dependent work)",
            "atomics": "bound by atomics on one address (serialised in the L2)"}[name]
    return f"{what}; {float(terms['waves'][i]):.3g} waves"


def generation(gpu: GPU) -> str:
    """The architecture generation whose constants a GPU takes: its catalog architecture
    (``Ampere`` for GA100 and GA102 alike; the GPUs differ in their catalog numbers)."""
    return gpu.architecture


def _models_dir() -> Any:
    return resources.files("ridgeline").joinpath("models")


def load_constants() -> dict[str, Any]:
    """The shipped constants: ``{"generations": {name: {param: value}}, "range": ...}``."""
    try:
        raw = json.loads(_models_dir().joinpath(CONSTANTS_FILE).read_text())
    except (OSError, ValueError) as e:
        raise SchemaError(f"cannot read the physical model's constants "
                          f"(ridgeline/models/{CONSTANTS_FILE}): {e}; rebuild them with "
                          "`python benchmarks/physical_time.py --write-constants`") from e
    gens = raw.get("generations") or {}
    for name, c in gens.items():
        missing = [p for p in PARAMS if not isinstance(c.get(p), int | float)
                   or not math.isfinite(c[p])]
        if missing:
            raise SchemaError(f"ridgeline/models/{CONSTANTS_FILE}: generation {name!r} lacks "
                              f"constants {missing}; it needs {list(PARAMS)}")
    return dict(raw)
