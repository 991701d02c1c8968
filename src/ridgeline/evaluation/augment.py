"""What the ridgeline-only scenarios add to a prompt: the kernel's SASS (``sass``, via
:mod:`ridgeline.compile`) and ridgeline's own predicted counts (``tool-augmented``, via a
predictor from the PREDICTORS registry)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ridgeline.errors import ExecutionError, RidgelineError, UnknownNameError, UsageError
from ridgeline.hardware import Counts, get_gpu, intensities
from ridgeline.launch import KernelRef, Launch
from ridgeline.llm.paper_a import hecbench_sources_root
from ridgeline.llm.scenarios import KernelPrompt, Scenario
from ridgeline.predictors import load_predictors

__all__ = [
    "extras_for",
    "tool_summary",
    "default_tool_predictor",
    "sass_text",
    "counted_profile",
]

#: predictors tried, in order, when tool-augmented gets no --tool-predictor
TOOL_PREFERENCE = ("learned", "analytic")


def _registry() -> Any:
    return load_predictors()


def default_tool_predictor() -> str:
    reg = _registry()
    for name in TOOL_PREFERENCE:
        if name in reg:
            return name
    raise UsageError(
        "the tool-augmented scenario needs a count predictor, but none of "
        f"{list(TOOL_PREFERENCE)} is registered (registered: {reg.names() or 'none'}); "
        "pass --tool-predictor NAME"
    )


def tool_summary(counts: Any) -> str:
    """One line of predicted counts and intensities for the prompt."""
    ai = intensities(counts)
    return (
        f"single-precision FLOPs {counts.flops_sp:.4g}, double-precision FLOPs "
        f"{counts.flops_dp:.4g}, integer operations {counts.int_ops:.4g}, DRAM bytes "
        f"{counts.dram_bytes:.4g}; intensities: single {ai['sp']:.4g} FLOP/B, double "
        f"{ai['dp']:.4g} FLOP/B, integer {ai['int']:.4g} op/B."
    )


def _tool(name: str, gpu_name: str) -> Callable[[Any, KernelPrompt], None]:
    reg = _registry()
    if name not in reg:
        raise UnknownNameError("predictor", name, reg.names())
    predictor = reg.get(name)()
    gpu = get_gpu(gpu_name)

    def add(row: Any, prompt: KernelPrompt) -> None:
        folder = hecbench_sources_root() / str(row.source)
        ref = KernelRef(name=str(row.kernel), sources=(folder,), language=str(row.model_type))
        launch = Launch.parse(tuple(row.grid), tuple(row.block), str(row.exe_args or ""))
        try:
            pred = predictor.predict(ref, launch, gpu)
        except RidgelineError:
            raise
        except Exception as e:  # a predictor's bug must not stop the batch: record it
            raise ExecutionError(
                f"predictor {name!r} failed on {row.source}/{row.kernel}: "
                f"{type(e).__name__}: {e}") from e
        prompt.tool_name = name
        prompt.tool_summary = tool_summary(pred.counts)

    return add


def sass_text(folder: Path, kernel: str, language: str) -> str:
    """SASS of *kernel* compiled from the program in *folder* (nvcc + cuobjdump)."""
    from ridgeline.llm.sass import kernel_sass

    return kernel_sass(folder, kernel, language)


def _sass(row: Any, prompt: KernelPrompt) -> None:
    folder = hecbench_sources_root() / str(row.source)
    prompt.sass = sass_text(folder, str(row.kernel), str(row.model_type))


def extras_for(scenario: Scenario, tool_predictor: str | None, gpu: str,
               counts_file: str | None = None) -> Callable[[Any, KernelPrompt], None] | None:
    """The prompt additions *scenario* needs (None when it needs none)."""
    if "profile" in scenario.needs and counts_file:
        return counted_profile(counts_file, gpu)
    if "tool" in scenario.needs:
        return _tool(tool_predictor or default_tool_predictor(), gpu)
    if "sass" in scenario.needs:
        return _sass
    return None


def counted_profile(path: str | Path, gpu_name: str = "rtx3080"
                    ) -> Callable[[Any, KernelPrompt], None]:
    """Profiling (b) with ridgeline's counted numbers instead of the profiler's: intensities
    from a counts file written by :mod:`ridgeline.counting` (JSON lines of
    ``{"source", "args", "launches": [{"kernel", "flops_sp", "flops_dp", "int_ops",
    "dram_bytes", "dram_bytes_by_gpu"}, ...]}``), averaged over the kernel's launches."""
    from ridgeline.errors import InputFileError

    gpu = get_gpu(gpu_name)
    table: dict[tuple[str, str], list[dict[str, Any]]] = {}
    p = Path(path)
    if not p.is_file():
        raise InputFileError(f"counts file {str(p)!r} does not exist")
    for n, line in enumerate(p.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            for la in rec.get("launches", []):
                table.setdefault((rec["source"], la["kernel"]), []).append(la)
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise InputFileError(f"{p}:{n}: not a counting record ({e})") from None

    def add(row: Any, prompt: KernelPrompt) -> None:
        src, kernel = str(row.source), str(row.kernel)
        hits = [v for (s, k), v in table.items()
                if s == src and (k == kernel or kernel.endswith("_" + k))]
        if not hits:
            raise UsageError(f"no counted numbers for {src}/{kernel} in {p}")
        launches = hits[0]

        def mean(key: str) -> float:
            vals = [float((la.get("dram_bytes_by_gpu") or {}).get(gpu.name, la[key]))
                    if key == "dram_bytes" else float(la[key]) for la in launches]
            return sum(vals) / len(vals)

        counts = Counts(mean("flops_sp"), mean("flops_dp"), 0.0, mean("int_ops"),
                        mean("dram_bytes"))
        prompt.intensities = intensities(counts)
        prompt.extra["profile_origin"] = "counted by ridgeline on the CPU"

    return add
