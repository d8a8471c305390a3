"""Answering hosted MCP approval requests (Responses API ``mcp_approval_request`` items)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._util import call_maybe_async
from .approvals import ApprovalDecision, ApprovalLedger
from .context import RunContextWrapper
from .errors import UserError
from .items import MCPApprovalRequestItem, MCPApprovalResponseItem
from .tools import HostedMCPTool, MCPToolApprovalRequest

if TYPE_CHECKING:
    from .agent import Agent


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


async def answer_mcp_request(
    agent: Agent[Any],
    request: MCPApprovalRequestItem,
    ledger: ApprovalLedger,
    context: RunContextWrapper[Any],
) -> MCPApprovalResponseItem | None:
    """The response to send for ``request``, or None when it must wait for a person."""
    raw = request.raw_item
    decision = ledger.lookup(request.tool_name, request.call_id, raw.arguments or "")
    if decision is None:
        server = _server(agent, raw.server_label)
        if server is None or server.on_approval_request is None:
            return None
        result = await call_maybe_async(
            server.on_approval_request, MCPToolApprovalRequest(ctx_wrapper=context, data=raw)
        )
        decision = _coerce(result)
        ledger.record(request.tool_name, request.call_id, raw.arguments or "", decision)
    response: dict[str, Any] = {
        "type": "mcp_approval_response",
        "approval_request_id": request.call_id,
        "approve": decision.approved,
    }
    if not decision.approved and decision.message:
        response["reason"] = decision.message
    return MCPApprovalResponseItem(agent=agent, raw_item=response)
