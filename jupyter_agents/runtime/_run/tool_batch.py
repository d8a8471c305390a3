"""Executing the function calls of one model response: approvals, then concurrent invocation."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from .._util import call_maybe_async
from ..agent_tool import NestedRunPaused, event_sink, nested_resume, outer_approval_handler
from ..approvals import (
    ApprovalDecision,
    approved_call,
    call_handler,
    rejection_message,
    withdraw,
)
from ..context import ToolContext
from ..errors import (
    ModelBehaviorError,
    UserError,
)
from ..events import RunItemStreamEvent
from ..items import ToolApprovalItem, ToolCallItem, ToolCallOutputItem, ToolError
from ..sandbox.bwrap import SandboxUnavailable
from ..sandbox.policy import EscalationRequest
from ..tool_errors import timeout_message, tool_error
from ..tools import ToolArgumentsError
from ..tools.kinds import (
    LocalTool,
    ToolKind,
    chat_form_kind,
    kind_for_call,
    kind_for_tool,
)
from ..tracing import function_span
from .tool_approvals import BatchApprovals
from .tool_checks import (
    Outcome,
    check_input,
    check_output,
    reworded,
    run_with_timeout,
    watchdog,
)

COARSE_TIMEOUT = 10.0
"""Run-wide default tool timeouts this long or longer use the shared coarse watchdog."""

if TYPE_CHECKING:
    from ..agent import Agent
    from ..run_state import RunState
    from .loop import RunLoop

logger = logging.getLogger("jupyter_agents")

_DONE = object()


class ToolBatch(BatchApprovals):
    """The function calls of one response: run together, reported as each finishes.

    Iterate :meth:`run` for the events (approval requests, outputs in completion order);
    afterwards :attr:`outputs` holds the outputs in call order, which is the order the model
    gets them back in, and :attr:`interruptions` the calls waiting for a decision.
    """

    def __init__(
        self,
        agent: Agent[Any],
        calls: Sequence[ToolCallItem],
        enabled: dict[str, LocalTool],
        all_names: Sequence[str],
        loop: RunLoop,
    ) -> None:
        self._agent = agent
        self._calls = calls
        self._enabled = enabled
        self._all_names = all_names
        self._loop = loop
        self._context = loop.progress.context_wrapper
        self._ledger = loop.progress.ledger
        self._handler = loop.approval_handler
        self._results: list[ToolCallOutputItem | None] = [None] * len(calls)
        self._queue: asyncio.Queue[Any] | None = None
        self.interruptions: list[ToolApprovalItem] = []
        self.nested: dict[str, RunState] = {}
        """Paused nested runs of agent tools, by the outer call id."""
        self._always: dict[str, asyncio.Event] = {}
        self.escalations: dict[str, str] = {}
        """The arguments of waiting calls that ask to leave the sandbox after it stopped them
        (``on-failure``), by call id."""
        self._kinds: dict[str, ToolKind | None] = {}

    @property
    def outputs(self) -> list[ToolCallOutputItem]:
        """Outputs of the calls that finished, in call order."""
        return [item for item in self._results if item is not None]

    async def run(self) -> AsyncGenerator[RunItemStreamEvent, None]:
        """Start every call at once; yield events as they happen."""
        forwarding = any(
            getattr(self._enabled.get(c.tool_name or ""), "forwards_events", False)
            for c in self._calls
        )
        if len(self._calls) == 1 and not forwarding:  # the common case: no task, no queue
            async with aclosing(self._run_one(0, self._calls[0])) as events:
                async for event in events:
                    yield event
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._queue = queue
        tasks = [
            asyncio.ensure_future(self._feed(i, call, queue)) for i, call in enumerate(self._calls)
        ]
        try:
            remaining = len(tasks)
            while remaining:
                event = await queue.get()
                if event is _DONE:
                    remaining -= 1
                elif isinstance(event, BaseException):
                    raise event
                else:
                    yield event
        finally:
            pending = [task for task in tasks if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    async def _feed(self, index: int, call: ToolCallItem, queue: asyncio.Queue[Any]) -> None:
        try:
            async with aclosing(self._run_one(index, call)) as events:
                async for event in events:
                    queue.put_nowait(event)
        except Exception as e:
            queue.put_nowait(e)
        queue.put_nowait(_DONE)

    async def _run_one(
        self, index: int, call: ToolCallItem
    ) -> AsyncGenerator[RunItemStreamEvent, None]:
        raw = call.raw_item
        chat_kind = chat_form_kind(raw, self._enabled.get(getattr(raw, "name", "")))
        kind, chat_form = (chat_kind, True) if chat_kind else (_kind_of(call), False)
        parsed_call = (kind.parse_chat_call if chat_form else kind.parse_call)(raw)
        name, call_id, arguments = parsed_call.name, parsed_call.call_id, parsed_call.arguments
        tool = self._tool_for(kind, name)
        decision: ApprovalDecision | None = None
        problem = kind.argument_problem(tool, arguments) if tool is not None else None
        # A call the sandbox stopped, waiting (in a resumed run) to be let out of it, with the
        # arguments the person was shown.
        escalation: str | None = None
        saved = self._loop.progress.paused.escalations.pop(call_id, None)
        if saved is not None:
            arguments = saved
            escalation = str(kind.parsed_arguments(saved).get("justification", ""))
        declined: Any = None  # answers the call if a person keeps it in the sandbox
        ran: Outcome | None
        while True:
            if problem is not None:
                # Unusable arguments (e.g. not a JSON object): an error to the model, before
                # any approval or invocation.
                ran = Outcome.failed(problem, "ToolArgumentsError")
            elif tool is not None and await self._needs_approval(tool, kind, arguments, call):
                alone = kind.decided_alone(arguments)
                decision = self._ledger.take(name, call_id, arguments, standing=not alone)
                item = ToolApprovalItem(
                    agent=self._agent,
                    raw_item=call.raw_item,
                    tool_name=name,
                    arguments=kind.parsed_arguments(arguments),
                    call_item=call,
                    escalation=escalation,
                )
                if decision is None:
                    decision = await self._callback_decision(tool, item)
                if decision is None:
                    request = self._request(tool, item, allows_always=not alone)
                    # Ask before announcing, so a decision sent in reply to the event finds
                    # the request already waiting.
                    answer = call_handler(self._handler, request) if self._handler else None
                    try:
                        yield RunItemStreamEvent(name="tool_approval_requested", item=item)
                    except GeneratorExit:
                        withdraw(answer)
                        raise
                    if self._handler is None:
                        self.interruptions.append(item)
                        if escalation is not None:
                            self.escalations[call_id] = arguments
                        return
                    decision = await self._decision(tool, request, answer, alone)
                    if not alone:
                        self._ledger.remember_always(name, decision)
                        if decision.always:
                            self._standing(name).set()
                if decision.approved and decision.arguments is not None:
                    arguments = json.dumps(decision.arguments)
                if decision.approved:
                    token = approved_call.set(call_id)
                    try:
                        ran = await self._invoke_or_pause(kind, name, call_id, arguments, raw)
                    finally:
                        approved_call.reset(token)
                elif declined is not None:
                    ran = Outcome(declined)  # what the sandboxed run did
                else:
                    told = rejection_message(name, decision.message)
                    if decision.message is None:  # the person's own words win over the formatter
                        told = await reworded(
                            self._loop, "approval_rejected", kind.name, name, call_id, told
                        )
                    ran = Outcome(told, "rejected")
            else:
                ran = await self._invoke_or_pause(kind, name, call_id, arguments, raw)
            if ran is None or not isinstance(ran.value, EscalationRequest) or escalation:
                break
            # Stopped by the sandbox under "on-failure": ask whether to run it outside.
            escalation, declined = ran.value.reason, ran.value.value
            arguments = kind.escalated_arguments(arguments, escalation)
        if ran is None:
            return  # an agent tool's nested run paused: its calls are this run's interruptions
        outcome = Outcome(ran.value.value) if isinstance(ran.value, EscalationRequest) else ran
        output = ToolCallOutputItem(
            agent=self._agent,
            raw_item=(kind.chat_output_item if chat_form else kind.output_item)(
                parsed_call, outcome.value
            ),
            output=outcome.value,
            approval=decision,
            status=outcome.status,
            error=outcome.error,
            call_item=call,
        )
        self._results[index] = output
        yield RunItemStreamEvent(name="tool_output", item=output)

    def _tool_for(self, kind: ToolKind, name: str) -> Any | None:
        """The enabled tool of ``kind`` called ``name``, if the agent offers it now."""
        tool = self._enabled.get(name)
        if tool is None:
            return None
        tool_kind = self._kinds.get(name)
        if tool_kind is None:
            tool_kind = self._kinds[name] = kind_for_tool(tool)
        return tool if tool_kind is kind else None

    async def _invoke_or_pause(
        self, kind: ToolKind, name: str, call_id: str, arguments: str, raw: Any
    ) -> Outcome | None:
        """Run the call; None when it is an agent tool whose nested run paused for approvals
        (the outer run then pauses with the nested calls as its interruptions)."""
        if not getattr(self._enabled.get(name), "forwards_events", False):
            return await self._invoke(kind, name, call_id, arguments, raw)  # not an agent tool
        nested = self._loop.nested_states
        token = nested_resume.set(nested.pop(call_id, None) if nested else None)
        handler_token = outer_approval_handler.set(self._handler)
        try:
            return await self._invoke(kind, name, call_id, arguments, raw)
        except NestedRunPaused as paused:
            self.nested[call_id] = paused.state
            self.interruptions.extend(
                i for i in paused.state.interruptions if isinstance(i, ToolApprovalItem)
            )
            return None
        finally:
            outer_approval_handler.reset(handler_token)
            nested_resume.reset(token)

    async def _invoke(
        self, kind: ToolKind, name: str, call_id: str, arguments: str, raw: Any
    ) -> Outcome:
        tool = self._tool_for(kind, name)
        if tool is None:
            if self._loop.run_config.tool_not_found_behavior == "raise_error":
                raise ModelBehaviorError(
                    f"The model called tool {name!r}, which agent {self._agent.name!r} does not "
                    "offer now (RunConfig.tool_not_found_behavior is 'raise_error')."
                )
            told = self._missing_tool_message(name)
            told = await reworded(self._loop, "tool_not_found", kind.name, name, call_id, told)
            return Outcome.failed(told, "ToolNotFound")
        ctx = self._tool_context(name, call_id, arguments, raw)
        refused = await check_input(self._loop, self._agent, tool, ctx)
        if refused is not None:
            return Outcome(refused, "blocked")
        hooks = self._loop.hooks
        await hooks.tool_start(self._agent, tool)
        with function_span(name, input=arguments, parent=self._loop.agent_span) as span:
            outcome = await self._call_tool(kind, tool, ctx, arguments)
            if outcome.status == "ok" and not isinstance(outcome.value, EscalationRequest):
                outcome = await check_output(self._loop, self._agent, tool, ctx, outcome)
            value = outcome.value
            span.span_data.output = value if isinstance(value, str) else repr(value)
        await hooks.tool_end(self._agent, tool, value)
        return outcome

    async def _call_tool(
        self, kind: ToolKind, tool: Any, ctx: ToolContext[Any], arguments: str
    ) -> Outcome:
        token = event_sink.set(self._queue.put_nowait if self._queue is not None else None)
        timeout = getattr(tool, "timeout", None)
        precise = timeout is not None
        if timeout is None:
            timeout = self._loop.run_config.tool_timeout
        try:
            invocation = kind.invoke(tool, ctx, arguments)
            if timeout is None:
                return Outcome(await invocation)
            if precise or timeout < COARSE_TIMEOUT:
                finished, value = await run_with_timeout(invocation, timeout)
            else:  # the run's long default limit: one shared coarse timer, not one per call
                finished, value = await watchdog().run(invocation, timeout)
            if finished:
                return Outcome(value)
            message = timeout_message(tool, timeout)
            return Outcome(message, "timeout", ToolError("timeout", message))
        except ToolArgumentsError as e:
            return Outcome.failed(str(e), "ToolArgumentsError")
        except EscalationRequest as e:
            return Outcome(e)  # _run_one asks whether to run it outside the sandbox
        except SandboxUnavailable:
            raise  # the setup, not the call, is wrong: the person must fix it
        except NestedRunPaused:
            raise
        except Exception as e:
            if getattr(tool, "failure_error_function", None) is None:
                raise
            logger.info("tool %r raised %r; the model is told", tool.name, e)
            try:
                told = await call_maybe_async(tool.failure_error_function, ctx, e)
            except Exception as handler_error:
                raise UserError(
                    f"The failure_error_function of tool {tool.name!r} raised {handler_error!r} "
                    f"while handling {e!r}."
                ) from handler_error
            return Outcome(told, "error", tool_error(e))
        finally:
            event_sink.reset(token)

    def _missing_tool_message(self, name: str) -> str:
        if name in self._all_names:
            return f"Tool {name!r} is not available right now. Do not call it again in this turn."
        available = ", ".join(sorted(self._enabled)) or "none"
        return f"Tool {name!r} does not exist. Available tools: {available}."


def _kind_of(call: ToolCallItem) -> ToolKind:
    kind = kind_for_call(call.raw_item.type)
    if kind is None or not kind.executable:  # finish_turn only sends executable calls
        raise ModelBehaviorError(f"No tool kind runs {call.raw_item.type!r} items.")
    return kind
