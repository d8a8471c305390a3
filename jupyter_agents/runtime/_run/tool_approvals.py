"""Asking about one call of a tool batch: whether it needs a decision, and getting one."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._util import call_maybe_async
from ..approvals import (
    ApprovalDecision,
    ApprovalLedger,
    ApprovalRequest,
    call_handler,
    settle,
    withdraw,
)
from ..context import RunContextWrapper, ToolContext
from ..errors import UserError
from ..items import ToolApprovalItem, ToolCallItem
from ..tools.kinds import LocalTool, ToolKind

if TYPE_CHECKING:
    from ..agent import Agent
    from ..approvals import ApprovalHandler
    from .loop import RunLoop

logger = logging.getLogger("jupyter_agents")

MAX_EDIT_ATTEMPTS = 3
"""How often a handler may send invalid edited arguments before the call is rejected."""


class BatchApprovals:
    """The approval steps of :class:`~.tool_batch.ToolBatch` (a base class: it sets these)."""

    _agent: Agent[Any]
    _loop: RunLoop
    _context: RunContextWrapper[Any]
    _ledger: ApprovalLedger
    _handler: ApprovalHandler | None
    _always: dict[str, asyncio.Event]

    async def _needs_approval(
        self, tool: LocalTool, kind: ToolKind, arguments: str, call: ToolCallItem
    ) -> bool:
        flag = tool.needs_approval
        if isinstance(flag, bool):
            return flag
        parsed = kind.parsed_arguments(arguments)
        call_id = call.call_id or ""
        ctx = self._tool_context(tool.name, call_id, arguments, call.raw_item)
        return bool(await call_maybe_async(flag, ctx, parsed, call_id))

    def _tool_context(self, name: str, call_id: str, arguments: str, raw: Any) -> ToolContext[Any]:
        return ToolContext.from_run_context(
            self._context,
            tool_name=name,
            tool_call_id=call_id,
            tool_arguments=arguments,
            tool_call=raw,
            run_config=self._loop.run_config,
        )

    def _request(
        self, tool: LocalTool, item: ToolApprovalItem, *, allows_always: bool = True
    ) -> ApprovalRequest:
        return ApprovalRequest(
            agent=self._agent,
            tool_name=item.tool_name,
            arguments=item.arguments,
            call_id=item.call_id,
            json_schema=getattr(tool, "params_json_schema", {}),
            validator=getattr(tool, "validate_arguments", None),
            call_item=item.call_item,
            allows_always=allows_always,
        )

    async def _callback_decision(
        self, tool: LocalTool, item: ToolApprovalItem
    ) -> ApprovalDecision | None:
        """The tool's own ``on_approval`` callback's decision (the SDK's contract:
        ``(run_context, approval_item) -> {"approve": bool, "reason"?: str}``); None when the
        tool has none or it leaves the call to a person."""
        callback = getattr(tool, "on_approval", None)
        if callback is None:
            return None
        try:
            answer = await call_maybe_async(callback, self._context, item)
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
        self, tool: LocalTool, request: ApprovalRequest, answer: Any, alone: bool = False
    ) -> ApprovalDecision:
        """The handler's decision, or an "always" decision made meanwhile for another call of
        the same tool in this batch (the request is then withdrawn). A call decided alone (an
        escalation, a dangerous command) waits for its own decision."""
        if alone:
            return await self._settle(tool, request, answer)
        standing = self._standing(request.tool_name)
        asked = asyncio.ensure_future(self._settle(tool, request, answer))
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
        return self._ledger.always[request.tool_name]

    async def _settle(
        self, tool: LocalTool, request: ApprovalRequest, answer: Any
    ) -> ApprovalDecision:
        """The handler's decision; invalid edited arguments are refused and asked again."""
        assert self._handler is not None
        problem = None
        for attempt in range(MAX_EDIT_ATTEMPTS):
            if attempt:
                answer = call_handler(self._handler, request)
            decision = await settle(answer)
            if not decision.approved or decision.arguments is None:
                return decision
            problem = request.validate(decision.arguments)
            if problem is None:
                return decision
            logger.info("edited arguments for %r refused: %s", request.tool_name, problem)
            request = dataclasses.replace(request, error=problem)
        return ApprovalDecision.reject(message=f"the edited arguments were invalid ({problem})")
