"""LLM roofline classification: backends on one HTTP base, versioned scenarios, answer
parsing, a SQLite response cache, runs over paper-a, fine-tuning export and a local
fine-tune of the embedded model. Heavy parts (llama-cpp, torch) are imported lazily."""

from ridgeline.llm.backends import BACKENDS, Backend, make_backend
from ridgeline.llm.cache import ResponseCache, cache_key, default_cache_path
from ridgeline.llm.client import LLMClient
from ridgeline.llm.embedded import EMBEDDED_MODEL, EmbeddedServer, gguf_path
from ridgeline.llm.http import (
    AuthenticationError,
    ContextLengthError,
    EndpointError,
    HttpClient,
    ModelNotFoundError,
)
from ridgeline.llm.parsing import PARSERS, parse_roofline_class
from ridgeline.llm.runner import Item, ItemResult, run_items
from ridgeline.llm.scenarios import KernelPrompt, Scenario, get_scenario, scenario_names
from ridgeline.llm.session import open_backend
from ridgeline.llm.settings import Completion, GenerationSettings, is_reasoning_model

__all__ = [
    "BACKENDS",
    "Backend",
    "make_backend",
    "ResponseCache",
    "cache_key",
    "default_cache_path",
    "LLMClient",
    "EMBEDDED_MODEL",
    "EmbeddedServer",
    "gguf_path",
    "AuthenticationError",
    "ContextLengthError",
    "EndpointError",
    "HttpClient",
    "ModelNotFoundError",
    "PARSERS",
    "parse_roofline_class",
    "Item",
    "ItemResult",
    "run_items",
    "KernelPrompt",
    "Scenario",
    "get_scenario",
    "scenario_names",
    "open_backend",
    "Completion",
    "GenerationSettings",
    "is_reasoning_model",
]
