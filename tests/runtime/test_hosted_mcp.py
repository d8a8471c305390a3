"""Hosted MCP approvals over the Responses API, against the local OpenAI-compatible server."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    HostedMCPTool,
    MCPApprovalRequestItem,
    MCPToolApprovalFunctionResult,
    MCPToolApprovalRequest,
    OpenAIResponsesModel,
    Runner,
)
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyItem, ReplyText

from ..recorded import json_body

pytestmark = pytest.mark.http

CONFIG = {
    "type": "mcp",
    "server_label": "wiki",
    "server_url": "https://mcp.example.com/sse",
    "require_approval": "always",
}
LIST_TOOLS = ReplyItem(
    {
        "type": "mcp_list_tools",
        "server_label": "wiki",
        "tools": [{"name": "ask", "input_schema": {"type": "object"}}],
    }
)
APPROVAL = ReplyItem(
    {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "wiki",
        "name": "ask",
        "arguments": json.dumps({"question": "What is MCP?"}),
    }
)
CALL = ReplyItem(
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "wiki",
        "name": "ask",
        "arguments": "{}",
        "output": "A protocol.",
    }
)


def model_for(server: FakeOpenAIServer) -> OpenAIResponsesModel:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    return OpenAIResponsesModel("gpt-test", openai_client=client)


async def run(agent: Agent, stream: bool, input: Any = "What is MCP?") -> Any:
    if not stream:
        return await Runner.run(agent, input)
    result = Runner.run_streamed(agent, input)
    result.names = [  # type: ignore[attr-defined]
        e.name async for e in result.stream_events() if e.type == "run_item_stream_event"
    ]
    return result


def approval_responses(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    last = json_body(server.model_requests[-1])["input"]
    return [i for i in last if i.get("type") == "mcp_approval_response"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("approve", [True, False])
async def test_callback_answers_approval_requests(
    openai_server: FakeOpenAIServer, approve: bool, stream: bool
) -> None:
    seen: list[MCPToolApprovalRequest] = []

    async def on_approval(request: MCPToolApprovalRequest) -> MCPToolApprovalFunctionResult:
        seen.append(request)
        return {"approve": approve, "reason": "policy"} if not approve else {"approve": True}

    openai_server.enqueue(
        Reply([LIST_TOOLS, APPROVAL]),
        Reply([CALL, ReplyText("MCP is a protocol.")] if approve else [ReplyText("Declined.")]),
    )
    tool = HostedMCPTool(tool_config=CONFIG, on_approval_request=on_approval)
    agent = Agent(name="m", model=model_for(openai_server), tools=[tool])

    result = await run(agent, stream)

    assert result.final_output == ("MCP is a protocol." if approve else "Declined.")
    (request,) = seen
    assert (request.data.name, request.data.server_label) == ("ask", "wiki")
    expected = {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": approve,
    }
    if not approve:
        expected["reason"] = "policy"
    assert approval_responses(openai_server) == [expected]
    sent_tools = json_body(openai_server.model_requests[0])["tools"]
    assert sent_tools == [CONFIG]
    if stream:
        assert result.names[:2] == ["mcp_list_tools", "mcp_approval_requested"]


async def test_without_callback_the_request_interrupts_and_resumes(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(Reply([LIST_TOOLS, APPROVAL]), Reply([CALL, ReplyText("Done.")]))
    agent = Agent(name="m", model=model_for(openai_server), tools=[HostedMCPTool(CONFIG)])

    paused = await Runner.run(agent, "What is MCP?")
    (item,) = paused.interruptions
    assert isinstance(item, MCPApprovalRequestItem)
    assert (item.tool_name, item.call_id, item.arguments) == (
        "ask",
        "mcpr_1",
        {"question": "What is MCP?"},
    )
    state = paused.to_state()
    state = type(state).from_json(agent, state.to_json())  # survives serialisation
    assert state.approve(state.interruptions[0])
    resumed = await Runner.run(agent, state)

    assert resumed.final_output == "Done."
    assert approval_responses(openai_server) == [
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
    ]


async def test_without_callback_the_runs_approval_handler_decides(
    openai_server: FakeOpenAIServer,
) -> None:
    from jupyter_agents import ApprovalDecision, ApprovalRequest

    asked: list[ApprovalRequest] = []

    async def handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return ApprovalDecision.reject("no remote calls today")

    openai_server.enqueue(Reply([LIST_TOOLS, APPROVAL]), Reply([ReplyText("Understood.")]))
    agent = Agent(name="m", model=model_for(openai_server), tools=[HostedMCPTool(CONFIG)])
    result = await Runner.run(agent, "What is MCP?", approval_handler=handler)

    assert result.final_output == "Understood."
    (request,) = asked
    assert (request.tool_name, request.call_id) == ("ask", "mcpr_1")
    assert approval_responses(openai_server) == [
        {
            "type": "mcp_approval_response",
            "approval_request_id": "mcpr_1",
            "approve": False,
            "reason": "no remote calls today",
        }
    ]
