"""Run many prompts through a cached client: concurrency, progress, one bad item never
stops the batch, a killed run resumes from the cache (nothing is asked twice)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from ridgeline.errors import BackendError, RidgelineError
from ridgeline.llm.backends import Message
from ridgeline.llm.client import LLMClient
from ridgeline.llm.http import AuthenticationError, EndpointError, ModelNotFoundError
from ridgeline.llm.pricing import cost_usd
from ridgeline.llm.scenarios import Scenario

__all__ = ["Item", "ItemResult", "run_items", "FATAL_ERRORS", "Failures"]

log = logging.getLogger(__name__)
#: errors that concern the whole run, not one item: they stop it
FATAL_ERRORS = (AuthenticationError, EndpointError, ModelNotFoundError)


@dataclass
class Item:
    """One prompt to ask: its messages (None when building them failed: see *error*)."""

    id: str
    messages: list[Message] | None
    truth: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class ItemResult:
    id: str
    truth: str | None
    answer: str | None
    correct: bool
    response: str | None
    cached: bool = False
    latency_s: float | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    #: HTTP requests made for this row in this run (0: from the cache, or never sent)
    attempts: int = 0
    #: why the row has no answer: the prompt could not be built, or the call's last error
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(d.pop("meta"))
        return d


def _one(client: LLMClient, scenario: Scenario, item: Item) -> ItemResult:
    if item.messages is None:
        return ItemResult(item.id, item.truth, None, False, None, error=item.error,
                          meta=item.meta)
    t0 = time.monotonic()
    try:
        comp = client.ask(item.messages, scenario.cache_tag)
    except FATAL_ERRORS:
        raise
    except (BackendError, RidgelineError) as e:
        return ItemResult(item.id, item.truth, None, False, None,
                          latency_s=time.monotonic() - t0,
                          attempts=e.attempts if isinstance(e, BackendError) else 0,
                          error=f"{type(e).__name__}: {e}", meta=item.meta)
    answer = scenario.parse(comp.text)
    return ItemResult(
        id=item.id,
        truth=item.truth,
        meta=item.meta,
        answer=answer,
        correct=answer is not None and answer == item.truth,
        response=comp.text,
        cached=comp.cached,
        latency_s=comp.latency_s,
        tokens_in=comp.tokens_in,
        tokens_out=comp.tokens_out,
        cost_usd=cost_usd(client.backend.model, comp.tokens_in, comp.tokens_out),
        attempts=comp.attempts,
    )


def run_items(
    client: LLMClient,
    scenario: Scenario,
    items: Sequence[Item],
    concurrency: int = 4,
    progress: bool = True,
    on_result: Callable[[ItemResult], None] | None = None,
) -> list[ItemResult]:
    """Ask every item; results in the order of *items*. Errors of one item are recorded in
    its result; errors about the endpoint (auth, URL, model) stop the run."""
    from tqdm.auto import tqdm

    results: dict[str, ItemResult] = {}
    t0 = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    with tqdm(total=len(items), desc=f"{scenario.name} {client.backend.model}",
              disable=not progress, unit="kernel") as bar:
        futs = {pool.submit(_one, client, scenario, it): it for it in items}
        try:
            for fut in as_completed(futs):
                res = fut.result()
                results[res.id] = res
                if on_result is not None:
                    on_result(res)
                bar.update(1)
        except BaseException:
            # stop at once (Ctrl-C, fatal endpoint error): answers already cached are kept
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    pool.shutdown(wait=True)
    log.info("%d items in %.1fs", len(items), time.monotonic() - t0)
    return [results[it.id] for it in items]


@dataclass(frozen=True)
class Failures:
    """The items of a run without an answer because their prompt or their call failed
    (an answer the parser could not read is not a failure: it is counted unanswered).
    *failed* holds (id, attempts, last error) per failed item, in order."""

    total: int
    failed: list[tuple[str, int, str]]

    @classmethod
    def of(cls, results: Sequence[ItemResult]) -> Failures:
        return cls(len(results), [(r.id, r.attempts, r.error) for r in results
                                  if r.error is not None])

    @property
    def all_failed(self) -> bool:
        return self.total > 0 and len(self.failed) == self.total

    def raise_if_all_failed(self, where: str = "") -> None:
        """A BackendError with the last item's error when no item got an answer (a batch
        with some answers is not an error: its failures are in the results)."""
        if self.all_failed:
            rid, attempts, error = self.failed[-1]
            raise BackendError(f"all {self.total} items failed{where}; the last one "
                               f"(item {rid}, attempts={attempts}): {error}")

    def warning(self) -> str:
        """The :meth:`lines` as a warning to print on stderr ("" when nothing failed)."""
        return "\n".join(("warning: " if i == 0 else "") + line
                         for i, line in enumerate(self.lines()))

    def lines(self, limit: int = 5) -> list[str]:
        """A summary line, then the first *limit* failed items with their last error."""
        if not self.failed:
            return []
        out = [f"{len(self.failed)} of {self.total} items failed"]
        out += [f"  item {rid} (attempts={n}): {err}" for rid, n, err in self.failed[:limit]]
        if len(self.failed) > limit:
            out.append(f"  ... and {len(self.failed) - limit} more (the error column of the "
                       "results)")
        return out
