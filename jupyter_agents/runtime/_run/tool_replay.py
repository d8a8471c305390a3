"""A run with a cassette: the live steps of its calls, wrapped to record and to replay.

``ReplaySteps`` has the batch's ``CallSteps`` interface around ``LiveSteps``. It records every
call (its decision, what it printed, its output and card) and, while the run follows its
recording, answers a call from it. The rules of docs/security.md ("A recording is data, never
a decision") hold here, and only here:

- a call answered from the recording does not run and nobody is asked: its recorded output
  and printed text come back as recorded, its recorded decision is only shown (and carried
  into the new recording marked ``foreign`` unless the recording is the person's own);
- a call that runs again and needs approval is decided as in a live run, except that the
  person's own recording may decide it as they did (``replayed_decision``); there is no third
  way.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..items import ToolCallOutputItem
from ..replay.recorded import RecordedOutput
from ..tools.kinds import describe_call
from ..tools.live_output import streamer, tool_output_sink
from .tool_checks import Outcome
from .tool_steps import CallSteps, LiveSteps, verdict_of

if TYPE_CHECKING:
    from ..events import RunItemStreamEvent
    from ..replay import RunReplay
    from .tool_call import ToolCall, ToolRun
    from .tool_invoke import EventSink

__all__ = ["ReplaySteps", "replayed_decision", "steps_for"]


def steps_for(run: ToolRun) -> CallSteps:
    """The steps of ``run``'s calls: the live ones, wrapped when the run has a cassette."""
    live = LiveSteps(run)
    return live if run.replay is None else ReplaySteps(live, run.replay)


class ReplaySteps:
    """The live steps, recorded; a replayed call answered from the recording."""

    def __init__(self, live: LiveSteps, replay: RunReplay) -> None:
        self.live = live
        self.replay = replay
        self._answers: dict[str, RecordedOutput] = {}
        """Recorded outputs of the calls the decide step left to the recording, by call id."""

    async def decide(self, call: ToolCall) -> AsyncGenerator[RunItemStreamEvent, None]:
        """A recorded output answers the call (nothing is decided: the recorded decision is
        shown); else as live, the person's own recorded decision standing in for asking
        (``replayed_decision``); any decision made is recorded."""
        replay, call_id = self.replay, call.parsed.call_id
        if replay.outcome_unknown(call_id) and call.tool is not None:
            call.unknown = True  # it may have done its work: a person says whether it runs again
            async with aclosing(self.live.ask(call)) as asking:
                async for event in asking:
                    yield event
            if call.decision is not None:
                replay.record_decision(call_id, call.decision)
            return
        recorded = replay.recorded_output(call_id, call.tool)
        if recorded is not None:  # the tool does not run: the recording answers
            self._answers[call_id] = recorded
            call.verdict = "run"
            call.decision = replay.shown_decision(call_id)
            if call.decision is not None:
                replay.record_decision(call_id, call.decision, shown=True)
            return
        call.verdict = "run"
        if not await self.live.needs_approval(call):
            return
        if replayed_decision(replay, self.live.run, call):
            call.verdict = verdict_of(call.decision)
        else:
            async with aclosing(self.live.ask(call)) as asking:
                async for event in asking:
                    yield event
        if call.decision is not None:  # None: the call waits for a person
            replay.record_decision(call_id, call.decision)

    async def refusal(self, call: ToolCall) -> Outcome:
        return await self.live.refusal(call)

    async def invoke(self, call: ToolCall, sink: EventSink | None) -> Outcome | None:
        """The recorded output (what it printed then printed again, where it prints now), or
        the live call with what it prints kept for the recording."""
        recorded = self._answers.pop(call.parsed.call_id, None)
        if recorded is not None:
            show = streamer(call.parsed.call_id) if recorded.printed else None
            if show is not None:
                show(recorded.printed)
            return Outcome(recorded)
        printing = tool_output_sink.set(self.replay.tee(tool_output_sink.get()))
        if call.verdict in ("run", "approved"):
            self.replay.call_started(call.parsed.call_id)  # a durable run's journal marks it
        try:
            return await self.live.invoke(call, sink)
        finally:
            tool_output_sink.reset(printing)

    def report(self, call: ToolCall, outcome: Outcome) -> ToolCallOutputItem:
        """The output item (a recorded one as it was, marked ``replayed``), recorded with the
        card the person saw."""
        value = outcome.value
        if isinstance(value, RecordedOutput):
            output = ToolCallOutputItem(
                agent=self.live.run.agent,
                raw_item=value.item,
                output=value.shown,
                approval=call.decision,
                status=outcome.status,
                call_item=call.item,
                replayed=True,
                display=value.display,
            )
        else:
            output = self.live.report(call, outcome)
        shown = describe_call(call.item, output)  # the card, as the person saw it
        self.replay.record_output(
            call.parsed.call_id, dict(output.raw_item), output.output, output.status, shown
        )
        return output


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
