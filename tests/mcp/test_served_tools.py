"""Tools of every kind served over MCP (``ToolboxServer``) and called by the ``mcp`` SDK's own
client: one call runs the tool once and asks once, under the run-wide policy it is given."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from jupyter_agents import (
    ApprovalDecision,
    BaseTool,
    RunConfig,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
)
from jupyter_agents.runtime.mcp.toolbox_server import ToolboxServer

from ..prerequisites import needs_bwrap


@asynccontextmanager
async def sdk_client(served: ToolboxServer) -> AsyncIterator[ClientSession]:
    """A session of the ``mcp`` SDK's Streamable HTTP client with the server's token."""
    http = create_mcp_http_client(headers=served.headers, timeout=httpx2.Timeout(30, read=60))
    async with (
        http,
        streamable_http_client(served.url, http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


class Asks:
    """An approval handler that counts the requests and answers each the same way."""

    def __init__(self, approve: bool = True) -> None:
        self.requests: list[Any] = []
        self.approve = approve

    def __call__(self, request: Any) -> ApprovalDecision:
        self.requests.append(request)
        return ApprovalDecision.approve() if self.approve else ApprovalDecision.reject("no")


class Counter(BaseTool):
    """A class-based tool that asks first and counts its runs."""

    name = "count"
    description = "Count a call."
    parameters = {"type": "object", "properties": {"label": {"type": "string"}}}

    def __init__(self) -> None:
        super().__init__(needs_approval=True)
        self.runs: list[str] = []

    def call(self, params: dict[str, Any], **kwargs: Any) -> str:
        self.runs.append(params["label"])
        return f"counted {params['label']}"


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def test_one_call_to_a_served_class_tool_runs_it_once_and_asks_once() -> None:
    tool, asks = Counter(), Asks()
    with ToolboxServer([tool], approval_handler=asks) as served:
        async with sdk_client(served) as session:
            result = await session.call_tool("count", {"label": "a"})
    assert text_of(result) == "counted a" and not result.is_error
    assert tool.runs == ["a"] and len(asks.requests) == 1


async def test_one_call_to_a_served_shell_runs_it_once() -> None:
    seen: list[list[str]] = []

    def executor(request: ShellCommandRequest) -> ShellResult:
        seen.append(request.commands)
        return ShellResult([ShellCommandOutput("hi\n", "", 0, c) for c in request.commands])

    asks = Asks()
    tool = ShellTool(executor=executor, approval_policy="untrusted")
    with ToolboxServer([tool], approval_handler=asks) as served:
        async with sdk_client(served) as session:
            listed = {t.name: t for t in (await session.list_tools()).tools}
            result = await session.call_tool("shell", {"commands": ["make hi"]})
    assert listed["shell"].input_schema["required"] == ["commands"]
    assert seen == [["make hi"]] and len(asks.requests) == 1
    assert "$ make hi\nhi\n[exit code 0]" in text_of(result) and not result.is_error


async def test_a_served_class_tool_that_raises_answers_with_an_error() -> None:
    class Broken(BaseTool):
        name = "broken"

        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            raise OSError("the disk is gone")

    with ToolboxServer([Broken()]) as served:
        async with sdk_client(served) as session:
            result = await session.call_tool("broken", {})
    assert result.is_error
    assert text_of(result) == "Tool 'broken' failed: OSError: the disk is gone"


# -- the run-wide policy (``%agent policy``) governs served calls ---------------------------


@needs_bwrap
@pytest.mark.parametrize(
    ("policy", "asked", "written"),
    [
        # approval, sandbox -> asked?, did `touch` write into the workspace?
        (("untrusted", "read-only"), 1, False),
        (("untrusted", "workspace-write"), 1, True),
        (("never", "read-only"), 0, False),
        (("never", "workspace-write"), 0, True),
    ],
)
async def test_a_served_shell_runs_under_the_run_config_it_is_given(
    tmp_path: Path, policy: tuple[str, str], asked: int, written: bool
) -> None:
    approval, mode = policy
    config = RunConfig(approval_policy=approval, sandbox_mode=mode, workspace=tmp_path)  # type: ignore[arg-type]
    asks = Asks()
    name = f"made-{uuid.uuid4().hex[:8]}"
    with ToolboxServer([ShellTool()], approval_handler=asks, run_config=config) as served:
        async with sdk_client(served) as session:
            result = await session.call_tool("shell", {"commands": [f"pwd; touch {name}"]})
    assert len(asks.requests) == asked
    assert (tmp_path / name).exists() is written
    assert str(tmp_path) in text_of(result)  # the policy's workspace, not the current folder
    if not written:
        assert "Read-only file system" in text_of(result)


async def test_the_run_config_is_read_at_each_call() -> None:
    configs = [RunConfig(approval_policy="never"), RunConfig(approval_policy="untrusted")]
    seen: list[list[str]] = []

    def executor(request: ShellCommandRequest) -> ShellResult:
        seen.append(request.commands)
        return ShellResult([ShellCommandOutput("", "", 0, c) for c in request.commands])

    asks = Asks(approve=False)
    tool = ShellTool(executor=executor)
    with ToolboxServer([tool], approval_handler=asks, run_config=lambda: configs[0]) as served:
        async with sdk_client(served) as session:
            await session.call_tool("shell", {"commands": ["touch one"]})
            configs.pop(0)  # `%agent policy untrusted` between two calls
            refused = await session.call_tool("shell", {"commands": ["touch two"]})
    assert seen == [["touch one"]] and len(asks.requests) == 1 and refused.is_error
