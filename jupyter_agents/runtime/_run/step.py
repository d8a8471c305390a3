"""After the model answered: items, then tools, a handoff, or the final output."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from .._util import call_maybe_async
from ..agent import Agent, FunctionToolResult, StopAtTools, ToolsToFinalOutputResult
from ..errors import (
    MaxTurnsExceeded,
    ModelBehaviorError,
    ModelRefusalError,
    OutputGuardrailTripwireTriggered,
    UserError,
)
from ..events import RunItemStreamEvent, StreamEvent
from ..handoffs import Handoff, HandoffInputData
from ..items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPListToolsItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolCallItem,
    ToolCallOutputItem,
)
from ..tools import Tool
from ..tools.kinds import kind_for_call, kind_for_tool
from ..tracing import guardrail_span, handoff_span
from .error_handlers import handled_output
from .mcp_approvals import answer_mcp_request
from .model_call import item_event_name
from .progress import (
    FinalOutput,
    HandedOff,
    Interrupted,
    NextStep,
    Paused,
    RunAgain,
    TurnPlan,
)
from .tool_batch import ToolBatch

if TYPE_CHECKING:
    from .loop import RunLoop

__all__ = ["finalize", "finish_turn", "make_item", "plan_turn", "resolve_calls"]

logger = logging.getLogger("jupyter_agents")

MULTIPLE_HANDOFFS = "Multiple handoffs were requested; only the first one was performed."


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
    loop: RunLoop,
    agent: Agent[Any],
    response: ModelResponse,
    streamed: dict[int, RunItem],
    tools: list[Tool],
    handoffs: list[Handoff[Any]],
) -> AsyncGenerator[StreamEvent | NextStep, None]:
    """Record the response's items, then run its calls or finish; the last value yielded is
    the turn's :data:`NextStep`."""
    if len(response.output) > 1:
        _refuse_duplicate_call_ids(response)
    plan_items: list[RunItem] = []
    progress = loop.progress
    new_items, model_input = progress.new_items, progress.model_input
    turn_start = len(new_items)
    for index, raw in enumerate(response.output):
        item = streamed.get(index) or make_item(raw, agent, handoffs)
        if item is None:
            continue
        new_items.append(item)
        model_input.append(item.to_input_item())
        plan_items.append(item)
        if index not in streamed:
            yield RunItemStreamEvent(name=item_event_name(item), item=item)
    plan = plan_turn(plan_items, turn_start)
    _track_server_state(loop, response)
    if plan.calls or plan.mcp_requests or plan.handoffs:
        steps = resolve_calls(
            loop, agent, tools, handoffs, plan.calls, plan.mcp_requests, plan.handoffs, turn_start
        )
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
        yield await finalize(loop, agent, text)
        return
    try:
        refusal = _refusal(plan.messages[-1]) if plan.messages else None
        if refusal is not None:
            raise ModelRefusalError(refusal)
        output = schema.validate_json(text)
    except ModelBehaviorError as error:
        refused = isinstance(error, ModelRefusalError)
        handled = await handled_output(
            loop, agent, "model_refusal" if refused else "invalid_final_output", error
        )
        if handled is None:
            raise
        output = handled[0]
    yield await finalize(loop, agent, output)


async def out_of_turns(loop: RunLoop) -> None:
    """The run used up its turns: end it with the ``max_turns`` handler's output, or raise."""
    agent = loop.progress.current_agent
    error = MaxTurnsExceeded(f"Max turns ({loop.progress.max_turns}) exceeded")
    handled = await handled_output(loop, agent, "max_turns", error)
    if handled is None:
        raise error
    loop.take(await finalize(loop, agent, handled[0]))


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


def _track_server_state(loop: RunLoop, response: ModelResponse) -> None:
    if loop.previous_response_id is None and loop.conversation_id is None:
        if not (loop.auto_previous_response_id and response.response_id):
            return
        loop.previous_response_id = response.response_id  # chain from the first response on
    loop.server_has_seen_all()
    if loop.previous_response_id is not None and response.response_id:
        loop.previous_response_id = response.response_id


async def finalize(loop: RunLoop, agent: Agent[Any], output: Any) -> FinalOutput:
    """Run the output guardrails on ``output``; the run ends with it."""
    guards = [*agent.output_guardrails, *loop.run_config.output_guardrails]
    if guards:

        async def one(guard: Any) -> Any:
            with guardrail_span(guard.get_name(), parent=loop.agent_span) as span:
                result = await guard.run(loop.progress.context_wrapper, agent, output)
                span.span_data.triggered = result.output.tripwire_triggered
            return result

        results = await asyncio.gather(*(one(g) for g in guards))
        loop.output_guardrail_results.extend(results)
        for result in results:
            if result.output.tripwire_triggered:
                raise OutputGuardrailTripwireTriggered(result)
    await loop.hooks.agent_end(agent, output)
    return FinalOutput(output)


async def resolve_calls(
    loop: RunLoop,
    agent: Agent[Any],
    tools: list[Tool],
    handoffs: list[Handoff[Any]],
    calls: list[ToolCallItem],
    mcp_requests: list[MCPApprovalRequestItem],
    handoff_calls: list[HandoffCallItem],
    turn_start: int,
) -> AsyncGenerator[StreamEvent | NextStep, None]:
    """Answer MCP approval requests, run the calls, then hand off, finish or pause; the last
    value yielded is the :data:`NextStep`."""
    waiting_mcp: list[MCPApprovalRequestItem] = []
    for request in mcp_requests:
        answer = await answer_mcp_request(
            agent,
            request,
            loop.progress.ledger,
            loop.progress.context_wrapper,
            loop.approval_handler,
        )
        if answer is None:
            waiting_mcp.append(request)
        else:
            loop.progress.new_items.append(answer)
            loop.progress.model_input.append(answer.raw_item)
    enabled: dict[str, Any] = {
        t.name: t for t in tools if getattr(kind_for_tool(t), "executable", False)
    }
    batch = ToolBatch(agent, calls, enabled, [t.name for t in agent.tools], loop)
    if calls:
        loop.mark_tools_used(agent)
        async with aclosing(batch.run()) as events:
            async for event in events:
                yield event
    for output in batch.outputs:
        loop.progress.new_items.append(output)
        loop.progress.model_input.append(output.raw_item)
    if batch.interruptions or waiting_mcp:
        waiting = {item.call_id for item in batch.interruptions} | set(batch.nested)
        yield Interrupted(
            Paused(
                calls=[c for c in calls if c.call_id in waiting],
                mcp=waiting_mcp,
                handoffs=list(handoff_calls),  # performed once the calls are decided
                interruptions=[*batch.interruptions, *waiting_mcp],
                nested=batch.nested,
                escalations=batch.escalations,
            )
        )
        return
    if handoff_calls:
        async for step in _hand_off(loop, agent, handoffs, handoff_calls, turn_start):
            yield step
        return
    if calls:
        decided = await _tools_final_output(loop, agent, calls, batch.outputs, enabled)
        if decided.is_final_output:
            yield await finalize(loop, agent, decided.final_output)
            return
    yield RunAgain()


async def _tools_final_output(
    loop: RunLoop,
    agent: Agent[Any],
    calls: list[ToolCallItem],
    outputs: list[ToolCallOutputItem],
    enabled: Mapping[str, Any],
) -> ToolsToFinalOutputResult:
    behavior = agent.tool_use_behavior
    if behavior == "run_llm_again":
        return ToolsToFinalOutputResult(is_final_output=False)
    by_id = {c.call_id: c for c in calls}
    results = [
        FunctionToolResult(tool=tool, output=out.output, run_item=out)
        for out in outputs
        if (tool := _called_tool(by_id.get(out.call_id), enabled)) is not None
    ]
    if not results:
        return ToolsToFinalOutputResult(is_final_output=False)
    if behavior == "stop_on_first_tool":
        return ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)
    if isinstance(behavior, StopAtTools):
        for result in results:
            if result.tool.name in behavior.stop_at_tool_names:
                return ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
        return ToolsToFinalOutputResult(is_final_output=False)
    decided = await call_maybe_async(behavior, loop.progress.context_wrapper, results)
    if not isinstance(decided, ToolsToFinalOutputResult):
        raise UserError(
            f"Agent {agent.name!r}: the tool_use_behavior function must return "
            f"ToolsToFinalOutputResult, got {type(decided).__name__}."
        )
    return decided


def _called_tool(call: ToolCallItem | None, enabled: Mapping[str, Any]) -> Any | None:
    """The tool ``call`` ran, of whatever kind: a call names it (a function call, or a shell
    in its function form) or its kind does (``shell_call`` runs the shell)."""
    if call is None:
        return None
    raw = call.raw_item
    named = enabled.get(getattr(raw, "name", None) or "")
    if named is not None:
        return named
    kind = kind_for_call(raw.type)
    if kind is None or not kind.executable:
        return None
    return enabled.get(kind.parse_call(raw).name)


async def _hand_off(
    loop: RunLoop,
    agent: Agent[Any],
    handoffs: list[Handoff[Any]],
    calls: list[HandoffCallItem],
    turn_start: int,
) -> AsyncGenerator[StreamEvent | NextStep, None]:
    first, extra = calls[0], calls[1:]
    for call in extra:
        ignored = ToolCallOutputItem(
            agent=agent,
            raw_item={
                "type": "function_call_output",
                "call_id": call.raw_item.call_id,
                "output": MULTIPLE_HANDOFFS,
            },
            output=MULTIPLE_HANDOFFS,
        )
        loop.progress.new_items.append(ignored)
        loop.progress.model_input.append(ignored.raw_item)
        yield RunItemStreamEvent(name="tool_output", item=ignored)
    chosen = next(h for h in handoffs if h.tool_name == first.raw_item.name)
    target = await chosen.on_invoke_handoff(loop.progress.context_wrapper, first.raw_item.arguments)
    output = HandoffOutputItem(
        agent=agent,
        raw_item={
            "type": "function_call_output",
            "call_id": first.raw_item.call_id,
            "output": chosen.get_transfer_message(target),
        },
        source_agent=agent,
        target_agent=target,
    )
    loop.progress.new_items.append(output)
    loop.progress.model_input.append(output.raw_item)
    span = handoff_span(from_agent=agent.name, to_agent=target.name, parent=loop.agent_span)
    span.start()
    span.finish()
    yield RunItemStreamEvent(name="handoff_occured", item=output)
    await loop.hooks.handoff(agent, target)
    input_filter = chosen.input_filter or loop.run_config.handoff_input_filter
    if input_filter is not None:
        await _filter_history(loop, input_filter, turn_start)
    yield HandedOff(target)


async def _filter_history(loop: RunLoop, input_filter: Any, turn_start: int) -> None:
    history = loop.progress.original_input
    data = HandoffInputData(
        input_history=history if isinstance(history, str) else tuple(history),
        pre_handoff_items=tuple(loop.progress.new_items[:turn_start]),
        new_items=tuple(loop.progress.new_items[turn_start:]),
        run_context=loop.progress.context_wrapper,
    )
    filtered = await call_maybe_async(input_filter, data)
    if not isinstance(filtered, HandoffInputData):
        raise UserError("A handoff input filter must return HandoffInputData.")
    items = ItemHelpers.input_to_new_input_list(
        filtered.input_history
        if isinstance(filtered.input_history, str)
        else list(filtered.input_history)
    )
    items.extend(i.to_input_item() for i in (*filtered.pre_handoff_items, *filtered.new_items))
    loop.progress.model_input = items
