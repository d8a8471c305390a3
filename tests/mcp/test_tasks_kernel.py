"""``%agent mcp serve`` in a real kernel, called by the ``mcp`` SDK's own client over Streamable
HTTP: a tool that runs longer than the client's request timeout (a plain call times out) ends
well as an MCP task, with its progress as the task's status; ``tasks/cancel`` stops a tool
running in the kernel."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from ..kernel.conftest import kernel_value
from ..kernel.frontend import Frontend
from .results import text_of
from .test_tasks_served import REQUEST_TIMEOUT, follow, start_task

pytestmark = pytest.mark.kernel

SETUP = '''
%load_ext jupyter_agents
import asyncio, time
from jupyter_agents import ToolContext, tool

holding = []

@tool
def crunch(ctx: ToolContext, seconds: float) -> str:
    """Crunch numbers for a while (a plain function, as a long cell is)."""
    for step in range(5):
        ctx.report_progress(step, 5, "crunching")
        time.sleep(seconds / 5)
    return f"crunched for {seconds:g} s"

@tool
async def hold_on() -> str:
    """Wait until cancelled."""
    holding.append("started")
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        holding.append("cancelled")
        raise
    return "held"
'''


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Frontend, str, dict[str, str]]]:
    """A kernel serving its toolbox (``%agent mcp serve``): the frontend, URL and headers."""
    fe = Frontend()
    try:
        fe.run(SETUP, timeout=60)
        fe.run("%agent mcp serve", timeout=60)
        url = kernel_value(fe, "toolbox_server.url")
        headers = kernel_value(fe, "toolbox_server.headers")
        yield fe, url, headers
    finally:
        fe.close()


@asynccontextmanager
async def client(url: str, headers: dict[str, str], timeout: float) -> AsyncIterator[ClientSession]:
    """The ``mcp`` SDK's client, each of its requests allowed ``timeout`` seconds."""
    http = create_mcp_http_client(headers=headers, timeout=httpx2.Timeout(30, read=60))
    async with (
        http,
        streamable_http_client(url, http_client=http) as (read, write, *_),
        ClientSession(read, write, read_timeout_seconds=timeout) as session,
    ):
        await session.initialize()
        yield session


async def until(fe: Frontend, expression: str, seconds: float = 20) -> Any:
    """The value of ``expression`` in the kernel once it is truthy (asked until then)."""
    deadline = time.monotonic() + seconds
    while not (value := await asyncio.to_thread(kernel_value, fe, expression)):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        await asyncio.sleep(0.1)  # polling the kernel's state
    return value


async def test_a_tool_longer_than_the_clients_timeout_ends_well_as_a_task(
    served: tuple[Frontend, str, dict[str, str]],
) -> None:
    _, url, headers = served
    async with client(url, headers, timeout=2) as session:
        with pytest.raises(MCPError) as timed_out:  # the plain call: 5 s, 2 s allowed
            await session.call_tool("crunch", {"seconds": 5})
        assert timed_out.value.code == REQUEST_TIMEOUT
        started = time.monotonic()
        task_id = await start_task(session, "crunch", {"seconds": 5})
        seen, result = await follow(session, task_id)
    assert time.monotonic() - started >= 5
    assert text_of(result) == "crunched for 5 s" and not result.is_error
    assert "crunching (4/5)" in seen  # the tool's progress, polled as the task's status


async def test_tasks_cancel_stops_a_tool_running_in_the_kernel(
    served: tuple[Frontend, str, dict[str, str]],
) -> None:
    fe, url, headers = served
    async with client(url, headers, timeout=2) as session:
        task_id = await start_task(session, "hold_on", {})
        await until(fe, "'started' in holding")
        cancel = mcp_types.CancelTaskRequest(
            params=mcp_types.CancelTaskRequestParams(task_id=task_id)
        )
        assert (
            await session.send_request(cancel, mcp_types.CancelTaskResult)
        ).status == "cancelled"
        assert await until(fe, "'cancelled' in holding")
