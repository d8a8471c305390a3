"""The decide step of a batch's calls: whether a call needs a decision, and getting one."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from .._util import call_maybe_async
from ..approvals import (
    ApprovalDecision,
    ApprovalRequest,
    call_handler,
    rejection_message,
    withdraw,
)
from ..context import ToolContext
from ..errors import UserError
from ..events import RunItemStreamEvent
from ..items import ToolApprovalItem
from ..modes import reviews_plan
from ..questions import Asker, Question, tool_question
from ..run_config import ToolErrorFormatterArgs
from ..tools.kinds import LocalTool
from ..tools.lookup_names import call_lookup_name
from .tool_call import ToolCall, ToolRun
from .tool_checks import Outcome, reworded

__all__ = ["MAX_EDIT_ATTEMPTS", "Approvals", "asker_for", "needs_approval", "tool_context"]

logger = logging.getLogger("jupyter_agents")

MAX_EDIT_ATTEMPTS = 3
"""How often a handler may send invalid edited arguments before the call is rejected."""


def tool_context(run: ToolRun, call: ToolCall, call_id: str | None = None) -> ToolContext[Any]:
    """The context a tool (and its ``needs_approval`` function) gets for ``call``."""
    return ToolContext.from_run_context(
        run.context,
        tool_name=call.parsed.name,
        tool_call_id=call.parsed.call_id if call_id is None else call_id,
        tool_arguments=call.arguments,
        tool_call=call.item.raw_item,
        run_config=run.run_config,
    )


async def needs_approval(run: ToolRun, call: ToolCall) -> bool:
    """Whether the call waits for a decision: a plan in ``plan`` mode does (a person approves
    it before the run may act), else its tool's ``needs_approval`` says so (a bool, or a
    function of the call). A call with no tool needs none: it does not run."""
    tool = call.tool
    if tool is None:
        return False
    if reviews_plan(run.mode.mode, tool):
        return True
    flag = tool.needs_approval
    if isinstance(flag, bool):
        return flag
    parsed = call.kind.parsed_arguments(call.arguments)
    call_id = call.item.call_id or ""
    ctx = tool_context(run, call, call_id)
    return bool(await call_maybe_async(flag, ctx, parsed, call_id))


def asker_for(run: ToolRun, call: ToolCall) -> Asker | None:
    """How ``call``, while it runs, asks the person a question (an MCP server's elicitation):
    through the run's approval handler, on the call's card; None when the run has no handler
    (it pauses for decisions, and cannot pause in the middle of a call)."""
    handler = run.handler
    if handler is None:
        return None

    async def ask(question: Question) -> Any:
        def check(arguments: dict[str, Any]) -> str | None:
            return question.problem(arguments["answer"]) if "answer" in arguments else "no answer"

        request = ApprovalRequest(
            agent=run.agent,
            tool_name=call.parsed.name,
            arguments={},
            call_id=call.parsed.call_id,
            json_schema={},
            validator=check,
            call_item=call.item,
            allows_always=False,
            question=question,
        )
        for _ in range(MAX_EDIT_ATTEMPTS):
            answered = call_handler(handler, request)
            if inspect.isawaitable(answered):
                answered = await answered
            if answered is None:  # nobody will answer during the call
                return None
            decision = ApprovalDecision.coerce(answered)
            if not decision.approved:
                return None
            problem = check(decision.arguments or {})
            if problem is None:
                return (decision.arguments or {})["answer"]
            request = dataclasses.replace(request, error=problem)
        return None

    return ask


UNKNOWN_OUTCOME = (
    "{tool} was running when the run stopped (the kernel died or restarted), so whether it did "
    "its work is not known. Approve to run it again; reject to tell the model it did not run "
    "again."
)
"""What a person is told of a call whose outcome is unknown (a resumed run)."""


class Approvals:
    """Decides on the calls of one batch that need approval.

    In order: a decision recorded for the call (or the tool's standing "always" one), the
    tool's ``on_approval`` callback, then the run's approval handler, asked while the run
    waits. Without a handler the call waits for a person and the run pauses. An "always"
    decision that arrives while other calls of the same tool wait answers them too; a call
    decided alone (``decided_alone``, or a
    function tool with ``always_asks``) neither uses nor makes one.
    """

    def __init__(self, run: ToolRun) -> None:
        self._run = run
        self._always: dict[str, asyncio.Event] = {}

    async def decide(self, call: ToolCall) -> AsyncGenerator[RunItemStreamEvent, None]:
        """Decide on ``call``, yielding the approval request when a person is asked.

        Afterwards ``call.decision`` holds the decision (edited arguments applied to
        ``call.arguments``), or None when the call waits for a person (``call.asked``).
        """
        run, parsed = self._run, call.parsed
        tool = call.tool
        assert tool is not None  # needs_approval is False without a tool
        call.decision = None
        plan_review = reviews_plan(run.mode.mode, tool)
        alone = (
            call.kind.decided_alone(call.arguments, tool, run.run_config)
            or tool.always_asks
            or plan_review
            or call.unknown
        )
        decision = run.ledger.take(call.key, parsed.call_id, call.arguments, standing=not alone)
        item = call.asked = ToolApprovalItem(
            agent=run.agent,
            raw_item=call.item.raw_item,
            tool_name=parsed.name,
            arguments=call.kind.parsed_arguments(call.arguments),
            call_item=call.item,
            escalation=call.escalation,
            question=tool_question(tool, call.kind.parsed_arguments(call.arguments)),
        )
        if decision is None and not (plan_review or call.unknown):  # a person's to decide
            decision = await self._callback_decision(tool, item)
        if decision is None:
            handler = run.handler
            request = self._request(tool, item, allows_always=not alone, plan_review=plan_review)
            if call.unknown:  # the person is told why they are asked
                request = dataclasses.replace(
                    request, note=UNKNOWN_OUTCOME.format(tool=parsed.name)
                )
            # Ask before announcing, so a decision sent in reply to the event finds the
            # request already waiting.
            answer = call_handler(handler, request) if handler else None
            try:
                yield RunItemStreamEvent(name="tool_approval_requested", item=item)
            except GeneratorExit:
                withdraw(answer)
                raise
            if handler is None:
                return
            decided = await self._decision(request, answer, alone)
            if decided is None:  # the handler left it to a person: the call waits (a pause)
                return
            decision = decided
            if not alone:
                run.ledger.remember_always(call.key, decision)
                if decision.always:
                    self._standing(call.key).set()
        if decision.approved and decision.arguments is not None:
            call.arguments = json.dumps(decision.arguments)
        call.decision = decision

    async def refusal(self, call: ToolCall) -> Outcome:
        """The answer to a call a person did not let run: what the sandboxed run did when it
        asked to leave the sandbox, else the rejection (``tool_error_formatter`` may reword
        it unless the person gave a reason)."""
        if call.declined is not None:
            return Outcome(call.declined)
        assert call.decision is not None
        message = call.decision.message
        own = call.tool.rejection_text(message) if call.tool is not None else None
        if own is not None:  # a skipped question says so
            return Outcome(own, "rejected")
        if call.decision.exact and message is not None:  # RunState.reject(rejection_message=)
            return Outcome(message, "rejected")
        told = rejection_message(call.parsed.name, message)
        if message is None:  # the person's own words win over the formatter
            args = ToolErrorFormatterArgs(
                "approval_rejected",
                call.kind.name,
                call.parsed.name,
                call.parsed.call_id,
                told,
                self._run.context,
            )
            told = await reworded(self._run.run_config.tool_error_formatter, args)
        return Outcome(told, "rejected")

    def _request(
        self, tool: LocalTool, item: ToolApprovalItem, *, allows_always: bool, plan_review: bool
    ) -> ApprovalRequest:
        return ApprovalRequest(
            agent=self._run.agent,
            tool_name=item.tool_name,
            arguments=item.arguments,
            call_id=item.call_id,
            json_schema=tool.params_json_schema or {},
            validator=tool.validate_arguments,
            call_item=item.call_item,
            allows_always=allows_always,
            question=item.question,
            plan_review=plan_review,
        )

    async def _callback_decision(
        self, tool: LocalTool, item: ToolApprovalItem
    ) -> ApprovalDecision | None:
        """The tool's own ``on_approval`` callback's decision (the SDK's contract:
        ``(run_context, approval_item) -> {"approve": bool, "reason"?: str}``); None when the
        tool has none or it leaves the call to a person."""
        callback = tool.on_approval
        if callback is None:
            return None
        try:
            answer = await call_maybe_async(callback, self._run.context, item)
        except Exception as e:
            raise UserError(
                f"The on_approval callback of tool {item.tool_name!r} raised {e!r}; fix it or "
                "return {'approve': True/False}."
            ) from e
        if not isinstance(answer, Mapping):
            return None
        if answer.get("approve") is True:
            return ApprovalDecision.approve()
        if answer.get("approve") is False:
            reason = answer.get("reason")
            return ApprovalDecision.reject(reason if isinstance(reason, str) and reason else None)
        return None

    def _standing(self, tool_name: str) -> asyncio.Event:
        """Set when an "always" decision for ``tool_name`` arrives during this batch."""
        return self._always.setdefault(tool_name, asyncio.Event())

    async def _decision(
        self, request: ApprovalRequest, answer: Any, alone: bool
    ) -> ApprovalDecision | None:
        """The handler's decision (None: left to a person later), or an "always" decision
        made meanwhile for another call of the same tool in this batch (the request is then
        withdrawn). A call decided alone (an escalation, a dangerous command) waits for its
        own decision."""
        if alone:
            return await self._settle(request, answer)
        standing = self._standing(_request_key(request))
        asked = asyncio.ensure_future(self._settle(request, answer))
        waiting = asyncio.ensure_future(standing.wait())
        try:
            await asyncio.wait({asked, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            if not asked.done():
                asked.cancel()
                await asyncio.gather(asked, return_exceptions=True)
                # Only after the task let go of it: closing a coroutine the task is still
                # awaiting makes the task fail with "cannot reuse already awaited coroutine".
                withdraw(answer)
        if not asked.cancelled():
            return asked.result()  # the handler's decision (or its error)
        return self._run.ledger.always[_request_key(request)]

    async def _settle(self, request: ApprovalRequest, answer: Any) -> ApprovalDecision | None:
        """The handler's decision (None: it left the call to a person later); invalid edited
        arguments are refused and asked again."""
        handler = self._run.handler
        assert handler is not None
        problem = None
        for attempt in range(MAX_EDIT_ATTEMPTS):
            if attempt:
                answer = call_handler(handler, request)
            if inspect.isawaitable(answer):
                answer = await answer
            if answer is None:
                return None
            decision = ApprovalDecision.coerce(answer)
            if not decision.approved or decision.arguments is None:
                return decision
            problem = request.validate(decision.arguments)
            if problem is None:
                return decision
            logger.info("edited arguments for %r refused: %s", request.tool_name, problem)
            request = dataclasses.replace(request, error=problem)
        return ApprovalDecision.reject(message=f"the edited arguments were invalid ({problem})")


def _request_key(request: ApprovalRequest) -> str:
    """The name the request's tool is approved by (``namespace.name`` for a namespaced
    function tool's call)."""
    call = request.call_item
    return call_lookup_name(call.raw_item, request.tool_name) if call else request.tool_name
