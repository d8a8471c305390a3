"""Running one tool call that came from outside (an MCP client) through the run loop, so it
gets what a model's call gets: argument checks, approval, guardrails, timeouts, live output
and its card. A stand-in model asks for exactly that call; the run stops at its output."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
)

from ..agent import Agent
from ..approvals import ApprovalHandler
from ..items import ModelResponse, ToolCallOutputItem
from ..models.interface import ModelRequest, RequestModel
from ..run import RunConfig, Runner
from .served_questions import asking_the_client

__all__ = ["CallOutcome", "run_one_call"]


@dataclass(frozen=True)
class CallOutcome:
    """What became of the call."""

    output: Any
    """The output as the model would get it: a string or Responses content parts."""
    status: str
    """``ok``, ``error``, ``rejected``, ``timeout``, ``blocked``."""


class _OneCall(RequestModel):
    """A model that asks for one function call, once; asked again (which the run's
    ``stop_on_first_tool`` should prevent) it answers with a message, so the tool never runs
    twice for one call."""

    def __init__(self, name: str, arguments: str) -> None:
        self._call = ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{uuid4().hex[:16]}",
            call_id=f"mcp_{uuid4().hex[:16]}",
            name=name,
            arguments=arguments,
            status="completed",
        )
        self._asked = False

    def _next(self) -> Any:
        if self._asked:
            return ResponseOutputMessage(
                type="message",
                id=f"msg_{uuid4().hex[:16]}",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text="", annotations=[])],
            )
        self._asked = True
        return self._call

    async def respond(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(output=[self._next()])

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        item = self._next()
        yield ResponseOutputItemDoneEvent.model_construct(
            type="response.output_item.done", item=item, output_index=0, sequence_number=0
        )
        response = Response.model_construct(id=f"resp_{uuid4().hex[:16]}", output=[item])
        yield ResponseCompletedEvent.model_construct(
            type="response.completed", response=response, sequence_number=1
        )


async def run_one_call(
    tool: Any,
    arguments: dict[str, Any],
    *,
    approval_handler: ApprovalHandler | None,
    on_event: Callable[[Any], None] | None = None,
    run_config: RunConfig | None = None,
) -> CallOutcome:
    """Run ``tool`` with ``arguments`` as a one-call run; ``on_event`` sees its stream events
    (a view shows the card from them). ``run_config`` carries the run-wide policy (approval,
    sandbox, workspace, network, tool timeout) the call runs under, as a model's would."""
    agent: Agent[Any] = Agent(
        name="toolbox",
        model=_OneCall(tool.name, json.dumps(arguments)),
        tools=[tool],
        tool_use_behavior="stop_on_first_tool",
    )
    result = Runner.run_streamed(
        agent,
        "(a call from an MCP client)",
        run_config=run_config,
        approval_handler=asking_the_client(approval_handler),
        max_turns=2,
    )
    async for event in result.stream_events():
        if on_event is not None:
            on_event(event)
    outputs = [i for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    if not outputs:
        return CallOutcome("The call was not run.", "error")
    last = outputs[-1]
    return CallOutcome(last.raw_item.get("output", ""), getattr(last, "status", "ok") or "ok")
