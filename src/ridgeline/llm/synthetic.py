"""The paper's synthetic roofline questions (profiling scenario, part a).

A GPU with bandwidth B ~ U(50, 893.8) GB/s and peak P ~ U(2535.8, 7068.9) GFLOP/s has its
ridge at R = P / B. Bandwidth-bound points have intensity I ~ U(0, 0.95 R), compute-bound
points I ~ U(1.05 R, 10 R); the achieved rate is the roofline bound min(P, B I) times a
random efficiency. Each question may come with 2, 4 or 8 solved examples, answered plainly
(one word) or step by step. :func:`rule_answer` is the roofline rule itself (always right).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ridgeline.errors import UsageError
from ridgeline.hardware import BANDWIDTH, COMPUTE
from ridgeline.llm.backends import Message
from ridgeline.llm.scenarios import Scenario, get_scenario

__all__ = [
    "RooflinePoint",
    "sample_points",
    "rule_answer",
    "render_question",
    "STYLES",
    "synthetic_items",
    "rule_accuracy",
]

STYLES = ("plain", "steps")
BW_RANGE = (50.0, 893.8)
PEAK_RANGE = (2535.8, 7068.9)


@dataclass(frozen=True)
class RooflinePoint:
    peak_gflops: float
    bandwidth_gbs: float
    intensity: float
    achieved_gflops: float
    label: str

    @property
    def ridge(self) -> float:
        return self.peak_gflops / self.bandwidth_gbs


def sample_points(n: int, random_state: int = 4839) -> list[RooflinePoint]:
    """*n* points, alternating Bandwidth and Compute (balanced), reproducible by seed."""
    if n < 1:
        raise UsageError(f"number of synthetic questions must be >= 1, got {n}")
    rng = np.random.default_rng(random_state)
    out = []
    for i in range(n):
        bw = float(rng.uniform(*BW_RANGE))
        peak = float(rng.uniform(*PEAK_RANGE))
        ridge = peak / bw
        label = BANDWIDTH if i % 2 == 0 else COMPUTE
        lo, hi = (0.0, 0.95 * ridge) if label == BANDWIDTH else (1.05 * ridge, 10 * ridge)
        ai = float(rng.uniform(lo, hi))
        achieved = min(peak, bw * ai) * float(rng.uniform(0.5, 1.0))
        out.append(RooflinePoint(round(peak, 1), round(bw, 1), round(ai, 3),
                                 round(achieved, 1), label))
    return out


def rule_answer(p: RooflinePoint) -> str:
    """The roofline rule: Bandwidth when the intensity is below the ridge point."""
    return BANDWIDTH if p.intensity < p.peak_gflops / p.bandwidth_gbs else COMPUTE


def _fields(p: RooflinePoint) -> dict[str, object]:
    ridge = p.peak_gflops / p.bandwidth_gbs
    return {
        "peak": p.peak_gflops,
        "bandwidth": p.bandwidth_gbs,
        "intensity": p.intensity,
        "achieved": p.achieved_gflops,
        "ridge": round(ridge, 3),
        "relation": "below" if p.intensity < ridge else "above",
        "answer": rule_answer(p),
    }


def render_question(
    point: RooflinePoint,
    examples: list[RooflinePoint] = (),  # type: ignore[assignment]
    style: str = "plain",
    scenario: Scenario | None = None,
) -> list[Message]:
    """Chat messages: system, solved examples as user/assistant turns, then the question."""
    if style not in STYLES:
        raise UsageError(f"answer style {style!r} is not allowed; use one of {STYLES}")
    sc = scenario or get_scenario("profiling-synthetic")
    msgs: list[Message] = [{"role": "system", "content": sc.texts[f"system_{style}"]}]
    for ex in examples:
        f = _fields(ex)
        msgs.append({"role": "user", "content": sc.texts["question"].format_map(f)})
        msgs.append({"role": "assistant", "content": sc.texts[f"answer_{style}"].format_map(f)})
    msgs.append({"role": "user", "content": sc.texts["question"].format_map(_fields(point))})
    return msgs


def synthetic_items(n: int, n_examples: int = 2, style: str = "plain",
                    random_state: int = 4839) -> list[Any]:
    """Runner items for *n* questions, each with *n_examples* solved examples (2, 4 or 8
    in the paper) drawn with a different seed."""
    from ridgeline.llm.runner import Item

    if n_examples not in (0, 2, 4, 8):
        raise UsageError(f"number of examples must be 0, 2, 4 or 8, got {n_examples}")
    points = sample_points(n, random_state)
    pool = sample_points(max(8, n_examples), random_state + 1)
    sc = get_scenario("profiling-synthetic")
    return [
        Item(str(i), render_question(p, pool[:n_examples], style, sc), p.label,
             {"style": style, "examples": n_examples, "rule_answer": rule_answer(p)})
        for i, p in enumerate(points)
    ]


def rule_accuracy(n: int, random_state: int = 4839) -> float:
    """Accuracy of the roofline rule on the same questions (1.0 by construction)."""
    pts = sample_points(n, random_state)
    return sum(rule_answer(p) == p.label for p in pts) / len(pts)
