"""Executing the tool calls of one model response: each call through its steps, all at once.

The batch runs the steps in order and knows nothing of where an answer comes from: deciding,
invoking and reporting go through the run's ``CallSteps`` (``.tool_steps``), which a run with
a cassette wraps to record and replay (``.tool_replay``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ..events import RunItemStreamEvent
from ..items import ToolApprovalItem, ToolCallItem, ToolCallOutputItem
from ..tools.lookup_names import call_lookup_name
from .tool_call import ToolCall, ToolRun, check_arguments, escalate, open_call, resume_escalation
from .tool_replay import steps_for

if TYPE_CHECKING:
    from ..run_state import RunState
    from .tool_steps import CallSteps

__all__ = ["ToolBatch"]

_DONE = object()


class ToolBatch:
    """The tool calls of one response: run together, reported as each finishes.

    Iterate ``run`` for the events (approval requests, outputs in completion order);
    afterwards ``outputs`` holds the outputs in call order, which is the order the model
    gets them back in, and ``interruptions`` the calls waiting for a decision.
    """

    def __init__(
        self, run: ToolRun, calls: Sequence[ToolCallItem], steps: CallSteps | None = None
    ) -> None:
        self._run = run
        self._calls = calls
        self._steps = steps if steps is not None else steps_for(run)
        """Decide, invoke and report (the run's: ``steps_for``)."""
        self._results: list[ToolCallOutputItem | None] = [None] * len(calls)
        self._queue: asyncio.Queue[Any] | None = None
        self.interruptions: list[ToolApprovalItem] = []
        """Calls waiting for a person's decision (a nested agent tool's calls included)."""
        self.nested: dict[str, RunState] = {}
        """Paused nested runs of agent tools, by the outer call id."""
        self.escalations: dict[str, str] = {}
        """The arguments of waiting calls that ask to leave the sandbox after it stopped them
        (``on-failure``), by call id."""

    @property
    def outputs(self) -> list[ToolCallOutputItem]:
        """Outputs of the calls that finished, in call order."""
        return [item for item in self._results if item is not None]

    async def run(self) -> AsyncGenerator[RunItemStreamEvent, None]:
        """Start every call at once; yield events as they happen."""
        calls, enabled = self._calls, self._run.enabled
        forwarding = any(
            (tool := enabled.get(call_lookup_name(c.raw_item, c.tool_name or ""))) is not None
            and tool.forwards_events
            for c in calls
        )
        if len(calls) == 1 and not forwarding:  # the common case: no task, no queue
            async with aclosing(self._run_one(0, calls[0])) as events:
                async for event in events:
                    yield event
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._queue = queue
        tasks = [asyncio.ensure_future(self._feed(i, call, queue)) for i, call in enumerate(calls)]
        try:
            remaining = len(tasks)
            while remaining:
                event = await queue.get()
                if event is _DONE:
                    remaining -= 1
                elif isinstance(event, BaseException):
                    raise event
                else:
                    yield event
        finally:
            pending = [task for task in tasks if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    async def _feed(self, index: int, call: ToolCallItem, queue: asyncio.Queue[Any]) -> None:
        try:
            async with aclosing(self._run_one(index, call)) as events:
                async for event in events:
                    queue.put_nowait(event)
        except Exception as e:
            queue.put_nowait(e)
        queue.put_nowait(_DONE)

    async def _run_one(
        self, index: int, item: ToolCallItem
    ) -> AsyncGenerator[RunItemStreamEvent, None]:
        """One call through its steps, in order: open, check arguments, decide, invoke (or
        refuse), escalate, report. Escalating sends a call the sandbox stopped through decide
        and invoke once more; a call with nobody to decide, or whose nested run paused, waits
        instead of reporting."""
        run, steps = self._run, self._steps
        call = open_call(index, item, run)
        outcome = check_arguments(call)
        if run.waiting.escalations:
            resume_escalation(call, run.waiting)
        while outcome is None:  # once; again for a call escalated out of the sandbox
            async with aclosing(steps.decide(call)) as deciding:
                async for event in deciding:
                    yield event
            if call.verdict == "waiting":  # nobody decides now: the run pauses with the call
                self._wait(call)
                return
            if call.verdict == "refused":
                outcome = await steps.refusal(call)
            else:
                sink = self._queue.put_nowait if self._queue is not None else None
                outcome = await steps.invoke(call, sink)
                if outcome is None:  # an agent tool's nested run paused: so does this run
                    self._wait(call)
                    return
            if escalate(call, outcome):  # the sandbox stopped it: ask to run it outside
                outcome = None
        output = self._results[index] = steps.report(call, outcome)
        yield RunItemStreamEvent(name="tool_output", item=output)

    def _wait(self, call: ToolCall) -> None:
        """The call waits for a person: an approval it asked for, or its nested run's."""
        if call.nested is not None:
            self.nested[call.parsed.call_id] = call.nested
            self.interruptions.extend(
                i for i in call.nested.interruptions if isinstance(i, ToolApprovalItem)
            )
            return
        assert call.asked is not None
        self.interruptions.append(call.asked)
        if call.escalation is not None:
            self.escalations[call.parsed.call_id] = call.arguments
