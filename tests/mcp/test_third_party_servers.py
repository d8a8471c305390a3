"""Servers we did not write: mcp-server-time and mcp-server-git from PyPI, and
@modelcontextprotocol/server-everything from npm over stdio and Streamable HTTP, each driven by
an agent run through the local OpenAI-compatible server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import Agent, Runner
from jupyter_agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies

pytestmark = pytest.mark.http


async def run_one(
    openai_server: FakeOpenAIServer, server: Any, tool: str, args: dict[str, Any]
) -> Any:
    """Let the model call ``tool`` once; returns what the model was sent back."""
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    openai_server.enqueue(
        Reply([ReplyToolCall(tool, args, call_id="c1")]), Reply([ReplyText("ok")])
    )
    agent = Agent(
        name="a", model=OpenAIResponsesModel("gpt-test", openai_client=client), mcp_servers=[server]
    )
    async with server:
        result = await Runner.run(agent, "go")
    assert result.final_output == "ok"
    first, second = json_bodies(openai_server.model_requests[-2:])
    names = [t["name"] for t in first["tools"]]
    [sent] = [i["output"] for i in second["input"] if i.get("type") == "function_call_output"]
    return names, sent


async def test_time_server(openai_server: FakeOpenAIServer) -> None:
    server = MCPServerStdio(
        {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        name="time",
    )
    names, sent = await run_one(
        openai_server, server, "mcp__time__get_current_time", {"timezone": "Europe/Paris"}
    )
    assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(names)
    assert json.loads(sent)["timezone"] == "Europe/Paris"


async def test_git_server(openai_server: FakeOpenAIServer, git_repo: Path) -> None:
    server = MCPServerStdio(
        {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", str(git_repo)],
        },
        name="git",
    )
    names, sent = await run_one(
        openai_server, server, "mcp__git__git_diff_unstaged", {"repo_path": str(git_repo)}
    )
    assert "mcp__git__git_status" in names
    assert "+second" in sent


async def test_everything_server_over_stdio(
    openai_server: FakeOpenAIServer, everything_command: list[str]
) -> None:
    server = MCPServerStdio(
        {"command": everything_command[0], "args": everything_command[1:]}, name="everything"
    )
    names, sent = await run_one(openai_server, server, "mcp__everything__echo", {"message": "hi"})
    assert len(names) >= 5 and "hi" in sent


async def test_everything_server_over_streamable_http(
    openai_server: FakeOpenAIServer, everything_http_url: str
) -> None:
    server = MCPServerStreamableHttp({"url": everything_http_url}, name="everything")
    names, sent = await run_one(
        openai_server, server, "mcp__everything__get-sum", {"a": 2, "b": 40}
    )
    assert "mcp__everything__echo" in names and "42" in sent
