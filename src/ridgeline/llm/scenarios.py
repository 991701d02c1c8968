"""Scenarios: versioned prompt templates (TOML files under ``ridgeline/data/llm/scenarios``),
each naming its answer parser and metrics. A scenario renders a :class:`KernelPrompt` into
chat messages; ``name@version`` goes into the response-cache key."""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ridgeline.errors import SchemaError, UnknownNameError, UsageError
from ridgeline.llm.backends import Message
from ridgeline.llm.parsing import PARSERS

__all__ = ["Scenario", "KernelPrompt", "get_scenario", "scenario_names", "LANGUAGE_NAMES"]

_DIR = "data/llm/scenarios"
#: how each language is named in prompts
LANGUAGE_NAMES = {"cuda": "CUDA", "omp": "OpenMP (OMP) target offload", "opencl": "OpenCL"}


@dataclass
class KernelPrompt:
    """Everything a scenario may put into a prompt for one kernel launch."""

    kernel: str
    language: str  # "cuda" | "omp" | "opencl"
    gpu: str
    peaks: dict[str, float]  # GFLOP/s or GINTOP/s by "sp", "dp", "int"
    bandwidth_gbs: float
    block: str = ""
    grid: str = ""
    args: str = ""
    source: str | None = None
    sass: str | None = None
    tool_name: str | None = None
    tool_summary: str | None = None
    intensities: dict[str, float] | None = None  # measured, by "sp", "dp", "int"
    function: str | None = None  # OpenMP: the host function holding the target region
    extra: dict[str, Any] = field(default_factory=dict)

    def fields(self) -> dict[str, Any]:
        lang = LANGUAGE_NAMES.get(self.language, self.language)
        if self.language == "omp":
            phrase = f"in function [{self.function or self.kernel}]"
        else:
            phrase = f"called [{self.kernel}]"
        ridge = {p: v / self.bandwidth_gbs if self.bandwidth_gbs else 0.0
                 for p, v in self.peaks.items()}
        ai = self.intensities or {}
        return {
            "language": lang,
            "kernel": self.kernel,
            "kernel_phrase": phrase,
            "gpu": self.gpu,
            "peak_sp": _num(self.peaks.get("sp", 0.0)),
            "peak_dp": _num(self.peaks.get("dp", 0.0)),
            "peak_int": _num(self.peaks.get("int", 0.0)),
            "bandwidth": _num(self.bandwidth_gbs),
            "ridge_sp": _num(ridge.get("sp", 0.0)),
            "ridge_dp": _num(ridge.get("dp", 0.0)),
            "ridge_int": _num(ridge.get("int", 0.0)),
            "block": self.block,
            "grid": self.grid,
            "args_phrase": (
                f"the command-line arguments [{self.args}]" if self.args.strip()
                else "no command-line arguments"
            ),
            "source": self.source,
            "sass": self.sass,
            "tool_name": self.tool_name,
            "tool_summary": self.tool_summary,
            "ai_sp": _num(ai.get("sp", 0.0), 4),
            "ai_dp": _num(ai.get("dp", 0.0), 4),
            "ai_int": _num(ai.get("int", 0.0), 4),
            "profile_origin": self.extra.get("profile_origin", "measured with Nsight Compute"),
            **{k: v for k, v in self.extra.items() if k != "profile_origin"},
        }


def _num(v: float, digits: int = 2) -> str:
    if not math.isfinite(v):
        return "infinite" if v > 0 else "undefined"
    r = round(float(v), digits)
    return str(int(r)) if r == int(r) and abs(r) < 1e15 else str(r)


_NEEDS = {"source": "source", "sass": "sass", "tool": "tool_summary", "profile": "intensities"}


@dataclass(frozen=True)
class Scenario:
    """One scenario file: its texts, version, parser and metrics."""

    name: str
    version: int
    description: str
    parser: str
    metrics: tuple[str, ...]
    needs: tuple[str, ...]
    texts: dict[str, str]
    examples: dict[str, dict[str, str]]

    @property
    def tag(self) -> str:
        """``name@version``, shown in results."""
        return f"{self.name}@{self.version}"

    @property
    def cache_tag(self) -> str:
        """``name@version#digest``: part of every cache key. The digest of the texts and
        example files also changes the key when someone forgets to bump the version."""
        h = hashlib.sha256(json.dumps(self.texts, sort_keys=True).encode())
        root = resources.files("ridgeline").joinpath("data/llm")
        for lang in sorted(self.examples):
            for rel in self.examples[lang].values():
                h.update(root.joinpath(rel).read_bytes())
        return f"{self.tag}#{h.hexdigest()[:12]}"

    def parse(self, text: str | None) -> str | None:
        return PARSERS.get(self.parser)(text)

    def example_block(self, language: str) -> str:
        files = self.examples.get(language)
        if not files:
            raise UsageError(
                f"scenario {self.name!r} has no worked examples for language {language!r}; "
                f"it has {sorted(self.examples)}"
            )
        root = resources.files("ridgeline").joinpath("data/llm")
        parts = []
        for n, (answer, rel) in enumerate(files.items(), start=1):
            code = root.joinpath(rel).read_text("utf-8").strip()
            parts.append(self.texts["example"].format(n=n, code=code, answer=answer))
        return "\n".join(parts)

    def render(self, prompt: KernelPrompt) -> list[Message]:
        """Chat messages for *prompt*: system, hardware/launch message, then the code."""
        for need in self.needs:
            attr = _NEEDS.get(need)
            if attr and getattr(prompt, attr) in (None, "", {}):
                raise UsageError(
                    f"scenario {self.name!r} needs {need!r} for kernel {prompt.kernel!r}, "
                    "which is missing"
                )
        values = prompt.fields()
        if "example" in self.texts:
            values["examples"] = self.example_block(prompt.language)
        msgs: list[Message] = [{"role": "system", "content": self._fmt("system", values)}]
        msgs.append({"role": "user", "content": self._fmt("hardware", values)})
        if self.texts.get("code"):
            msgs.append({"role": "user", "content": self._fmt("code", values)})
        return msgs

    def _fmt(self, key: str, values: dict[str, Any]) -> str:
        try:
            return self.texts[key].format_map(values)
        except KeyError as e:
            raise SchemaError(f"scenario {self.tag}: template {key!r} uses unknown field {e}") \
                from None


def _load(name: str, text: str) -> Scenario:
    where = f"ridgeline/{_DIR}/{name}.toml"
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SchemaError(f"{where}: {e}") from None
    try:
        texts = {k: v for k, v in raw.items() if isinstance(v, str)}
        return Scenario(
            name=raw["name"],
            version=int(raw["version"]),
            description=raw.get("description", ""),
            parser=raw.get("parser", "last-class"),
            metrics=tuple(raw.get("metrics", ("accuracy", "macro_f1", "mcc"))),
            needs=tuple(raw.get("needs", ())),
            texts=texts,
            examples=dict(raw.get("examples", {})),
        )
    except KeyError as e:
        raise SchemaError(f"{where}: missing field {e}") from None


@cache
def _all() -> dict[str, Scenario]:
    folder = resources.files("ridgeline").joinpath(_DIR)
    out = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            sc = _load(entry.name[:-5], entry.read_text("utf-8"))
            out[sc.name] = sc
    return out


def scenario_names() -> list[str]:
    return sorted(_all())


def get_scenario(name: str) -> Scenario:
    try:
        return _all()[name.lower()]
    except KeyError:
        raise UnknownNameError("scenario", name, _all()) from None
