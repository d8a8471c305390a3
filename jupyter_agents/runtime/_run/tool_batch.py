"""Executing the tool calls of one model response: each call through its steps, all at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ..events import RunItemStreamEvent
from ..items import ToolApprovalItem, ToolCallItem, ToolCallOutputItem
from ..tools.kinds import describe_call
from ..tools.live_output import streamer
from .tool_approvals import Approvals, needs_approval
from .tool_call import (
    ToolCall,
    ToolRun,
    check_arguments,
    escalate,
    open_call,
    report,
    resume_escalation,
)
from .tool_checks import Outcome
from .tool_invoke import invoke

if TYPE_CHECKING:
    from ..replay import RunReplay
    from ..replay.recorded import RecordedOutput
    from ..run_state import RunState

__all__ = ["ToolBatch"]

_DONE = object()


class ToolBatch:
    """The tool calls of one response: run together, reported as each finishes.

    Iterate ``run`` for the events (approval requests, outputs in completion order);
    afterwards ``outputs`` holds the outputs in call order, which is the order the model
    gets them back in, and ``interruptions`` the calls waiting for a decision.
    """

    def __init__(self, run: ToolRun, calls: Sequence[ToolCallItem]) -> None:
        self._run = run
        self._calls = calls
        self._results: list[ToolCallOutputItem | None] = [None] * len(calls)
        self._queue: asyncio.Queue[Any] | None = None
        self._approvals: Approvals | None = None
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
            (tool := enabled.get(c.tool_name or "")) is not None and tool.forwards_events
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
        run = self._run
        call = open_call(index, item, run)
        outcome = check_arguments(call)
        if run.waiting.escalations:
            resume_escalation(call, run.waiting)
        replay = run.replay
        while outcome is None:  # once; again for a call escalated out of the sandbox
            recorded = replay.recorded_output(call.parsed.call_id, call.tool) if replay else None
            if recorded is not None:  # answered from the recording: the tool does not run
                outcome = self._replayed(call, recorded)
                break
            approved = False
            if await needs_approval(run, call):
                if replay is None or not replayed_decision(replay, run, call):
                    async with aclosing(self._decider().decide(call)) as deciding:
                        async for event in deciding:
                            yield event
                if call.decision is None:  # nobody decides now: the run pauses with the call
                    self._wait(call)
                    return
                if replay is not None:
                    replay.record_decision(call.parsed.call_id, call.decision)
                approved = call.decision.approved
                if not approved:
                    outcome = await self._decider().refusal(call)
            if outcome is None:
                sink = self._queue.put_nowait if self._queue is not None else None
                outcome = await invoke(run, call, approved, sink)
                if outcome is None:  # an agent tool's nested run paused: so does this run
                    self._wait(call)
                    return
            if escalate(call, outcome):  # the sandbox stopped it: ask to run it outside
                outcome = None
        output = self._results[index] = report(call, outcome, run.agent)
        if replay is not None:
            shown = describe_call(call.item, output)  # the card, as the person saw it
            raw = dict(output.raw_item)
            replay.record_output(call.parsed.call_id, raw, output.output, output.status, shown)
        yield RunItemStreamEvent(name="tool_output", item=output)

    def _replayed(self, call: ToolCall, recorded: RecordedOutput) -> Outcome:
        """A call answered from the recording: its recorded output and printed text, and the
        decision recorded with it, shown as recorded (data: nothing runs on it)."""
        replay = self._run.replay
        assert replay is not None
        call.decision = replay.shown_decision(call.parsed.call_id)
        if call.decision is not None:
            replay.record_decision(call.parsed.call_id, call.decision, shown=True)
        show = streamer(call.parsed.call_id) if recorded.printed else None
        if show is not None:
            show(recorded.printed)  # what it printed then, where it prints now
        return Outcome(recorded)

    def _decider(self) -> Approvals:
        """The batch's approvals (made when a call first needs one: most batches need none)."""
        if self._approvals is None:
            self._approvals = Approvals(self._run)
        return self._approvals

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


def replayed_decision(replay: RunReplay, run: ToolRun, call: ToolCall) -> bool:
    """Decide ``call`` as the person did when they recorded this run (their own recording
    only: ``RunReplay.recorded_decision``); whether it was. A call decided alone (an
    escalation out of the sandbox, a dangerous command) is asked again, as is a call whose
    card shows what the notebook holds now (the cell tools: what the person approved then may
    not be what will run now); recorded edited arguments that the tool's schema refuses are
    not used: the call is asked."""
    decision = replay.recorded_decision(call.parsed.call_id)
    tool = call.tool
    if decision is None or tool is None:
        return False
    if call.kind.decided_alone(call.arguments, tool, run.run_config) or tool.always_asks:
        return False
    if tool.describe_this_call is not None:
        return False  # its card is made from the notebook now, not from the call: ask again
    if decision.approved and decision.arguments is not None:
        if tool.validate_arguments(decision.arguments) is not None:
            return False
        call.arguments = json.dumps(decision.arguments)
    call.decision = decision
    return True
