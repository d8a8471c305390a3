"""A turn's calls: hosted MCP approval requests answered, tool calls run, then a pause (or a
stop, when a budget stopped an agent tool's run), a handoff, the final output or another
turn."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import Any

from .._util import call_maybe_async
from ..agent import Agent, FunctionToolResult, StopAtTools, ToolsToFinalOutputResult
from ..errors import UserError
from ..events import RunItemStreamEvent, StreamEvent
from ..handoffs import Handoff, HandoffInputData
from ..items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    ToolCallItem,
    ToolCallOutputItem,
)
from ..tools import Tool
from ..tools.kinds import ToolKind, kind_for_call, kind_for_tool
from ..tools.lookup_names import call_lookup_name
from ..tracing import handoff_span
from .budget import budget_stop, stop_with_nested
from .mcp_approvals import answer_mcp_request
from .progress import HandedOff, Interrupted, NextStep, Paused, RunAgain, TurnPlan
from .tool_batch import ToolBatch
from .tool_call import ToolRun
from .turn import TurnRun, finalize

__all__ = ["MULTIPLE_HANDOFFS", "resolve_calls"]

MULTIPLE_HANDOFFS = "Multiple handoffs were requested; only the first one was performed."


async def resolve_calls(
    run: TurnRun,
    agent: Agent[Any],
    tools: list[Tool],
    handoffs: list[Handoff[Any]],
    plan: TurnPlan,
) -> AsyncGenerator[StreamEvent | NextStep, None]:
    """Answer the plan's MCP approval requests, run its calls, then hand off, finish or pause;
    the last value yielded is the ``NextStep``."""
    progress = run.progress
    waiting_mcp = await _answer_mcp(run, agent, plan.mcp_requests) if plan.mcp_requests else []
    calls = plan.calls
    # By the name calls find them by (``namespace.name`` for a namespaced function tool).
    kinds = {
        t.lookup_name: kind
        for t in tools
        if (kind := kind_for_tool(t)) is not None and kind.executable
    }
    enabled: dict[str, Any] = {key: t for t in tools if (key := t.lookup_name) in kinds}
    batch = ToolBatch(_tool_run(run, agent, enabled, kinds), calls)
    if calls:
        run.mark_tools_used(agent)
        async with aclosing(batch.run()) as events:
            async for event in events:
                yield event
    for output in batch.outputs:
        progress.new_items.append(output)
        progress.model_input.append(output.raw_item)
    progress.mode.settle(batch.outputs, enabled)
    stop = budget_stop(batch.nested) if batch.nested else None  # an agent tool's run stopped
    if batch.interruptions or waiting_mcp or stop is not None:
        waiting = {item.call_id for item in batch.interruptions} | set(batch.nested)
        paused = Paused(
            calls=[c for c in calls if c.call_id in waiting],
            mcp=waiting_mcp,
            handoffs=list(plan.handoffs),  # performed once the calls are decided
            interruptions=[*batch.interruptions, *waiting_mcp],
            nested=batch.nested,
            escalations=batch.escalations,
        )
        if stop is not None:  # this run stops too, its call waiting to resume that run
            progress.paused = paused
            stop_with_nested(progress, stop)
        yield Interrupted(paused)
        return
    if progress.mode.rejected is not None:  # a person rejected the plan: the run ends
        yield await finalize(run, agent, progress.mode.rejected)
        return
    if plan.handoffs:
        async for step in _hand_off(run, agent, handoffs, plan.handoffs, plan.turn_start):
            yield step
        return
    if calls:
        calls, outputs = (
            _whole_turn(progress.new_items, plan)
            if plan.resumed
            else (
                calls,
                batch.outputs,
            )
        )
        decided = await _tools_final_output(run, agent, calls, outputs, enabled)
        if decided.is_final_output:
            yield await finalize(run, agent, decided.final_output)
            return
    yield RunAgain()


def _whole_turn(
    items: list[Any], plan: TurnPlan
) -> tuple[list[ToolCallItem], list[ToolCallOutputItem]]:
    """Every call of a resumed turn and every output it has now, those that ran before it
    paused included: ``tool_use_behavior`` decides on them all, as in one unpaused turn."""
    start = plan.turn_start
    while start > 0 and isinstance(items[start - 1], (ToolCallItem, ToolCallOutputItem)):
        start -= 1
    turn = items[start:]
    calls = [i for i in turn if isinstance(i, ToolCallItem)]
    return calls, [i for i in turn if isinstance(i, ToolCallOutputItem)]


async def _answer_mcp(
    run: TurnRun, agent: Agent[Any], requests: list[MCPApprovalRequestItem]
) -> list[MCPApprovalRequestItem]:
    """Answer hosted MCP approval requests that can be answered now; the rest wait."""
    progress = run.progress
    waiting: list[MCPApprovalRequestItem] = []
    for request in requests:
        answer = await answer_mcp_request(
            agent, request, progress.ledger, progress.context_wrapper, run.approval_handler
        )
        if answer is None:
            waiting.append(request)
        else:
            progress.new_items.append(answer)
            progress.model_input.append(answer.raw_item)
    return waiting


def _tool_run(
    run: TurnRun, agent: Agent[Any], enabled: dict[str, Any], kinds: dict[str, ToolKind[Any, Any]]
) -> ToolRun:
    """What the batch of ``agent``'s calls uses of the run."""
    progress = run.progress
    return ToolRun(
        agent=agent,
        enabled=enabled,
        kinds=kinds,
        all_names=[t.name for t in agent.tools],
        context=progress.context_wrapper,
        run_config=run.run_config,
        hooks=run.hooks,
        span=run.step_span,
        ledger=progress.ledger,
        handler=run.approval_handler,
        waiting=progress.paused,
        input_results=run.tool_input_guardrail_results,
        output_results=run.tool_output_guardrail_results,
        replay=run.replay,
        mode=progress.mode,
    )


async def _tools_final_output(
    run: TurnRun,
    agent: Agent[Any],
    calls: list[ToolCallItem],
    outputs: list[ToolCallOutputItem],
    enabled: Mapping[str, Any],
) -> ToolsToFinalOutputResult:
    behavior = agent.tool_use_behavior
    if behavior == "run_llm_again":
        return ToolsToFinalOutputResult(is_final_output=False)
    by_id = {c.call_id: c for c in calls}
    # In the order the model made the calls, whenever each finished (a call approved on resume
    # comes after the calls it followed in the model's answer, as in the SDK).
    order = {c.call_id: index for index, c in enumerate(calls)}
    results = [
        FunctionToolResult(tool=tool, output=out.output, run_item=out)
        for out in sorted(outputs, key=lambda o: order.get(o.call_id, len(order)))
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
    decided = await call_maybe_async(behavior, run.progress.context_wrapper, results)
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
    named = enabled.get(call_lookup_name(raw, getattr(raw, "name", None) or ""))
    if named is not None:
        return named
    kind = kind_for_call(raw.type)
    if kind is None or not kind.executable:
        return None
    return enabled.get(kind.parse_call(raw).name)


async def _hand_off(
    run: TurnRun,
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
        run.progress.new_items.append(ignored)
        run.progress.model_input.append(ignored.raw_item)
        yield RunItemStreamEvent(name="tool_output", item=ignored)
    chosen = next(h for h in handoffs if h.tool_name == first.raw_item.name)
    target = await chosen.on_invoke_handoff(run.progress.context_wrapper, first.raw_item.arguments)
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
    run.progress.new_items.append(output)
    run.progress.model_input.append(output.raw_item)
    span = handoff_span(from_agent=agent.name, to_agent=target.name, parent=run.step_span)
    span.start()
    span.finish()
    yield RunItemStreamEvent(name="handoff_occured", item=output)
    await run.hooks.handoff(agent, target)
    input_filter = chosen.input_filter or run.run_config.handoff_input_filter
    if input_filter is not None:
        await _filter_history(run, input_filter, turn_start)
    yield HandedOff(target)


async def _filter_history(run: TurnRun, input_filter: Any, turn_start: int) -> None:
    history = run.progress.original_input
    data = HandoffInputData(
        input_history=history if isinstance(history, str) else tuple(history),
        pre_handoff_items=tuple(run.progress.new_items[:turn_start]),
        new_items=tuple(run.progress.new_items[turn_start:]),
        run_context=run.progress.context_wrapper,
    )
    filtered = await call_maybe_async(input_filter, data)
    if not isinstance(filtered, HandoffInputData):
        raise UserError("A handoff input filter must return HandoffInputData.")
    items = ItemHelpers.input_to_new_input_list(
        filtered.input_history
        if isinstance(filtered.input_history, str)
        else list(filtered.input_history)
    )
    # input_items, when the filter set them, replace new_items in what the next agent sees.
    forwarded = filtered.new_items if filtered.input_items is None else filtered.input_items
    items.extend(i.to_input_item() for i in (*filtered.pre_handoff_items, *forwarded))
    run.progress.model_input = items
