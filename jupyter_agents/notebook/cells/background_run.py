"""What a ``%%agent --background`` cell returns: a handle on the run that goes on while later
cells run (``_``, and the ``--out`` variable).

``await handle`` waits for the run and gives its result; ``handle.result()`` gives it once the
run has ended (a cell cannot block the kernel's loop that runs it, so while it goes on this says
to await it instead); ``handle.cancel()`` stops it as its Stop button does; ``handle.status`` is
what the runs panel shows.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Generator

    from ...runtime.result import RunResultStreaming
    from ..run_registry import RunRecord

__all__ = ["BackgroundRun", "RunStillGoing"]


class RunStillGoing(RuntimeError):
    """``result()`` of a run that has not ended."""


class BackgroundRun:
    """A run going on in the background; see the module docstring."""

    def __init__(self, cell: str, agent: str, record: RunRecord | None) -> None:
        self.cell = cell
        """The cell that started it."""
        self.agent = agent
        self._record = record
        self._task: asyncio.Task[None] | None = None
        self._result_of: Callable[[], RunResultStreaming | None] = lambda: None
        self._error: BaseException | None = None

    def start(
        self, task: asyncio.Task[None], result_of: Callable[[], RunResultStreaming | None]
    ) -> None:
        """Follow ``task`` (the run's driver); ``result_of`` gives the run's result once the
        driver has started it."""
        self._task, self._result_of = task, result_of

    def failed(self, error: BaseException) -> None:
        """The run ended with ``error`` (its card says it in full)."""
        self._error = error

    @property
    def status(self) -> str:
        """``running``, ``waiting`` (for a person), ``done``, ``failed`` or ``cancelled``."""
        record = self._record
        status = record.status if record is not None else "running"
        if status in ("background", "running", "waiting"):  # going on: waiting if a call is
            return "waiting" if record is not None and record.pending else "running"
        return status

    def done(self) -> bool:
        """Whether the run has ended (done, failed or cancelled)."""
        return self._task is not None and self._task.done()

    def cancel(self) -> None:
        """Stop the run, as its Stop button does (what it did so far is kept)."""
        result = self._result_of()
        if result is not None and not self.done():
            result.cancel()

    def result(self) -> RunResultStreaming:
        """The run's result, once it has ended.

        Raises:
            RunStillGoing: The run goes on (``await`` the handle to wait for it).
            AgentRunError: The run failed (the card shows why).
        """
        result = self._result_of()
        if not self.done() or result is None:
            raise RunStillGoing(
                f"the run of cell {self.cell} is still going ({self.status}): "
                "`await` the handle to wait for it, or call result() once it has ended."
            )
        if self._error is not None and not isinstance(self._error, asyncio.CancelledError):
            raise self._error
        return result

    def __await__(self) -> Generator[Any, None, RunResultStreaming]:
        async def wait() -> RunResultStreaming:
            if self._task is not None:
                await asyncio.shield(self._task)
            return self.result()

        return wait().__await__()

    def __repr__(self) -> str:
        return f"<BackgroundRun of {self.agent} from cell {self.cell}: {self.status}>"
