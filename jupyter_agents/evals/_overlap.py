"""Scoring while the batch runs: each case is scored as soon as its row finishes, in the time
the batch spends waiting on the model for the other rows, so an evaluation takes about as
long as its batch. The progress shown (a widget, a text line) still gets every call."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ..runtime.batch.progress import BatchProgress
from ._scoring import Scored
from .case_run import CaseRun

__all__ = ["ScoreAsRowsFinish"]

ScoreOne = Callable[[int, CaseRun], Awaitable[Scored]]


class ScoreAsRowsFinish:
    """A ``BatchProgress`` that starts scoring each finished row (``concurrency`` at a
    time) and passes every call on to ``shown``."""

    def __init__(self, shown: BatchProgress, score: ScoreOne, concurrency: int) -> None:
        self.shown = shown
        self._score = score
        self._gate = asyncio.Semaphore(max(1, concurrency))
        self._started: dict[int, tuple[CaseRun, asyncio.Future[Scored]]] = {}

    def start(self, total: int, done: list[Any]) -> None:
        self.shown.start(total, done)

    def row_started(self, index: int) -> None:
        self.shown.row_started(index)

    def row_done(self, index: int, row: Any) -> None:
        self.shown.row_done(index, row)
        run = CaseRun.of_row(row)
        self._started[index] = (run, asyncio.ensure_future(self._gated(index, run)))

    def finish(self, seconds: float, stopped: bool) -> None:
        self.shown.finish(seconds, stopped)

    async def _gated(self, index: int, run: CaseRun) -> Scored:
        async with self._gate:
            return await self._score(index, run)

    def take(self, index: int, run: CaseRun) -> asyncio.Future[Scored] | None:
        """The scoring started for ``index`` if it scored this very run, else None (a row
        read back from the store, or one the batch changed after it finished)."""
        started = self._started.pop(index, None)
        if started is None:
            return None
        if started[0] != run:
            started[1].cancel()
            return None
        return started[1]

    def cancel(self) -> None:
        """Stop every scoring not taken (the batch failed)."""
        for _run, future in self._started.values():
            future.cancel()
        self._started.clear()
