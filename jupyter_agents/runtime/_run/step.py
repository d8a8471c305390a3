"""After the model answered: its items, then its calls (``.calls``), or the final output."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from ..agent import Agent
from ..errors import MaxTurnsExceeded, ModelBehaviorError, ModelRefusalError
from ..events import RunItemStreamEvent, StreamEvent
from ..handoffs import Handoff
from ..items import (
    HandoffCallItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPListToolsItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolCallItem,
)
from ..tools import Tool
from ..tools.kinds import kind_for_call
from .calls import resolve_calls
from .error_handlers import handled_output
from .model_call import item_event_name
from .progress import FinalOutput, NextStep, RunAgain, TurnPlan
from .turn import TurnRun, finalize

__all__ = ["finish_turn", "make_item", "out_of_turns", "plan_turn"]

logger = logging.getLogger("jupyter_agents")


def make_item(raw: Any, agent: Agent[Any], handoffs: list[Handoff[Any]]) -> RunItem | None:
    """The run item for one model output item (None for context items the run keeps no item
    for). A call type no tool kind claims is a ``ModelBehaviorError``."""
    kind = raw.type
    if kind == "message":
        return MessageOutputItem(agent=agent, raw_item=raw)
    if kind == "function_call" and any(h.tool_name == raw.name for h in handoffs):
        return HandoffCallItem(agent=agent, raw_item=raw)
    if kind_for_call(kind) is not None:
        return ToolCallItem(agent=agent, raw_item=raw)
    if kind == "mcp_approval_request":
        return MCPApprovalRequestItem(agent=agent, raw_item=raw)
    if kind == "mcp_list_tools":
        return MCPListToolsItem(agent=agent, raw_item=raw)
    if kind == "reasoning":
        return ReasoningItem(agent=agent, raw_item=raw)
    if kind.endswith("_call"):
        raise ModelBehaviorError(
            f"The model sent a {kind!r} item, but no tool of agent {agent.name!r} handles that "
            "kind of call (give the agent the matching tool)."
        )
    logger.warning("Ignoring a %r item of the model's response: nothing handles it.", kind)
    return None


async def finish_turn(
    run: TurnRun,
    agent: Agent[Any],
    response: ModelResponse,
    tools: list[Tool],
    handoffs: list[Handoff[Any]],
) -> AsyncGenerator[StreamEvent | NextStep, None]:
    """Record the response's items, then run its calls or finish; the last value yielded is
    the turn's ``NextStep``."""
    if len(response.output) > 1:
        _refuse_duplicate_call_ids(response)
    plan_items: list[RunItem] = []
    progress = run.progress
    new_items, model_input = progress.new_items, progress.model_input
    turn_start = len(new_items)
    for raw in response.output:
        item = make_item(raw, agent, handoffs)
        if item is None:
            continue
        new_items.append(item)
        model_input.append(item.to_input_item())
        plan_items.append(item)
        yield RunItemStreamEvent(name=item_event_name(item), item=item)
    plan = plan_turn(plan_items, turn_start)
    run.server.stored(response, model_input)
    if plan.calls or plan.mcp_requests or plan.handoffs:
        steps = resolve_calls(run, agent, tools, handoffs, plan)
        async with aclosing(steps):
            async for event in steps:
                yield event
        return
    if not plan.messages and (plan.hosted_activity or agent.output_schema is not None):
        yield RunAgain()  # the model has more to do
        return
    text = ItemHelpers.text_message_output(plan.messages[-1]) if plan.messages else ""
    schema = agent.output_schema
    if schema is None:
        yield await finalize(run, agent, text)
        return
    try:
        refusal = _refusal(plan.messages[-1]) if plan.messages else None
        if refusal is not None:
            raise ModelRefusalError(refusal)
        output = schema.validate_json(text)
    except ModelBehaviorError as error:
        refused = isinstance(error, ModelRefusalError)
        handled = await handled_output(
            run, agent, "model_refusal" if refused else "invalid_final_output", error
        )
        if handled is None:
            raise
        output = handled[0]
    yield await finalize(run, agent, output)


async def out_of_turns(run: TurnRun) -> FinalOutput:
    """The run used up its turns: end it with the ``max_turns`` handler's output, or raise."""
    agent = run.progress.current_agent
    error = MaxTurnsExceeded(f"Max turns ({run.progress.max_turns}) exceeded")
    handled = await handled_output(run, agent, "max_turns", error)
    if handled is None:
        raise error
    return await finalize(run, agent, handled[0])


def _refusal(message: RunItem) -> str | None:
    """The refusal text when the message's last part is a refusal."""
    content = getattr(message.raw_item, "content", None)
    if not content or getattr(content[-1], "type", None) != "refusal":
        return None
    return str(content[-1].refusal)


def plan_turn(items: list[RunItem], turn_start: int) -> TurnPlan:
    """Sort a response's items by what happens next."""
    messages: list[MessageOutputItem] = []
    calls: list[ToolCallItem] = []
    handoff_calls: list[HandoffCallItem] = []
    mcp_requests: list[MCPApprovalRequestItem] = []
    hosted_activity = False
    for item in items:
        if isinstance(item, MessageOutputItem):
            messages.append(item)
        elif isinstance(item, HandoffCallItem):
            handoff_calls.append(item)
        elif isinstance(item, MCPApprovalRequestItem):
            mcp_requests.append(item)
        elif isinstance(item, ToolCallItem):
            call_kind = kind_for_call(item.raw_item.type)
            if call_kind is not None and call_kind.executable:
                calls.append(item)
            else:
                hosted_activity = True
        elif isinstance(item, MCPListToolsItem):
            hosted_activity = True
    return TurnPlan(messages, calls, handoff_calls, mcp_requests, hosted_activity, turn_start)


def _refuse_duplicate_call_ids(response: ModelResponse) -> None:
    """Two calls with one id in a response could not be told apart (an approval for one would
    run the other): the response is refused."""
    seen: set[str] = set()
    for raw in response.output:
        call_id = getattr(raw, "call_id", None) if raw.type != "mcp_approval_request" else raw.id
        if not call_id:
            continue
        if call_id in seen:
            raise ModelBehaviorError(
                f"The model sent two tool calls with the same call id {call_id!r} in one "
                "response; none of them ran."
            )
        seen.add(call_id)
