"""``MCPUtil``: the SDK's helpers that turn MCP servers' tools into function tools and call
them, over a real stdio server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from jupyter_agents import Agent, ModelBehaviorError, RunContextWrapper, UserError
from jupyter_agents.mcp import MCPServerStdio, MCPUtil
from jupyter_agents.runtime.errors import MCPToolError

pytestmark = pytest.mark.http

SLOW_START = {"client_session_timeout_seconds": 60.0}
"""A busy machine may take more than the default 5 s to start a Python server."""


@pytest.fixture
async def demo(demo_command: list[str]) -> AsyncIterator[MCPServerStdio]:
    server = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]}, name="demo", **SLOW_START
    )
    async with server:
        yield server


async def test_function_tools_are_named_as_the_server_names_them_or_with_the_server(
    demo: MCPServerStdio,
) -> None:
    context, agent = RunContextWrapper(None), Agent(name="a")
    plain = await MCPUtil.get_all_function_tools([demo], True, context, agent)
    assert {"add", "echo"} <= {t.name for t in plain}
    qualified = await MCPUtil.get_function_tools(
        demo, True, context, agent, include_server_in_tool_names=True
    )
    assert {"mcp__demo__add", "mcp__demo__echo"} <= {t.name for t in qualified}
    renamed = await MCPUtil.get_function_tools(
        demo, False, context, agent, tool_name_override=lambda tool: f"x_{tool.name}"
    )
    assert all(t.name.startswith("x_") for t in renamed)


async def test_the_same_tool_names_on_two_servers_are_refused(
    demo: MCPServerStdio, demo_command: list[str]
) -> None:
    other = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]}, name="two", **SLOW_START
    )
    context, agent = RunContextWrapper(None), Agent(name="a")
    async with other:
        with pytest.raises(UserError, match="include_server_in_tool_names=True"):
            await MCPUtil.get_all_function_tools([demo, other], True, context, agent)
        both = await MCPUtil.get_all_function_tools(
            [demo, other], True, context, agent, include_server_in_tool_names=True
        )
    assert {"mcp__demo__add", "mcp__two__add"} <= {t.name for t in both}


async def test_a_function_tool_and_invoke_mcp_tool_call_the_server(demo: MCPServerStdio) -> None:
    tools = {t.name: t for t in await demo.list_tools()}
    made = MCPUtil.to_function_tool(tools["add"], demo, True, tool_name_override="plus")
    assert made.name == "plus" and made.strict_json_schema is True
    context = RunContextWrapper(None)
    answer = await MCPUtil.invoke_mcp_tool(demo, tools["add"], context, '{"a": 2, "b": 3}')
    assert json.loads(answer) == {"sum": 5}
    with pytest.raises(ModelBehaviorError, match="Invalid JSON input for tool add"):
        await MCPUtil.invoke_mcp_tool(demo, tools["add"], context, "{not json")
    with pytest.raises(MCPToolError, match="bad input"):
        await MCPUtil.invoke_mcp_tool(demo, tools["fail"], context, '{"message": "bad input"}')
