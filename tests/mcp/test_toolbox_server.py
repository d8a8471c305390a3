"""Function tools served over MCP (``ToolboxServer``), called by the mcp client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from jupyter_agents import ApprovalDecision, ToolOutputImage, function_tool
from jupyter_agents.mcp import MCPServerError, MCPServerStreamableHttp
from jupyter_agents.runtime.mcp.toolbox_server import ToolboxServer

from .results import text_of

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@function_tool(needs_approval=True)
def launch(target: str) -> str:
    """Launch something (asks first)."""
    return f"launched {target}"


@function_tool
def picture() -> ToolOutputImage:
    """A one-pixel picture."""
    return ToolOutputImage(image_url=f"data:image/png;base64,{PIXEL}")


def client(served: ToolboxServer, **options: Any) -> MCPServerStreamableHttp:
    return MCPServerStreamableHttp({"url": served.url, "headers": served.headers}, **options)


async def test_a_client_lists_and_calls_the_tools() -> None:
    with ToolboxServer([add, picture]) as served:
        assert served.url.startswith("http://127.0.0.1:")
        async with client(served, name="nb") as remote:
            tools = {t.name: t for t in await remote.list_tools()}
            assert set(tools) == {"add", "picture"}
            assert tools["add"].input_schema["required"] == ["a", "b"]
            summed = await remote.call_tool("add", {"a": 2, "b": 40})
            assert text_of(summed) == "42" and not summed.is_error
            shown = await remote.call_tool("picture", {})
            assert shown.content[0].type == "image" and shown.content[0].data == PIXEL
            wrong = await remote.call_tool("add", {"a": "two"})
            assert wrong.is_error
            missing = await remote.call_tool("nope", {})
            assert missing.is_error and "add, picture" in text_of(missing)
        assert served.calls == 3


async def test_the_token_is_required() -> None:
    with ToolboxServer([add]) as served:
        answer = httpx.post(served.url, json={}, timeout=5)
        assert answer.status_code == 401
        wrong = MCPServerStreamableHttp(
            {"url": served.url, "headers": {"Authorization": "Bearer wrong"}},
            name="intruder",
            client_session_timeout_seconds=5,
        )
        with pytest.raises(MCPServerError, match="could not start"):
            await wrong.connect()


@pytest.mark.parametrize("approve", [True, False])
async def test_calls_that_need_approval_ask_the_handler(approve: bool) -> None:
    asked: list[tuple[str, Any]] = []

    def handler(request: Any) -> ApprovalDecision:
        asked.append((request.tool_name, request.arguments))
        return ApprovalDecision.approve() if approve else ApprovalDecision.reject("not now")

    with ToolboxServer([launch], approval_handler=handler) as served:
        async with client(served, name="nb") as remote:
            result = await remote.call_tool("launch", {"target": "rocket"})
    assert asked == [("launch", {"target": "rocket"})]
    if approve:
        assert text_of(result) == "launched rocket" and not result.is_error
    else:
        assert result.is_error and "not now" in text_of(result)


async def test_without_a_handler_gated_calls_are_refused() -> None:
    with ToolboxServer([launch]) as served:
        async with client(served, name="nb") as remote:
            result = await remote.call_tool("launch", {"target": "rocket"})
    assert result.is_error and "needs approval" in text_of(result)


def test_only_this_machine() -> None:
    with pytest.raises(Exception, match=r"127\.0\.0\.1"):
        ToolboxServer([add], host="0.0.0.0")
