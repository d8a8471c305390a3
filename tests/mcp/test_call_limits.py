"""How long an MCP call may take (the documented tool timeout, not the session's 5 s) and how
much of its answer reaches the model (capped like shell output), against a real server."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, RunConfig, Runner
from jupyter_agents.mcp import MCPServerError, MCPServerStdio
from jupyter_agents.runtime.mcp.results import MAX_IMAGE_BYTES, MAX_IMAGES, MAX_RESULT_CHARS
from jupyter_agents.runtime.tools.kinds import describe_call
from jupyter_agents.testing import ScriptedModel, text, tool_call

from .results import text_of

SERVER = Path(__file__).parent / "servers" / "slow_big_server.py"


def slow_big(**options: Any) -> MCPServerStdio:
    return MCPServerStdio({"command": sys.executable, "args": [str(SERVER)]}, name="sb", **options)


@pytest.fixture
async def server() -> AsyncIterator[MCPServerStdio]:
    started = slow_big()  # (`async with ... as` would type it as the base MCPServer)
    async with started:
        yield started


async def call_in_run(
    server: MCPServerStdio, tool: str, arguments: dict[str, Any], **config: Any
) -> tuple[Any, Any]:
    """One model call of ``tool``; the run's result and what the model was told."""
    model = ScriptedModel([[tool_call(f"mcp__sb__{tool}", arguments)], [text("ok")]])
    agent = Agent(name="a", model=model, mcp_servers=[server])
    result = await Runner.run(agent, "go", run_config=RunConfig(**config))
    return result, model.requests[1].input[-1]["output"]


async def wait_for_log(server: MCPServerStdio, line: str, seconds: float = 10) -> str:
    """The server's stderr once it holds ``line`` (a condition waited on, with a deadline)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while line not in (log := server.stderr_log()):
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"the server never wrote {line!r}; its stderr:\n{log}")
        await asyncio.sleep(0.05)  # polling a child's log file
    return log


# -- timeouts -----------------------------------------------------------------------------------


async def test_a_call_may_take_longer_than_the_session_timeout(server: MCPServerStdio) -> None:
    # The session's timeout (5 s by default) is for starting and listing; a call has the run's
    # tool timeout (600 s by default).
    assert server.client_session_timeout_seconds == 5
    _result, told = await call_in_run(server, "nap", {"seconds": 5.5})
    assert told == "rested 5.5 s"


async def test_a_run_without_a_tool_timeout_sets_none_on_the_call(server: MCPServerStdio) -> None:
    _result, told = await call_in_run(server, "nap", {"seconds": 0.1}, tool_timeout=None)
    assert told == "rested 0.1 s"


async def test_outside_a_run_the_server_tool_timeout_governs() -> None:
    server = slow_big(tool_timeout_seconds=1)
    async with server:
        with pytest.raises(MCPServerError, match=r"did not answer tool 'block' within 1 s"):
            await server.call_tool("block", {})
        await wait_for_log(server, "block: cancelled")


@pytest.mark.parametrize("where", ["run", "server"])
async def test_the_documented_timeout_stops_a_call_and_the_server_hears_of_it(
    where: str,
) -> None:
    options: dict[str, Any] = {"client_session_timeout_seconds": 5}
    config: dict[str, Any] = {}
    if where == "server":
        options["tool_timeout_seconds"] = 1
    else:
        config["tool_timeout"] = 1
    server = slow_big(**options)
    async with server:
        result, told = await call_in_run(server, "block", {}, **config)
        assert told == "Tool 'mcp__sb__block' did not finish within 1 s and was stopped."
        output = next(i for i in result.new_items if i.type == "tool_call_output_item")
        assert output.status == "timeout"
        await wait_for_log(server, "block: cancelled")  # the call was cancelled, not left
        assert text_of(await server.call_tool("nap", {"seconds": 0})) == "rested 0 s"


# -- sizes --------------------------------------------------------------------------------------


async def test_huge_text_is_cut_head_and_tail(server: MCPServerStdio) -> None:
    result, told = await call_in_run(server, "big_text", {"chars": 3_000_000})
    assert told.startswith("HEADxxx") and told.endswith("xxxTAIL")
    assert f"… {3_000_008 - MAX_RESULT_CHARS:,} characters cut …" in told
    assert len(told) < MAX_RESULT_CHARS + 100
    calls = [i for i in result.new_items if i.type == "tool_call_item"]
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    shown = describe_call(calls[0], outputs[0])
    assert "characters cut" in shown.parts[0].text  # the card shows the cut


async def test_ten_thousand_blocks_are_cut_too(server: MCPServerStdio) -> None:
    _result, told = await call_in_run(server, "many_blocks", {"count": 10_000})
    assert told.startswith("block 0\nblock 1\n") and told.endswith("block 9999")
    assert "characters cut" in told and len(told) < MAX_RESULT_CHARS + 100


async def test_a_huge_embedded_resource_is_cut(server: MCPServerStdio) -> None:
    _result, told = await call_in_run(server, "big_resource", {"chars": 3_000_000})
    assert told.startswith("[resource note://big]\nRRR") and "characters cut" in told
    assert len(told) < MAX_RESULT_CHARS + 100


async def test_a_huge_image_becomes_a_note(server: MCPServerStdio) -> None:
    _result, told = await call_in_run(server, "big_image", {"size": MAX_IMAGE_BYTES + 1})
    assert isinstance(told, str) and "image/png" in told and "not shown" in told
    assert len(told) < 200


async def test_many_images_keep_the_first_few(server: MCPServerStdio) -> None:
    _result, told = await call_in_run(server, "many_images", {"count": 500})
    images = [p for p in told if p["type"] == "input_image"]
    notes = [p["text"] for p in told if p["type"] == "input_text"]
    assert len(images) == MAX_IMAGES
    assert any(f"{500 - MAX_IMAGES} more images not shown" in n for n in notes)
