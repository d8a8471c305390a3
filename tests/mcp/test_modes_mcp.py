"""An MCP server's tools in ``ask`` mode: a tool that calls itself read-only (``readOnlyHint``)
is its server's claim, not the person's, so it is not offered and a call to it is refused."""

from __future__ import annotations

from typing import Any

from jupyter_agents import Agent, RunConfig, Runner, ToolCallOutputItem
from jupyter_agents.mcp import MCPServerStdio
from jupyter_agents.testing import ScriptedModel, text, tool_call


def outputs(result: Any) -> dict[str, Any]:
    return {str(i.call_id): i for i in result.new_items if isinstance(i, ToolCallOutputItem)}


async def test_a_servers_read_only_hint_does_not_make_its_tool_run_in_ask_mode(
    demo_command: list[str],
) -> None:
    model = ScriptedModel(
        [
            [
                tool_call("read_note", {"name": "a"}, call_id="r1"),
                tool_call("delete_note", {"name": "a"}, call_id="d1"),
            ],
            [text("ok")],
        ]
    )
    server = MCPServerStdio({"command": demo_command[0], "args": demo_command[1:]}, name="demo")
    async with server:
        agent = Agent(name="a", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "x", run_config=RunConfig(mode="ask"))
    assert model.requests[0].tool_names == []
    for call_id, name in (("r1", "read_note"), ("d1", "delete_note")):
        assert outputs(result)[call_id].status == "rejected"
        assert str(outputs(result)[call_id].output).startswith(
            f"ask mode: {name} is not one of the"
        )
