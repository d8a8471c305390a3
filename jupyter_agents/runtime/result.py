"""Run results: what a finished (or streaming) run gives back."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from .context import RunContextWrapper
from .cost import RunCost
from .errors import UserError
from .events import StreamEvent
from .guardrails import InputGuardrailResult, OutputGuardrailResult
from .items import (
    ItemHelpers,
    MCPApprovalRequestItem,
    ModelResponse,
    RunItem,
    ToolApprovalItem,
    TResponseInputItem,
)
from .run_state import RunState
from .tool_guardrails import ToolInputGuardrailResult, ToolOutputGuardrailResult

if TYPE_CHECKING:
    from ._run.loop import RunLoop
    from ._run.progress import RunProgress
    from .agent import Agent
    from .compaction import Compacted
    from .model_wait import ModelWait
    from .modes import Mode

__all__ = ["RunErrorDetails", "RunResult", "RunResultBase", "RunResultStreaming"]

T = TypeVar("T")


@dataclass
class RunResultBase:
    """What every run result carries."""

    input: str | list[TResponseInputItem]
    """The input the run started with."""

    new_items: list[RunItem]
    """Items the run produced: messages, tool calls and their outputs, reasoning."""

    raw_responses: list[ModelResponse]
    """Every model response, in order."""

    final_output: Any
    """The final answer (None while a streamed run is still going)."""

    context_wrapper: RunContextWrapper[Any]
    """The run context, with the run's token ``usage``."""

    def to_input_list(self) -> list[TResponseInputItem]:
        """The original input plus everything the run produced, as input for a next run."""
        items = ItemHelpers.input_to_new_input_list(self.input)
        items.extend(item.to_input_item() for item in self.new_items)
        return items

    def final_output_as(self, cls: type[T], raise_if_incorrect_type: bool = False) -> T:
        """The final output, typed as ``cls``.

        Raises:
            TypeError: With ``raise_if_incorrect_type``, when the output is not a ``cls``.
        """
        if raise_if_incorrect_type and not isinstance(self.final_output, cls):
            raise TypeError(
                f"The final output is a {type(self.final_output).__name__}, not a {cls.__name__}."
            )
        return cast(T, self.final_output)

    @property
    def last_response_id(self) -> str | None:
        """The id of the last model response (for ``previous_response_id``)."""
        return self.raw_responses[-1].response_id if self.raw_responses else None


@dataclass
class RunResult(RunResultBase):
    """The result of ``Runner.run`` / ``Runner.run_sync``."""

    last_agent: Agent[Any] = field(repr=False)
    """The agent that produced the final output."""

    interruptions: list[ToolApprovalItem | MCPApprovalRequestItem] = field(default_factory=list)
    """Calls waiting for approval; non-empty when the run paused instead of finishing."""

    input_guardrail_results: list[InputGuardrailResult] = field(default_factory=list)
    """Outcomes of the input guardrails."""

    output_guardrail_results: list[OutputGuardrailResult] = field(default_factory=list)
    """Outcomes of the output guardrails."""

    tool_input_guardrail_results: list[ToolInputGuardrailResult] = field(default_factory=list)
    """Outcomes of the tool input guardrails, in the order they ran."""

    tool_output_guardrail_results: list[ToolOutputGuardrailResult] = field(default_factory=list)
    """Outcomes of the tool output guardrails, in the order they ran."""

    _progress: RunProgress | None = field(default=None, repr=False, compare=False)

    def to_state(self) -> RunState:
        """The paused run, to approve or reject its interruptions and resume."""
        return _state_of(self._progress)

    @property
    def cost(self) -> RunCost:
        """What the run's model calls cost (a resumed run's earlier calls included), priced by
        genai-prices; ``str()`` of it reads ``"$0.0123"`` or ``"price unknown"``."""
        if self._progress is None:
            return RunCost(Decimal(0), Decimal(0), True)
        return self._progress.spend.cost()

    @property
    def mode(self) -> Mode:
        """The mode the run ended in (``plan`` became ``agent`` if a person approved the
        plan)."""
        return self._progress.mode.mode if self._progress is not None else "agent"

    @property
    def plan_rejected(self) -> str | None:
        """Set when a person rejected the run's plan (``plan`` mode): the final output, which
        says why."""
        return self._progress.mode.rejected if self._progress is not None else None

    @property
    def compactions(self) -> list[Compacted]:
        """Each compaction of the conversation the run sent (``RunConfig.compaction``)."""
        return list(self._progress.compactions) if self._progress is not None else []

    def __str__(self) -> str:
        return f"RunResult(final_output={self.final_output!r}, items={len(self.new_items)})"

    def _repr_markdown_(self) -> str:
        """A readable summary for notebooks; the model's text is sanitised (nothing in it can
        run, load or link anywhere but http(s))."""
        from .._render import escape_markdown, inert_markdown  # only notebooks need it

        usage = self.context_wrapper.usage
        lines = [
            f"**RunResult** · agent {escape_markdown(self.last_agent.name)} · "
            f"{len(self.new_items)} items · {usage.requests} model calls · "
            f"{usage.total_tokens:,} tokens"
        ]
        calls = [i for i in self.new_items if i.type == "tool_call_item"]
        if calls:
            names = ", ".join(
                escape_markdown(getattr(c.raw_item, "name", None) or c.raw_item.type) for c in calls
            )
            lines.append(f"tools called: {names}")
        if self.interruptions:
            waiting = ", ".join(escape_markdown(i.tool_name) for i in self.interruptions)
            lines.append(f"waiting for approval: {waiting} (use result.to_state())")
        elif self.final_output is not None:
            lines.append(inert_markdown(str(self.final_output), limit=20_000))
        return "\n\n".join(lines)


@dataclass
class RunErrorDetails:
    """What a run had produced when an error ended it (``AgentsException.run_data``)."""

    input: str | list[TResponseInputItem]
    """The input the run started with."""

    new_items: list[RunItem]
    """Items the run produced before the error."""

    raw_responses: list[ModelResponse]
    """Every model response, in order."""

    last_agent: Agent[Any] = field(repr=False)
    """The agent running when the error happened."""

    context_wrapper: RunContextWrapper[Any]
    """The run context, with the run's token ``usage``."""

    input_guardrail_results: list[InputGuardrailResult]
    """Outcomes of the input guardrails that finished."""

    output_guardrail_results: list[OutputGuardrailResult]
    """Outcomes of the output guardrails that finished."""

    tool_input_guardrail_results: list[ToolInputGuardrailResult] = field(default_factory=list)
    """Outcomes of the tool input guardrails of the turns that finished."""

    tool_output_guardrail_results: list[ToolOutputGuardrailResult] = field(default_factory=list)
    """Outcomes of the tool output guardrails of the turns that finished."""

    final_output: Any = None
    """Always None: the run ended without one (kept for code that reads a result's)."""

    def to_input_list(self) -> list[TResponseInputItem]:
        """The original input plus everything the run produced, as input for a next run."""
        items = ItemHelpers.input_to_new_input_list(self.input)
        items.extend(item.to_input_item() for item in self.new_items)
        return items

    @property
    def last_response_id(self) -> str | None:
        """The id of the last model response."""
        return self.raw_responses[-1].response_id if self.raw_responses else None

    def __str__(self) -> str:
        # The printer at the SDK's path (``agents.exceptions``) when that module is loaded, so
        # code that replaces it there, as SDK code may, is followed.
        mirror = sys.modules.get(__name__.rsplit(".", 2)[0] + ".exceptions")
        printer = getattr(mirror, "pretty_print_run_error_details", None)
        return str((printer or pretty_print_run_error_details)(self))


def pretty_print_run_error_details(details: RunErrorDetails) -> str:
    """A few lines saying what ``details`` holds (``str()`` of it)."""
    lines = [
        "RunErrorDetails:",
        f'- Last agent: Agent(name="{details.last_agent.name}", ...)',
        f"- {len(details.new_items)} new item(s)",
        f"- {len(details.raw_responses)} raw response(s)",
        f"- {len(details.input_guardrail_results)} input guardrail result(s)",
        f"- {len(details.output_guardrail_results)} output guardrail result(s)",
        f"- {len(details.tool_input_guardrail_results)} tool input guardrail result(s)",
        f"- {len(details.tool_output_guardrail_results)} tool output guardrail result(s)",
        "(See `RunErrorDetails` for more details)",
    ]
    return "\n".join(lines)


class RunResultStreaming(RunResultBase):
    """A run in progress. Iterate ``stream_events``; the run advances as you consume it.

    When iteration ends, ``final_output`` and the other fields hold the complete result. Errors
    of the run are raised from the iteration.
    """

    def __init__(self, loop: RunLoop) -> None:
        self._loop = loop
        self._consumer: asyncio.Task[Any] | None = None
        self._started = False
        self._awaiting = False
        self.is_complete = False
        """True once the run has finished (successfully, by error, or cancelled)."""

    # The fields of RunResultBase read through to the live loop.
    @property
    def input(self) -> str | list[TResponseInputItem]:  # type: ignore[override]
        return self._loop.progress.original_input

    @property
    def new_items(self) -> list[RunItem]:  # type: ignore[override]
        return self._loop.progress.new_items

    @property
    def raw_responses(self) -> list[ModelResponse]:  # type: ignore[override]
        return self._loop.raw_responses

    @property
    def final_output(self) -> Any:
        return self._loop.final_output

    @property
    def context_wrapper(self) -> RunContextWrapper[Any]:  # type: ignore[override]
        return self._loop.progress.context_wrapper

    @property
    def current_agent(self) -> Agent[Any]:
        """The agent running now."""
        return self._loop.progress.current_agent

    @property
    def last_agent(self) -> Agent[Any]:
        """The agent running now, or the one that produced the final output."""
        return self._loop.progress.current_agent

    @property
    def current_turn(self) -> int:
        """The turn being run (1-based; 0 before the first)."""
        return self._loop.progress.current_turn

    @property
    def max_turns(self) -> int:
        """The most turns the run may take."""
        return self._loop.progress.max_turns

    @property
    def interruptions(self) -> list[ToolApprovalItem | MCPApprovalRequestItem]:
        """Calls waiting for approval once the run paused."""
        return list(self._loop.progress.paused.interruptions)

    @property
    def input_guardrail_results(self) -> list[InputGuardrailResult]:
        """Outcomes of the input guardrails."""
        return self._loop.input_guardrail_results

    @property
    def output_guardrail_results(self) -> list[OutputGuardrailResult]:
        """Outcomes of the output guardrails."""
        return self._loop.output_guardrail_results

    @property
    def tool_input_guardrail_results(self) -> list[ToolInputGuardrailResult]:
        """Outcomes of the tool input guardrails."""
        return self._loop.tool_input_guardrail_results

    @property
    def tool_output_guardrail_results(self) -> list[ToolOutputGuardrailResult]:
        """Outcomes of the tool output guardrails."""
        return self._loop.tool_output_guardrail_results

    def to_state(self) -> RunState:
        """The paused run, to approve or reject its interruptions and resume."""
        return _state_of(self._loop.progress)

    @property
    def cost(self) -> RunCost:
        """What the run's model calls cost so far (see ``RunResult.cost``)."""
        return self._loop.progress.spend.cost()

    @property
    def mode(self) -> Mode:
        """The mode the run is in now (``RunConfig.mode``; ``plan`` becomes ``agent`` once a
        person approves the plan)."""
        return self._loop.progress.mode.mode

    @property
    def plan_rejected(self) -> str | None:
        """Set when a person rejected the run's plan (``plan`` mode): the final output, which
        says why."""
        return self._loop.progress.mode.rejected

    @property
    def compactions(self) -> list[Compacted]:
        """Each compaction of the conversation the run sent so far (``RunConfig.compaction``)."""
        return list(self._loop.progress.compactions)

    @property
    def model_wait(self) -> ModelWait | None:
        """The model call the run waits for now: the request is sent and nothing came back
        yet (its server, attempt and start); None while the model streams, or between calls.
        Set and cleared once per call, so polling it costs the run nothing."""
        return self._loop.progress.model_wait

    @property
    def is_cancelled(self) -> bool:
        """True when the run was stopped by ``cancel``."""
        return self._loop.cancelled

    def cancel(self, mode: Literal["immediate", "after_turn"] = "immediate") -> None:
        """Stop the run.

        ``"immediate"`` interrupts whatever is running (the model stream, tools); tools are
        cancelled and nothing of the unfinished turn is kept. ``"after_turn"`` lets the current
        turn finish and stops before the next model call. Safe to call at any time, from the
        consumer or from elsewhere on the same event loop.
        """
        if self.is_complete:
            return
        consumer = self._consumer
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # Called from another thread (a widget handler, say): hop onto the run's loop.
            if consumer is not None and not consumer.done():
                consumer.get_loop().call_soon_threadsafe(self.cancel, mode)
                return
        self._loop.request_stop(mode)
        if (
            mode == "immediate"
            and consumer is not None
            and self._awaiting
            and consumer is not asyncio.current_task()
            and not consumer.done()
        ):
            self._loop.interrupt_pending = True
            consumer.cancel()

    async def stream_events(self) -> AsyncIterator[StreamEvent]:
        """Yield the run's events as they happen; the run advances as you consume them."""
        if self._started:
            raise UserError("stream_events() can be iterated only once per run.")
        self._started = True
        self._consumer = asyncio.current_task()
        events = self._loop.events()
        try:
            while True:
                self._awaiting = True
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    break
                finally:
                    self._awaiting = False
                yield event
        except asyncio.CancelledError:
            if not self._loop.interrupt_pending:
                raise
            # Our own cancel(): end the stream quietly instead of cancelling the consumer.
            self._loop.interrupt_pending = False
            _uncancel(self._consumer)
            self._loop.mark_cancelled()
        finally:
            self.is_complete = True
            self._consumer = None
            await events.aclose()

    def __repr__(self) -> str:
        state = "complete" if self.is_complete else "running"
        return (
            f"RunResultStreaming(agent={self.current_agent.name!r}, turn={self.current_turn}, "
            f"{state}, items={len(self.new_items)})"
        )


def _state_of(progress: RunProgress | None) -> RunState:
    if progress is None or not progress.paused.interruptions:
        raise UserError(
            "This run has no interruptions to decide on. To continue the conversation, run "
            "again with result.to_input_list() plus the new input."
        )
    return RunState(progress.snapshot())  # a snapshot: the result stays as it was


def _uncancel(task: asyncio.Task[Any] | None) -> None:
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()
