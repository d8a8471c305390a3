"""The invoke step of a tool call: input guardrails, hooks and span, the tool under its time
limit, output guardrails. An agent tool's nested run may pause instead of answering."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, cast

from .._threads import left_running
from .._util import call_maybe_async
from ..agent_tool import NestedRunPaused, event_sink, nested_resume, outer_approval_handler
from ..approvals import approved_call
from ..context import ToolContext
from ..errors import AgentsException, ModelBehaviorError, ToolTimeoutError, UserError
from ..items import ToolError
from ..modes import mode_refusal
from ..questions import asker
from ..run_config import ToolErrorFormatterArgs
from ..sandbox.bwrap import SandboxUnavailable
from ..sandbox.policy import EscalationRequest
from ..tool_errors import timeout_message, tool_error
from ..tools import FunctionTool, ToolArgumentsError
from ..tools.background import BackgroundCall, BackgroundReason, report_background
from ..tools.kinds import LocalTool
from ..tracing import function_span
from .tool_approvals import asker_for, tool_context
from .tool_call import ToolCall, ToolRun
from .tool_checks import Outcome, check_input, check_output, reworded, run_with_timeout, watchdog

if TYPE_CHECKING:
    from ..tools import Tool

__all__ = ["COARSE_TIMEOUT", "EventSink", "invoke"]

logger = logging.getLogger("jupyter_agents")

COARSE_TIMEOUT = 10.0
"""Run-wide default tool timeouts this long or longer use the shared coarse watchdog."""

EventSink = Callable[[Any], None]
"""Where a running tool's own stream events go (an agent tool's nested events)."""


async def invoke(
    run: ToolRun, call: ToolCall, approved: bool, sink: EventSink | None
) -> Outcome | None:
    """Run the call: its outcome, or None when it is an agent tool whose nested run paused
    for approvals (``call.nested`` holds that run; the outer run pauses with its calls).

    ``approved``: a person approved this very call just now; tools that must not run a call
    otherwise (a shell leaving its sandbox) check ``approved_call``.
    """
    forwards = call.tool is not None and call.tool.forwards_events
    run_it = _nested if forwards else _invoke
    asking = asker.set(asker_for(run, call))
    try:
        if not approved:
            return await run_it(run, call, sink)
        token = approved_call.set(call.parsed.call_id)
        try:
            return await run_it(run, call, sink)
        finally:
            approved_call.reset(token)
    finally:
        asker.reset(asking)


async def _nested(run: ToolRun, call: ToolCall, sink: EventSink | None) -> Outcome | None:
    """An agent tool's call: it resumes the nested run a pause saved for it, and its nested
    run asks the same handler; None when the nested run paused."""
    nested = run.waiting.nested
    token = nested_resume.set(nested.pop(call.parsed.call_id, None) if nested else None)
    handler_token = outer_approval_handler.set(run.handler)
    try:
        return await _invoke(run, call, sink)
    except NestedRunPaused as paused:
        call.nested = paused.state
        return None
    finally:
        outer_approval_handler.reset(handler_token)
        nested_resume.reset(token)


async def _invoke(run: ToolRun, call: ToolCall, sink: EventSink | None) -> Outcome:
    tool = call.tool
    if tool is None:
        return await _not_found(run, call)
    ctx = tool_context(run, call)
    refused = await check_input(run.input_results, run.agent, tool, ctx)
    if refused is not None:
        return Outcome(refused, "blocked")
    hooks, agent = run.hooks, run.agent
    hooked = cast("Tool", tool)  # every tool the run executes is one of the agent's
    await hooks.tool_start(agent, hooked, ctx)  # the call's ToolContext, as in the SDK
    with function_span(call.parsed.name, input=call.arguments, parent=run.span) as span:
        outcome = await _call_tool(run, call, tool, ctx, sink)
        if outcome.status == "ok" and not isinstance(outcome.value, EscalationRequest):
            outcome = await check_output(run.output_results, agent, tool, ctx, outcome)
        value = outcome.value
        span.span_data.output = value if isinstance(value, str) else repr(value)
    await hooks.tool_end(agent, hooked, value, ctx)
    return outcome


async def _call_tool(
    run: ToolRun, call: ToolCall, tool: LocalTool, ctx: ToolContext[Any], sink: EventSink | None
) -> Outcome:
    """The tool under its time limit; a sync function the run stops waiting for (stopped, or
    out of time) goes on on its thread, and is reported (``tools.background``)."""
    token = event_sink.set(sink)
    going_on: list[Future[Any]] = []
    watching = left_running.set(going_on.append)
    try:
        outcome = await _limited(run, call, tool, ctx)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _went_on(call, going_on, "stopped")
        raise
    finally:
        left_running.reset(watching)
        event_sink.reset(token)
    if outcome.status == "timeout":
        _went_on(call, going_on, "timeout")
    return outcome


def _went_on(call: ToolCall, futures: list[Future[Any]], reason: BackgroundReason) -> None:
    loop = asyncio.get_running_loop()
    for future in futures:
        parsed = call.parsed
        report_background(BackgroundCall(parsed.call_id, parsed.name, reason, future, loop))


async def _limited(run: ToolRun, call: ToolCall, tool: LocalTool, ctx: ToolContext[Any]) -> Outcome:
    timeout = tool.timeout
    precise = timeout is not None
    if timeout is None:
        timeout = run.run_config.tool_timeout
    try:
        invocation = call.kind.invoke(tool, ctx, call.arguments)
        if timeout is None:
            return Outcome(await invocation)
        if precise or timeout < COARSE_TIMEOUT:
            finished, value = await run_with_timeout(invocation, timeout)
        else:  # the run's long default limit: one shared coarse timer, not one per call
            finished, value = await watchdog().run(invocation, timeout)
        if finished:
            return Outcome(value)
        return await _timed_out(tool, ctx, timeout)
    except ToolArgumentsError as e:
        return Outcome.failed(str(e), "ToolArgumentsError")
    except EscalationRequest as e:
        return Outcome(e)  # the escalate step asks whether to run it outside the sandbox
    except SandboxUnavailable:
        raise  # the setup, not the call, is wrong: the person must fix it
    except (NestedRunPaused, ToolTimeoutError):
        raise  # a paused nested run, or a timeout that ends the run by the tool's choice
    except Exception as e:
        return await _failed(tool, ctx, e)


async def _timed_out(tool: LocalTool, ctx: ToolContext[Any], timeout: float) -> Outcome:
    """A call out of time: the run ends (``timeout_behavior="raise_exception"``), or the model
    is told (by the tool's ``timeout_error_function`` when it has one)."""
    if tool.timeout_behavior == "raise_exception":
        raise ToolTimeoutError(tool.name, timeout)
    message = timeout_message(tool, timeout)
    if tool.timeout_error_function is not None:
        told = await call_maybe_async(
            tool.timeout_error_function, ctx, ToolTimeoutError(tool.name, timeout)
        )
        message = told if isinstance(told, str) else str(told)
    return Outcome(message, "timeout", ToolError("timeout", message))


async def _failed(tool: LocalTool, ctx: ToolContext[Any], error: Exception) -> Outcome:
    """A tool that raised: its ``failure_error_function`` tells the model, or the run ends
    (a function tool's error not of this library's own as a ``UserError`` naming the tool and
    caused by it, as in the SDK; other kinds of tool raise it as it is)."""
    told_by = tool.failure_error_function
    if told_by is None:
        if isinstance(tool, FunctionTool) and not isinstance(error, AgentsException):
            raise UserError(f"Error running tool {tool.name}: {error}") from error
        raise error
    logger.info("tool %r raised %r; the model is told", tool.name, error)
    try:
        told = await call_maybe_async(told_by, ctx, error)
    except Exception as handler_error:
        raise UserError(
            f"The failure_error_function of tool {tool.name!r} raised {handler_error!r} "
            f"while handling {error!r}."
        ) from handler_error
    return Outcome(told, "error", tool_error(error))


async def _not_found(run: ToolRun, call: ToolCall) -> Outcome:
    """A call naming a tool the agent does not offer now: the model is told (or the run ends,
    with ``tool_not_found_behavior="raise_error"``)."""
    name = call.parsed.name
    mode = run.mode.mode
    if mode != "agent":  # the run's mode did not offer it: a refusal, not the model's error
        told = mode_refusal(mode, name)
        args = ToolErrorFormatterArgs(
            "mode_refused", call.kind.name, name, call.parsed.call_id, told, run.context
        )
        told = await reworded(run.run_config.tool_error_formatter, args)
        return Outcome(told, "rejected", ToolError("ModeRefused", told))
    if run.run_config.tool_not_found_behavior == "raise_error":
        raise ModelBehaviorError(
            f"The model called tool {name!r}, which agent {run.agent.name!r} does not "
            "offer now (RunConfig.tool_not_found_behavior is 'raise_error')."
        )
    if name in run.all_names:
        told = f"Tool {name!r} is not available right now. Do not call it again in this turn."
    else:
        available = ", ".join(sorted(run.enabled)) or "none"
        told = f"Tool {name!r} does not exist. Available tools: {available}."
    args = ToolErrorFormatterArgs(
        "tool_not_found", call.kind.name, name, call.parsed.call_id, told, run.context
    )
    told = await reworded(run.run_config.tool_error_formatter, args)
    return Outcome.failed(told, "ToolNotFound")
