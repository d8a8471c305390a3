"""``Agent.as_tool``: running an agent as a function tool of another agent."""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, Union

from typing_extensions import TypedDict

from ._run.budget import outer_stop
from ._util import call_maybe_async
from .context import ToolContext
from .errors import BudgetExceeded, UserError
from .events import AgentUpdatedStreamEvent, StreamEvent
from .items import ItemHelpers, MessageOutputItem, ToolCallOutputItem
from .tools import FunctionTool

if TYPE_CHECKING:
    from .agent import Agent
    from .result import RunResultStreaming
    from .run_state import RunState

logger = logging.getLogger("jupyter_agents")

__all__ = [
    "AgentTool",
    "AgentToolStreamEvent",
    "AgentToolStreamHandler",
    "NestedRunPaused",
    "agent_as_tool",
    "event_sink",
    "nested_resume",
    "outer_approval_handler",
    "set_nested_runner",
]

event_sink: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "jupyter_agents_event_sink", default=None
)
"""Where a running tool may send stream events for the outer run's stream (set per call)."""

outer_approval_handler: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "jupyter_agents_outer_approval_handler", default=None
)
"""The approval handler of the run calling a tool (set per call): nested runs inherit it."""

nested_resume: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "jupyter_agents_nested_resume", default=None
)
"""The paused nested run an agent tool's call resumes (set per call by the outer run)."""


class NestedRunPaused(Exception):
    """An agent tool's nested run paused for approvals and the outer run has no handler, or
    an outer run's budget stopped it: the outer run pauses (or stops) too, carrying the
    nested run's state."""

    def __init__(self, state: RunState) -> None:
        super().__init__("the nested run paused for approvals")
        self.state = state


_run_streamed: Callable[..., RunResultStreaming] | None = None


def set_nested_runner(run_nested: Callable[..., RunResultStreaming]) -> None:
    """Called by the runner module: how agent tools start their nested runs
    (``run_nested(agent, input, outer_context, **runner_options)``: a streamed run nested in
    the run whose tool context is ``outer_context``)."""
    global _run_streamed
    _run_streamed = run_nested


@dataclass
class AgentTool(FunctionTool):
    """A function tool that runs an agent; its nested events reach the outer stream."""

    forwards_events = True

    agent: Agent[Any] | None = None
    """The agent the tool runs (a paused nested run is rebuilt with it)."""

    def nested_agent(self) -> Agent[Any] | None:
        """The agent the tool runs (``agent``)."""
        return self.agent


class AgentToolStreamEvent(TypedDict):
    """What ``Agent.as_tool(on_stream=...)`` receives for each event of the nested run."""

    event: StreamEvent
    """The nested run's stream event."""

    agent: Agent[Any]
    """The nested agent that was running when the event came (it changes on handoffs)."""

    tool_call: Any | None
    """The outer run's call item that started the nested run."""


AgentToolStreamHandler: TypeAlias = Callable[[AgentToolStreamEvent], Union[Awaitable[None], None]]


def agent_as_tool(
    agent: Agent[Any],
    tool_name: str | None,
    tool_description: str | None,
    custom_output_extractor: Callable[[Any], Any] | None,
    max_turns: int | None,
    on_stream: AgentToolStreamHandler | None = None,
    run_options: dict[str, Any] | None = None,
) -> AgentTool:
    """The tool behind ``Agent.as_tool``; ``run_options`` are more ``Runner`` options for the
    nested run (``run_config``, ``hooks``, ``session``, ``previous_response_id``,
    ``conversation_id``)."""
    options = dict(run_options or {})
    name = tool_name or "".join(c if c.isalnum() else "_" for c in agent.name).lower()
    description = tool_description or agent.handoff_description or f"Ask the {agent.name} agent."

    async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
        try:
            request = json.loads(arguments or "{}").get("input", "")
        except (ValueError, AttributeError):
            request = arguments
        if _run_streamed is None:
            raise UserError("Agent tools run inside Runner runs.")
        resume = nested_resume.get()
        extra = options
        if resume is not None:  # the paused run already knows its server-side state
            extra = {k: v for k, v in options.items() if k not in _FIRST_RUN_ONLY}
        result = _run_streamed(
            agent,
            resume if resume is not None else str(request),
            ctx,
            context=ctx.context,
            max_turns=max_turns,
            approval_handler=outer_approval_handler.get(),
            **extra,
        )
        try:
            await _forward(result, agent, on_stream, ctx.tool_call)
        except BudgetExceeded as stop:
            if stop.run_state is None or not outer_stop(stop, ctx._spend):
                raise  # the nested run's own budget (the tool's run_config): the tool failed
            raise NestedRunPaused(stop.run_state) from None  # the outer run stops with it
        if result.interruptions:
            raise NestedRunPaused(result.to_state())
        if custom_output_extractor is not None:
            return await call_maybe_async(custom_output_extractor, result)
        return agent_tool_output(result)

    return AgentTool(
        name=name,
        description=description,
        params_json_schema={
            "type": "object",
            "properties": {"input": {"type": "string", "description": "The request."}},
            "required": ["input"],
            "additionalProperties": False,
        },
        on_invoke_tool=invoke,
        agent=agent,
    )


_FIRST_RUN_ONLY = frozenset({"previous_response_id", "conversation_id"})


def agent_tool_output(result: RunResultStreaming) -> Any:
    """What an agent tool answers with, as in the SDK: the nested run's final output; when
    that is empty (None or "") and no output guardrail checked it, the latest non-empty text
    of the nested run (a message, or a tool's text output). A final output that guardrails
    checked is kept as it is, empty or not: they checked it, not the items before it."""
    final = result.final_output
    if (final is not None and final != "") or result.output_guardrail_results:
        return final
    for item in reversed(result.new_items):
        if isinstance(item, MessageOutputItem):
            text = ItemHelpers.text_message_output(item)
            if text:
                return text
        elif isinstance(item, ToolCallOutputItem) and isinstance(item.output, str) and item.output:
            return item.output
    return final


async def _forward(
    result: RunResultStreaming,
    agent: Agent[Any],
    on_stream: AgentToolStreamHandler | None,
    tool_call: Any,
) -> None:
    """Run the nested run to its end, its events going to the outer run's stream and to
    ``on_stream`` (with the nested agent running at the time)."""
    sink = event_sink.get()
    current = agent
    async for event in result.stream_events():
        if sink is not None:
            sink(event)
        if on_stream is not None:
            if isinstance(event, AgentUpdatedStreamEvent):
                current = event.new_agent
            await _tell(on_stream, {"event": event, "agent": current, "tool_call": tool_call})


async def _tell(handler: AgentToolStreamHandler, payload: AgentToolStreamEvent) -> None:
    """Give ``handler`` one event; its failure is logged, never the nested run's."""
    try:
        await call_maybe_async(handler, payload)
    except Exception:
        logger.exception("an as_tool on_stream handler failed on %s", payload["event"].type)
