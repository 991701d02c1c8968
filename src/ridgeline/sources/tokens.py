"""Offline o200k token counting (the encoding of GPT-4o / o1 / o3) and the paper's cutoff.

The 2025 roofline paper counted the tokens of each program's concatenated source with
tiktoken's ``o200k_base`` and dropped programs over 8,000 tokens. tiktoken downloads its
encodings at run time, so ridgeline uses a package that bundles the encoding instead:
``quicktok-v1`` (preferred) or ``bpe-openai``. Both give tiktoken's ``encode_ordinary`` ids.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ridgeline.errors import MissingDependencyError, UsageError

__all__ = [
    "PAPER_CUTOFF",
    "ENCODINGS",
    "count_tokens",
    "encode",
    "decode",
    "truncate_tokens",
    "within_cutoff",
    "tokenizer_name",
]

#: the 2025 paper kept only programs whose concatenated source has at most this many tokens
PAPER_CUTOFF = 8000
#: encodings the bundled tokenizers provide
ENCODINGS = ("o200k_base", "cl100k_base")
_INSTALL = "pip install 'ridgeline[llm]'  (or: pip install quicktok-v1)"


@lru_cache(maxsize=4)
def _encoder(encoding: str) -> tuple[str, Any]:
    if encoding not in ENCODINGS:
        raise UsageError(f"token encoding {encoding!r} is not supported; allowed: {ENCODINGS}")
    try:
        import quicktok

        return "quicktok", quicktok.get_encoding(encoding)
    except ImportError:
        pass
    try:
        import bpe_openai

        return "bpe-openai", bpe_openai.get_encoding(encoding)
    except ImportError:
        raise MissingDependencyError("an offline o200k tokenizer", _INSTALL) from None


def tokenizer_name(encoding: str = "o200k_base") -> str:
    """Which package does the counting ("quicktok" or "bpe-openai")."""
    return str(_encoder(encoding)[0])


def encode(text: str, encoding: str = "o200k_base") -> list[int]:
    """Token ids of *text*, special-token text treated as plain text (tiktoken's
    ``encode_ordinary``)."""
    kind, enc = _encoder(encoding)
    if kind == "quicktok":
        return list(enc.encode_ordinary(text))
    fn: Callable[..., list[int]] = getattr(enc, "encode_ordinary", enc.encode)
    return list(fn(text))


def decode(tokens: list[int], encoding: str = "o200k_base") -> str:
    return str(_encoder(encoding)[1].decode(tokens))


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Number of o200k tokens in *text* (what the paper's ``numTokens`` column holds)."""
    if not text:
        return 0
    return len(encode(text, encoding))


def within_cutoff(text: str, cutoff: int = PAPER_CUTOFF, encoding: str = "o200k_base") -> bool:
    """True when *text* has at most *cutoff* tokens (the paper's inclusion test)."""
    return count_tokens(text, encoding) <= cutoff


def truncate_tokens(text: str, max_tokens: int, encoding: str = "o200k_base") -> str:
    """*text* cut to its first *max_tokens* tokens (unchanged when it is shorter)."""
    if max_tokens < 1:
        raise UsageError(f"max_tokens must be >= 1, got {max_tokens}")
    toks = encode(text, encoding)
    if len(toks) <= max_tokens:
        return text
    return decode(toks[:max_tokens], encoding)
