"""An LLM as a predictor: it says Compute or Bandwidth (paper-a rule) for one launch.

It predicts no counts: ``Prediction.counts`` stays zero with ``origin`` saying so, and the
class sits in ``labels["paper-a"]``. Uses the same scenarios, cache and backends as
``ridgeline eval --task paper-a``.
"""

from __future__ import annotations

from typing import Any

from ridgeline.errors import UsageError
from ridgeline.hardware import GPU, Counts, Label, get_rule
from ridgeline.launch import KernelRef, Launch
from ridgeline.predictors.base import PREDICTORS, Prediction, Predictor

__all__ = ["LLMClassifier"]


class LLMClassifier(Predictor):
    """Ask *model* (any OpenAI-compatible service, or ``smollm2`` for the embedded model)."""

    name = "llm"

    def __init__(self, model: str = "smollm2", base_url: str | None = None,
                 scenario: str = "zero-shot", backend: str | None = None,
                 max_source_tokens: int | None = None, cache_path: str | None = None,
                 rule: str = "paper-a", timeout_s: float | None = None,
                 max_attempts: int | None = None, total_timeout_s: float | None = None
                 ) -> None:
        self.model = model
        self.base_url = base_url
        self.scenario = scenario
        self.backend = backend
        self.max_source_tokens = max_source_tokens
        self.cache_path = cache_path
        self.rule = rule
        #: call limits (see ridgeline.llm.settings.CallLimits; None: the default)
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.total_timeout_s = total_timeout_s

    def _prompt(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Any:
        from ridgeline.llm.paper_a import gpu_peaks, omp_function_name
        from ridgeline.llm.scenarios import KernelPrompt
        from ridgeline.sources.context import program_context

        folder = kernel.program_dir
        if folder is None:
            raise UsageError(f"kernel {kernel.name!r} has no sources; the LLM needs them")
        lang = kernel.language or ("cuda" if any(folder.rglob("*.cu")) else "omp")
        return KernelPrompt(
            kernel=kernel.name, language=lang, gpu=gpu.name,
            peaks=gpu_peaks(gpu, get_rule(self.rule)), bandwidth_gbs=gpu.dram_bandwidth_gbps,
            block=str(launch.block or "unknown"), grid=str(launch.grid or "unknown"),
            args=launch.args,
            source=program_context(folder, max_tokens=self.max_source_tokens),
            function=omp_function_name(kernel.name) if lang == "omp" else None,
        )

    def predict(self, kernel: KernelRef, launch: Launch, gpu: GPU) -> Prediction:
        from ridgeline.llm.cache import ResponseCache, default_cache_path
        from ridgeline.llm.client import LLMClient
        from ridgeline.llm.scenarios import get_scenario
        from ridgeline.llm.session import open_backend
        from ridgeline.llm.settings import CallLimits, GenerationSettings

        limits = CallLimits(self.timeout_s, self.max_attempts, self.total_timeout_s)
        sc = get_scenario(self.scenario)
        msgs = sc.render(self._prompt(kernel, launch, gpu))
        cache = ResponseCache(self.cache_path or default_cache_path())
        try:
            with open_backend(self.model, self.base_url, self.backend, limits=limits) as b:
                client = LLMClient(b, GenerationSettings.for_model(self.model), cache)
                comp = client.ask(msgs, sc.cache_tag)
        finally:
            cache.close()
        answer = sc.parse(comp.text)
        label = Label(answer, "" if answer else f"no class in the answer: {comp.text[:80]!r}")
        return Prediction(
            kernel=kernel.name, gpu=gpu.name, counts=Counts(), time_s=None,
            predictor=self.name, labels={self.rule: label},
            origin={"class": f"llm {self.model} {sc.tag}", "counts": "not predicted"},
            notes=[f"answer: {comp.text[:200]}"],
        )


PREDICTORS.add("llm", LLMClassifier)
