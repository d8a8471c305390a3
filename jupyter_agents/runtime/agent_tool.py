"""``Agent.as_tool``: running an agent as a function tool of another agent."""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._util import call_maybe_async
from .context import ToolContext
from .errors import UserError
from .tools import FunctionTool

if TYPE_CHECKING:
    from .agent import Agent
    from .result import RunResultStreaming
    from .run_state import RunState

__all__ = [
    "AgentTool",
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
    """An agent tool's nested run paused for approvals and the outer run has no handler: the
    outer run pauses too, carrying the nested run's state."""

    def __init__(self, state: RunState) -> None:
        super().__init__("the nested run paused for approvals")
        self.state = state


_run_streamed: Callable[..., RunResultStreaming] | None = None


def set_nested_runner(run_streamed: Callable[..., RunResultStreaming]) -> None:
    """Called by the runner module: how agent tools start their nested runs."""
    global _run_streamed
    _run_streamed = run_streamed


@dataclass
class AgentTool(FunctionTool):
    """A function tool that runs an agent; its nested events reach the outer stream."""

    forwards_events = True

    agent: Agent[Any] | None = None
    """The agent the tool runs (a paused nested run is rebuilt with it)."""


def agent_as_tool(
    agent: Agent[Any],
    tool_name: str | None,
    tool_description: str | None,
    custom_output_extractor: Callable[[Any], Any] | None,
    max_turns: int | None,
) -> AgentTool:
    """The tool behind ``Agent.as_tool``."""
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
        result = _run_streamed(
            agent,
            resume if resume is not None else str(request),
            context=ctx.context,
            max_turns=max_turns,
            approval_handler=outer_approval_handler.get(),
        )
        sink = event_sink.get()
        async for event in result.stream_events():
            if sink is not None:
                sink(event)
        if result.interruptions:
            raise NestedRunPaused(result.to_state())
        if custom_output_extractor is not None:
            return await call_maybe_async(custom_output_extractor, result)
        return result.final_output

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
