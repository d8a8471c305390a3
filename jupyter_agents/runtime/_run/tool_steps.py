"""The steps of a call that act: decide, invoke (or answer the refusal) and report.

The batch (``ToolBatch._run_one``) runs every call through one ``CallSteps`` and never asks
where an answer comes from. ``LiveSteps`` decides with the tool's ``needs_approval`` and the
run's approvals (``.tool_approvals``), runs the tool (``.tool_invoke``) and reports its output
(``.tool_call.report``). A run with a cassette wraps them (``.tool_replay.ReplaySteps``): it
records, and answers a replayed call from the recording, with the same interface.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Protocol

from .tool_approvals import Approvals, needs_approval
from .tool_call import ToolCall, ToolRun, Verdict, report
from .tool_checks import Outcome
from .tool_invoke import EventSink, invoke

if TYPE_CHECKING:
    from ..approvals import ApprovalDecision
    from ..events import RunItemStreamEvent
    from ..items import ToolCallOutputItem

__all__ = ["CallSteps", "LiveSteps", "verdict_of"]


class CallSteps(Protocol):
    """The steps the batch runs each call through (the order: ``ToolBatch._run_one``)."""

    def decide(self, call: ToolCall) -> AsyncGenerator[RunItemStreamEvent, None]:
        """Decide whether ``call`` runs, yielding the approval request when a person is asked.

        Afterwards ``call.verdict`` says what to do (``Verdict``), ``call.decision`` holds the
        decision made (edited arguments applied to ``call.arguments``) and ``call.asked`` the
        approval item when the call waits."""
        ...

    async def refusal(self, call: ToolCall) -> Outcome:
        """The answer to a call whose verdict is ``refused``."""
        ...

    async def invoke(self, call: ToolCall, sink: EventSink | None) -> Outcome | None:
        """Run ``call`` (or answer it without running); None when an agent tool's nested run
        paused (``call.nested``)."""
        ...

    def report(self, call: ToolCall, outcome: Outcome) -> ToolCallOutputItem:
        """The output item answering ``call`` with ``outcome``."""
        ...


def verdict_of(decision: ApprovalDecision | None) -> Verdict:
    """The verdict of a call that needed a decision: ``decision``'s, or ``waiting``."""
    if decision is None:
        return "waiting"
    return "approved" if decision.approved else "refused"


class LiveSteps:
    """The steps of a run without a cassette: the tool decides whether a person is asked, the
    run's approvals decide, the tool runs."""

    def __init__(self, run: ToolRun) -> None:
        self.run = run
        self._approvals: Approvals | None = None

    async def decide(self, call: ToolCall) -> AsyncGenerator[RunItemStreamEvent, None]:
        call.verdict = "run"
        # A decision made for this very call (a resumed run) is used as it is: its tool's
        # needs_approval is not asked again, as in the SDK. A call with no tool to run (one the
        # mode or the agent does not offer now) is refused later, decision or not.
        decided = call.tool is not None and self.run.ledger.holds(
            call.key, call.parsed.call_id, call.arguments
        )
        if not decided and not await self.needs_approval(call):
            return
        async with aclosing(self.ask(call)) as asking:
            async for event in asking:
                yield event

    async def needs_approval(self, call: ToolCall) -> bool:
        """Whether ``call`` waits for a decision (its tool's ``needs_approval``)."""
        return await needs_approval(self.run, call)

    async def ask(self, call: ToolCall) -> AsyncGenerator[RunItemStreamEvent, None]:
        """Decide ``call``, which needs a decision: the ledger, the tool's ``on_approval``,
        then the run's approval handler (see ``Approvals``)."""
        async with aclosing(self._decider().decide(call)) as deciding:
            async for event in deciding:
                yield event
        call.verdict = verdict_of(call.decision)

    async def refusal(self, call: ToolCall) -> Outcome:
        return await self._decider().refusal(call)

    async def invoke(self, call: ToolCall, sink: EventSink | None) -> Outcome | None:
        return await invoke(self.run, call, call.verdict == "approved", sink)

    def report(self, call: ToolCall, outcome: Outcome) -> ToolCallOutputItem:
        return report(call, outcome, self.run.agent)

    def _decider(self) -> Approvals:
        """The batch's approvals (made when a call first needs one: most batches need none)."""
        if self._approvals is None:
            self._approvals = Approvals(self.run)
        return self._approvals
