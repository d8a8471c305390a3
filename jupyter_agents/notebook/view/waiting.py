"""What a ``%%agent`` run waits for, once it has waited ``SHOW_AFTER`` seconds: the model
(at which server, which attempt), a tool, or the person.

The cell's driver calls ``WaitWatch.check`` on its tick (ten times a second); nothing runs
per event. The model's wait comes from the runtime (``RunResultStreaming.model_wait``, set once
per call), the tools' from the run's hooks, the person's from the run list's pending requests.
A wait reaches the widget's header and the runs panel as a ``widget_state.Wait``; each
frontend adds the time since it began.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ...runtime.lifecycle import RunHooks
from ...runtime.model_wait import ModelWait, endpoint_of
from ..run_registry import RunRecord, RunRegistry
from .view_protocol import LiveView
from .widget_state import Header, Wait

if TYPE_CHECKING:
    from ...runtime.tools import Tool

__all__ = ["SHOW_AFTER", "ToolClock", "WaitWatch", "Waiting", "set_header_wait", "waiting_for"]

logger = logging.getLogger(__name__)

SHOW_AFTER = 5.0
"""Seconds a wait lasts before the run's views say what it waits for."""

SHOWN_TOOLS = 3
"""Tools named in a line; more are counted."""


@dataclass(frozen=True)
class Waiting:
    """What a run waits for now."""

    on: Literal["model", "tool", "person"]
    text: str
    """``waiting for ...``, without the time (each frontend adds it)."""
    since: float
    """``time.monotonic()`` when the wait began."""


def waiting_for(
    model: ModelWait | None,
    tools: Mapping[str, tuple[str, float]],
    person: tuple[str, float] | None,
) -> Waiting | None:
    """What the run waits for: the person first (only they can move it on), then the model,
    then the tools running (``tools``: name and start by call id).

    ``person``: what the person is asked (``"your approval"``) and since when.
    """
    if person is not None:
        return Waiting("person", f"waiting for {person[0]}", person[1])
    if model is not None:
        where = model.where()
        if where is None:
            text = "waiting for the model"
        elif endpoint_of(model.model):
            text = f"waiting for the model at {where}"
        else:
            text = f"waiting for the model {where}"
        if model.attempt > 1:
            text += f" · attempt {model.attempt} of {model.attempts}"
        return Waiting("model", text, model.since)
    if tools:
        started = sorted(tools.values(), key=lambda t: t[1])
        names = list(dict.fromkeys(name for name, _ in started))
        shown = ", ".join(names[:SHOWN_TOOLS])
        more = f" and {len(names) - SHOWN_TOOLS} more" if len(names) > SHOWN_TOOLS else ""
        text = f"waiting for tool {shown}" if len(names) == 1 else f"waiting for tools {shown}"
        return Waiting("tool", text + more, started[0][1])
    return None


def set_header_wait(header: Header, wait: Wait | None) -> bool:
    """Put ``wait`` in a view's header (None: take it out); whether the header changed."""
    if header.get("wait") == wait:
        return False
    if wait is None:
        header.pop("wait", None)
    else:
        header["wait"] = wait
    return True


class ToolClock(RunHooks[Any]):
    """The run's hooks that note when each tool call starts and ends: the calls running."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.running: dict[str, tuple[str, float]] = {}
        """Name and start of each call running now, by call id."""

    async def on_tool_start(self, context: Any, agent: Any, tool: Tool) -> None:
        self.running[_call_id(context)] = (tool.name, self._clock())

    async def on_tool_end(self, context: Any, agent: Any, tool: Tool, result: Any) -> None:
        self.running.pop(_call_id(context), None)


def _call_id(context: Any) -> str:
    return str(getattr(context, "tool_call_id", None) or id(context))


class WaitWatch:
    """Shows on a run's view and in the run list what the run waits for, from
    ``SHOW_AFTER`` seconds into a wait until it ends."""

    def __init__(
        self,
        view: LiveView,
        runs: RunRegistry,
        record: RunRecord,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._view, self._runs, self._record = view, runs, record
        self._clock = clock
        self._epoch = wall() - clock()
        """Wall time at the clock's zero, taken once: a wait's ``since`` stays the same number
        from one tick to the next (computed each tick, it moved by a millisecond)."""
        self.tools = ToolClock(clock)
        """The hooks to give the run (they see its tool calls start and end)."""
        self._asked: dict[str, float] = {}
        """When each pending request was first seen, by request id."""
        self._shown: tuple[str, str, float] | None = None

    def check(self, model: ModelWait | None) -> None:
        """Show what the run waits for now (``model``: the runtime's model wait), if it has
        waited long enough; a display problem never reaches the run."""
        try:
            self._check(model)
        except Exception:
            logger.debug("could not show what the run waits for", exc_info=True)

    def _check(self, model: ModelWait | None) -> None:
        now = self._clock()
        waiting = waiting_for(model, self.tools.running, self._person(now))
        if waiting is None or now - waiting.since < SHOW_AFTER:
            self._show(None, None)
            return
        since = round((self._epoch + waiting.since) * 1000)
        wait: Wait = {"on": waiting.on, "text": waiting.text, "since": since}
        self._show((waiting.on, waiting.text, waiting.since), wait)

    def _person(self, now: float) -> tuple[str, float] | None:
        """What the person is asked, and since when (None: nothing)."""
        pending = self._record.pending
        for request in list(self._asked):
            if request not in pending:
                del self._asked[request]
        if not pending:
            return None
        for request in list(pending):
            self._asked.setdefault(request, now)
        questions = all("question" in call for call in list(pending.values()))
        return ("your answer" if questions else "your approval", min(self._asked.values()))

    def _show(self, key: tuple[str, str, float] | None, wait: Wait | None) -> None:
        if key == self._shown:
            return
        self._shown = key
        self._view.set_wait(wait)
        self._runs.update(self._record, wait=wait)
