"""Answering hosted MCP approval requests (Responses API ``mcp_approval_request`` items)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._util import call_maybe_async
from ..approval_ledger import ApprovalLedger
from ..approvals import ApprovalDecision, ApprovalHandler, ApprovalRequest, call_handler, settle
from ..context import RunContextWrapper
from ..errors import UserError
from ..items import MCPApprovalRequestItem, MCPApprovalResponseItem
from ..tools import HostedMCPTool, MCPToolApprovalRequest

if TYPE_CHECKING:
    from ..agent import Agent


def _server(agent: Agent[Any], label: str) -> HostedMCPTool | None:
    for item in agent.tools:
        if isinstance(item, HostedMCPTool) and item.server_label == label:
            return item
    return None


def _coerce(value: Any) -> ApprovalDecision:
    if isinstance(value, dict) and "approve" in value:
        if value["approve"]:
            return ApprovalDecision.approve()
        return ApprovalDecision.reject(message=value.get("reason"))
    try:
        return ApprovalDecision.coerce(value)
    except UserError:
        raise UserError(
            "on_approval_request must return {'approve': bool, 'reason': str}, True or False; "
            f"got {value!r}."
        ) from None


def ledger_name(request: MCPApprovalRequestItem) -> str:
    """The name "always" decisions use for a hosted MCP tool: ``mcp:<server>:<tool>``."""
    return f"mcp:{request.raw_item.server_label}:{request.tool_name}"


async def answer_mcp_request(
    agent: Agent[Any],
    request: MCPApprovalRequestItem,
    ledger: ApprovalLedger,
    context: RunContextWrapper[Any],
    handler: ApprovalHandler | None = None,
) -> MCPApprovalResponseItem | None:
    """The response to send for ``request``, or None when it must wait for a person.

    The server's ``on_approval_request`` decides first; without one, the run's approval
    handler is asked like for a function tool; without either, the run pauses.
    """
    raw = request.raw_item
    name = ledger_name(request)
    decision = ledger.take(name, request.call_id, raw.arguments or "")
    if decision is None:
        server = _server(agent, raw.server_label)
        if server is not None and server.on_approval_request is not None:
            result = await call_maybe_async(
                server.on_approval_request, MCPToolApprovalRequest(ctx_wrapper=context, data=raw)
            )
            decision = _coerce(result)
        elif handler is not None:
            ask = ApprovalRequest(
                agent=agent,
                tool_name=request.tool_name,
                arguments=request.arguments,
                call_id=request.call_id,
                json_schema={},
            )
            decision = await settle(call_handler(handler, ask))
            decision = ApprovalDecision(decision.approved, decision.always, None, decision.message)
        else:
            return None
        ledger.remember_always(name, decision)
    response: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": request.call_id,
        "approve": decision.approved,
    }
    if not decision.approved and decision.message:
        response["reason"] = decision.message
    return MCPApprovalResponseItem(agent=agent, raw_item=response)
