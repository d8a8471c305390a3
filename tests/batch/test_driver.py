"""The batch driver: one loop for every backend. A backend defined here (rows in chunks, answered
on the test's signal) goes through the same loop as the local and Ray ones: the concurrency,
Stop, 429s, the store and the progress all hold for it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_agents import Agent, RunConfig
from jupyter_agents.runtime.batch.driver import Batch, BatchControl, drive
from jupyter_agents.runtime.batch.limits import AdaptiveConcurrency, RateLimiter
from jupyter_agents.runtime.batch.result import RowResult
from jupyter_agents.runtime.batch.row import RowOutcome, RowSettings
from jupyter_agents.runtime.batch.rows import BatchRows
from jupyter_agents.runtime.batch.store import ResultsStore

from .row_model import RowModel


class Events:
    """A progress that keeps what it was told, and the most rows it saw in flight."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.done: list[int] = []
        self.peak = 0
        self.finished: tuple[float, bool] | None = None
        self.on_done: Any = None

    def start(self, total: int, done: list[RowResult]) -> None:
        self.total = total

    def row_started(self, index: int) -> None:
        self.started.append(index)
        self.peak = max(self.peak, len(self.started) - len(self.done))

    def row_done(self, index: int, row: RowResult) -> None:
        self.done.append(index)
        if self.on_done is not None:
            self.on_done(len(self.done))

    def finish(self, seconds: float, stopped: bool) -> None:
        self.finished = (seconds, stopped)


class ChunkBackend:
    """Runs rows ``chunk`` at a time; each row answers its prompt once its gate (if any) opens,
    and reports the 429s listed for it."""

    def __init__(self, batch: Batch, chunk: int, rate_limited: dict[int, int] | None = None):
        self.batch = batch
        self.chunk = chunk
        self.rate_limited = rate_limited or {}
        self.gates: dict[int, asyncio.Event] = {}
        self.calls: list[list[int]] = []
        self.admitted: list[int] = []
        self.closed = False
        self.on_call: Any = None

    async def admit(self, index: int) -> None:
        self.admitted.append(index)

    async def run(self, indexes: list[int]) -> list[RowOutcome]:
        self.calls.append(indexes)
        if self.on_call is not None:
            self.on_call(len(self.calls))
        outcomes = []
        for index in indexes:
            if index in self.gates:
                await self.gates[index].wait()
            rows = self.batch.rows
            row = RowResult(rows.keys[index], rows.labels[index], "ok", rows.prompts[index])
            outcomes.append(RowOutcome(row, rate_limited=self.rate_limited.get(index, 0)))
        return outcomes

    def close(self) -> None:
        self.closed = True


def make_batch(rows: int, concurrency: int, progress: Events) -> Batch:
    settings = RowSettings(
        agent=Agent(name="a", model=RowModel()),
        run_config=RunConfig(),
        max_turns=None,
        approve="deny",
    )
    return Batch(
        rows=BatchRows.of([f"row {i}" for i in range(rows)], None),
        batch_id="test",
        store=ResultsStore(":memory:"),
        settings=settings,
        concurrency=AdaptiveConcurrency(concurrency),
        limiter=RateLimiter(),
        progress=progress,
        control=BatchControl(),
    )


async def test_a_backend_of_chunks_runs_every_row_once_within_the_concurrency() -> None:
    events = Events()
    batch = make_batch(10, concurrency=4, progress=events)
    backend = ChunkBackend(batch, chunk=3)
    result = await drive(batch, backend, decisions={})
    assert result.counts == {"ok": 10} and not result.stopped
    assert [i for call in backend.calls for i in call] == list(range(10))  # in order, once
    assert max(len(call) for call in backend.calls) == 3 and events.peak == 4
    assert backend.admitted == events.started == list(range(10))  # admitted, then started
    assert sorted(events.done) == list(range(10)) and events.finished is not None
    stored = batch.store.rows("test")
    assert {row.output for row in stored.values()} == {f"row {i}" for i in range(10)}
    assert backend.closed


async def test_a_stop_starts_no_new_call_and_the_rest_is_pending() -> None:
    events = Events()
    batch = make_batch(10, concurrency=2, progress=events)
    backend = ChunkBackend(batch, chunk=1)
    backend.gates = {3: asyncio.Event()}

    def stop_at_the_third(done: int) -> None:
        if done == 3:
            batch.control.stop()
            backend.gates[3].set()

    events.on_done = stop_at_the_third
    result = await drive(batch, backend, decisions={})
    assert backend.calls == [[0], [1], [2], [3]]  # row 3, in flight at the Stop, finishes
    assert result.stopped and result.counts == {"ok": 4, "pending": 6}
    assert events.finished is not None and events.finished[1] is True


async def test_429s_a_backend_reports_halve_the_concurrency() -> None:
    batch = make_batch(4, concurrency=4, progress=Events())
    result = await drive(batch, ChunkBackend(batch, chunk=4, rate_limited={1: 1}), decisions={})
    assert result.rate_limited == 1 and batch.concurrency.limit == 2
    assert result.counts == {"ok": 4}


async def test_rows_finished_before_a_cancel_are_stored() -> None:
    batch = make_batch(3, concurrency=3, progress=Events())
    backend = ChunkBackend(batch, chunk=1)
    backend.gates = {i: asyncio.Event() for i in range(3)}
    all_in_flight = asyncio.Event()
    backend.on_call = lambda n: all_in_flight.set() if n == 3 else None
    running = asyncio.ensure_future(drive(batch, backend, decisions={}))
    await asyncio.wait_for(all_in_flight.wait(), timeout=10)
    backend.gates[0].set()
    running.cancel()  # row 0 ends in the same turn of the loop as the cancel arrives
    with pytest.raises(asyncio.CancelledError):
        await running
    assert list(batch.store.rows("test")) == [batch.rows.keys[0]]
    assert backend.closed
