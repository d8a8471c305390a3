"""The batch's one loop: start rows while the concurrency allows, keep each as it finishes.

Where rows run is a ``RowBackend``: ``LocalBackend`` (tasks on this event loop) or
the Ray backend (actors on a cluster). The loop owns everything else, whichever the backend:
the order rows start in, the concurrency and its 429 back-off, Stop, the results store, the
rows' recordings (merged into the caller's cassette as rows finish, the file written when the
batch ends), the progress and the result.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..blocking import run_blocking
from .budget import BatchBudget
from .limits import AdaptiveConcurrency, RateLimiter
from .progress import BatchProgress
from .result import BatchResult, RowResult
from .row import RowJob, RowOutcome, RowResume, RowSettings, run_row
from .rows import BatchRows, prompt_hash
from .store import BatchCassette, ResultsStore, StoredRow
from .window import Window

__all__ = ["Batch", "BatchControl", "LocalBackend", "RowBackend", "drive", "rows_to_run"]

Decisions = dict[str, dict[str, dict[str, Any]]]
"""Review decisions by row key, then by call id."""


class BatchControl:
    """Stop a running batch: in-flight rows finish, no new row starts."""

    def __init__(self) -> None:
        self._stop_requested = False

    def stop(self) -> None:
        """Ask the batch to stop (from any thread)."""
        self._stop_requested = True

    @property
    def stopping(self) -> bool:
        """Whether ``stop`` was called."""
        return self._stop_requested


@dataclass
class Batch:
    """One batch being run: its rows and everything the loop keeps across them."""

    rows: BatchRows
    batch_id: str
    """The hash of the batch's identity (its key in the store)."""
    store: ResultsStore
    settings: RowSettings
    concurrency: AdaptiveConcurrency
    limiter: RateLimiter
    """Requests and tokens per minute, across all rows."""
    progress: BatchProgress
    control: BatchControl
    results: list[RowResult | None] = field(default_factory=list)
    """Each row's result so far, by position (None: not run yet)."""
    cassette: BatchCassette | None = None
    """The caller's cassette (``run_batch(cassette=...)``), which rows record into."""
    budget: BatchBudget = field(default_factory=lambda: BatchBudget(None))
    """What the rows cost, and the budget that stops starting rows (``max_cost_usd``)."""


class RowBackend(Protocol):
    """Where rows run. The loop calls ``admit`` for each row, then ``run`` with up to
    ``chunk`` admitted rows, and ``close`` once at the end."""

    chunk: int
    """The most rows one ``run`` call takes."""

    async def admit(self, index: int) -> None:
        """Wait until row ``index`` may start (the loop starts none meanwhile)."""

    async def run(self, indexes: list[int]) -> list[RowOutcome]:
        """Run these rows; one outcome each, in order. A row's own failure is a ``failed``
        row; an exception here is a bug of the batch and ends it."""

    def close(self) -> None:
        """Release what the backend holds (the batch is over)."""


class LocalBackend:
    """Rows run on this event loop, each its own task; the batch's limiter holds every model
    request of every row (it is the rows' run hooks)."""

    chunk = 1

    def __init__(self, batch: Batch, decisions: Decisions) -> None:
        self._batch = batch
        self._settings = dataclasses.replace(batch.settings, hooks=batch.limiter)
        self._decisions = decisions

    async def admit(self, index: int) -> None:
        """Start at once: the limiter waits inside the run, before each model request."""

    async def run(self, indexes: list[int]) -> list[RowOutcome]:
        """Run the row (one: ``chunk`` is 1), resuming it if the review decided it."""
        (index,) = indexes
        rows, key = self._batch.rows, self._batch.rows.keys[index]
        resume = None
        decided = self._decisions.get(key)
        if decided is not None:
            stored = self._batch.store.row(self._batch.batch_id, key)
            resume = RowResume(stored.state if stored is not None else None, decided)
        job = RowJob(rows.prompts[index], key, rows.labels[index], resume)
        return [await run_row(self._settings, job, self._batch.budget.live)]

    def close(self) -> None:
        """Nothing to release."""


async def drive(batch: Batch, backend: RowBackend, decisions: Decisions) -> BatchResult:
    """Run the rows to run (see ``rows_to_run``) on ``backend``; returns the result."""
    try:
        todo = rows_to_run(batch, decisions)
        await _pump(batch, backend, collections.deque(todo))
    finally:
        try:
            backend.close()
        finally:
            if batch.cassette is not None:
                batch.cassette.close()  # the file, once, whether the batch ended or failed
    return batch_result(batch)


async def _pump(batch: Batch, backend: RowBackend, todo: collections.deque[int]) -> None:
    started = time.monotonic()
    in_flight = Window()
    running = 0
    try:
        while True:
            while (
                todo
                and not batch.control.stopping
                and running < batch.concurrency.limit
                and batch.budget.may_start(running)
            ):
                size = min(backend.chunk, len(todo), batch.concurrency.limit - running)
                indexes = [todo.popleft() for _ in range(size)]
                for index in indexes:
                    await backend.admit(index)
                    batch.progress.row_started(index)
                in_flight.add(asyncio.ensure_future(backend.run(indexes)), indexes)
                running += size
            if not len(in_flight):
                break
            future, indexes = await in_flight.next()
            running -= len(indexes)
            _keep(batch, indexes, future.result())  # a bug of the batch, not a row, raises
    except BaseException:
        # Rows that ended as the batch was interrupted are kept, as if it had not been.
        for future, indexes in in_flight.take_finished():
            if not future.cancelled() and future.exception() is None:
                _keep(batch, indexes, future.result())
        await in_flight.cancel_all()
        raise
    finally:
        batch.progress.finish(time.monotonic() - started, batch.control.stopping)


def _keep(batch: Batch, indexes: list[int], outcomes: Sequence[RowOutcome]) -> None:
    for index, outcome in zip(indexes, outcomes, strict=True):
        for _ in range(outcome.rate_limited):
            batch.concurrency.on_rate_limited()
        if outcome.row.status != "failed" and not outcome.rate_limited:
            batch.concurrency.on_success()
        record(batch, index, outcome)


def rows_to_run(batch: Batch, decisions: Decisions) -> list[int]:
    """The rows to run, in order: those the store lacks (or whose prompt changed), or, when
    resuming, the decided ones. The others are taken from the store, and progress starts."""
    stored = batch.store.rows(batch.batch_id)
    batch.results = [None] * len(batch.rows)
    todo: list[int] = []
    for i, key in enumerate(batch.rows.keys):
        row = stored.get(key)
        if decisions:
            if key in decisions and row is not None and row.status == "waiting":
                todo.append(i)
            elif row is not None:
                batch.results[i] = _from_store(batch, i, row)
            continue
        if row is not None and row.prompt_hash == prompt_hash(batch.rows.prompts[i]):
            batch.results[i] = _from_store(batch, i, row)
        else:
            todo.append(i)
    batch.progress.start(len(batch.rows), [r for r in batch.results if r is not None])
    return todo


def record(batch: Batch, index: int, outcome: RowOutcome) -> None:
    """Keep a finished row: its recordings in the cassette (first: a row in the store is not
    run again, so its recording must not be lost), in the result, in the store (at once,
    unless a strict cassette refused it), and in the progress."""
    row = outcome.row
    if batch.cassette is not None and outcome.recordings is not None:
        batch.cassette.merge(outcome.recordings)
    batch.results[index] = row
    stored = StoredRow(
        key=row.key,
        prompt_hash=prompt_hash(batch.rows.prompts[index]),
        status=row.status,
        output=row.output,
        error=row.error,
        tokens=row.tokens,
        seconds=row.seconds,
        state=outcome.state,
        waiting=row.waiting,
        tool_calls=row.tool_calls,
        cost_usd=row.cost_usd,
    )
    if outcome.stored:
        batch.store.put(batch.batch_id, stored)
    batch.budget.row_done(row)
    batch.progress.row_done(index, row)


def batch_result(batch: Batch) -> BatchResult:
    """The batch's result as it stands (rows never run are ``pending``); its ``resume()``
    runs the decided rows here, whichever backend ran the batch."""
    rows = [
        r if r is not None else RowResult(key, label, "pending")
        for r, key, label in zip(batch.results, batch.rows.keys, batch.rows.labels, strict=True)
    ]

    def resume(previous: BatchResult) -> BatchResult:
        decided, previous.decisions = dict(previous.decisions), {}
        batch.control = BatchControl()
        batch.budget.stopped = False
        return run_blocking(drive(batch, LocalBackend(batch, decided), decided))

    return BatchResult(
        rows,
        batch.batch_id,
        batch.rows.index_name,
        stopped=batch.control.stopping or batch.budget.stopped,
        rate_limited=batch.concurrency.rate_limited,
        cost=batch.budget.projection(batch.results),
        _resume=resume,
    )


def _from_store(batch: Batch, index: int, row: StoredRow) -> RowResult:
    return RowResult(
        key=row.key,
        label=batch.rows.labels[index],
        status=row.status,  # type: ignore[arg-type]
        output=row.output,
        error=row.error,
        tokens=row.tokens,
        seconds=row.seconds,
        waiting=row.waiting,
        from_store=True,
        tool_calls=row.tool_calls,
        cost_usd=row.cost_usd,
    )
