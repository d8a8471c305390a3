"""The notebook's served tools run as MCP tasks (``ToolboxServer``, what ``%agent mcp serve``
serves): a client that asks for a task gets one at once, polls it and fetches the result, so a
call longer than its requests' timeout ends well; ``tasks/cancel`` stops the call; the tool's
progress is the task's status; its questions reach the client through ``tasks/result``; a
client that asks for no task gets the plain call. Clients: the ``mcp`` SDK's own, and ours."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    Question,
    Runner,
    ToolContext,
    ask_user,
    function_tool,
)
from jupyter_agents.mcp import MCPServerStreamableHttp
from jupyter_agents.runtime.mcp.task_client import raw_request
from jupyter_agents.runtime.mcp.toolbox_server import ToolboxServer
from jupyter_agents.runtime.tools.live_output import tool_progress_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call

from .results import text_of

REQUEST_TIMEOUT = -32001
stopped = threading.Event()


@function_tool
async def crunch(ctx: ToolContext[Any], seconds: float) -> str:
    """Crunch numbers for a while, saying how far it got."""
    for step in range(5):
        ctx.report_progress(step, 5, "crunching")
        await asyncio.sleep(seconds / 5)
    return "crunched"


@function_tool
async def hold_on() -> str:
    """Wait until cancelled."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        stopped.set()
        raise
    return "held"


@function_tool
async def pick_colour() -> str:
    """Ask which colour to paint with."""
    colour = await ask_user(Question("Which colour?", choices=("red", "blue")))
    return f"painted {colour}"


@asynccontextmanager
async def sdk_session(served: ToolboxServer, timeout: float = 30) -> AsyncIterator[ClientSession]:
    """A session of the ``mcp`` SDK's Streamable HTTP client whose requests may take ``timeout``
    seconds each."""
    http = create_mcp_http_client(headers=served.headers, timeout=httpx2.Timeout(30, read=60))
    async with (
        http,
        streamable_http_client(served.url, http_client=http) as (read, write, *_),
        ClientSession(read, write, read_timeout_seconds=timeout) as session,
    ):
        await session.initialize()
        yield session


async def start_task(session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
    """Call ``tool`` as a task (the SDK's ``call_tool`` refuses a task for an answer, so the
    request goes as the SDK sends it, unchecked); the task's id."""
    params = {"name": tool, "arguments": arguments, "task": {"ttl": 60_000}}
    answer = await raw_request(session, "tools/call", params, 5)
    task_id: str = answer["task"]["taskId"]
    assert answer["task"]["status"] == "working"
    return task_id


async def follow(
    session: ClientSession, task_id: str
) -> tuple[list[str], mcp_types.CallToolResult]:
    """Poll the task at the server's interval until it ended, then fetch its result: the status
    messages seen, and the result (both checked by the SDK's own types)."""
    seen: list[str] = []
    while True:
        asked = mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=task_id))
        state = await session.send_request(asked, mcp_types.GetTaskResult)
        seen.append(state.status_message or "")
        if state.status in ("completed", "failed", "cancelled"):
            break
        await asyncio.sleep((state.poll_interval or 500) / 1000)  # as the protocol asks
    fetch = mcp_types.GetTaskPayloadRequest(
        params=mcp_types.GetTaskPayloadRequestParams(task_id=task_id)
    )
    return seen, await session.send_request(fetch, mcp_types.CallToolResult)


async def test_the_server_runs_calls_as_tasks_and_each_tool_may_run_as_one() -> None:
    with ToolboxServer([crunch, hold_on]) as served:
        async with sdk_session(served) as session:
            capabilities = session.server_capabilities
            listed = await session.list_tools()
    tasks = capabilities.tasks if capabilities is not None else None
    assert tasks is not None and tasks.cancel is not None and tasks.list is not None
    assert tasks.requests is not None and tasks.requests.tools is not None
    assert tasks.requests.tools.call is not None
    assert {t.name: t.execution.task_support for t in listed.tools if t.execution} == {
        "crunch": "optional",
        "hold_on": "optional",
    }


async def test_a_call_longer_than_the_clients_timeout_ends_well_only_as_a_task() -> None:
    with ToolboxServer([crunch]) as served:
        async with sdk_session(served, timeout=1) as session:
            with pytest.raises(MCPError) as timed_out:  # the plain call: 2.5 s, 1 s allowed
                await session.call_tool("crunch", {"seconds": 2.5})
            assert timed_out.value.code == REQUEST_TIMEOUT
            task_id = await start_task(session, "crunch", {"seconds": 2.5})
            seen, result = await follow(session, task_id)
    assert text_of(result) == "crunched" and not result.is_error
    assert result.meta == {"io.modelcontextprotocol/related-task": {"taskId": task_id}}
    assert "crunching (4/5)" in seen  # the tool's progress, as the task's status message


async def test_our_client_calls_a_served_tool_as_a_task_with_its_progress_on_the_card() -> None:
    reports: list[tuple[str, float, float | None, str]] = []
    token = tool_progress_sink.set(lambda *said: reports.append(said))
    try:
        with ToolboxServer([crunch]) as served:
            remote = MCPServerStreamableHttp(
                {"url": served.url, "headers": served.headers}, name="nb"
            )
            async with remote:
                remote.client_session_timeout_seconds = 1  # each request; the call takes 2.5 s
                model = ScriptedModel(
                    [[tool_call("mcp__nb__crunch", {"seconds": 2.5}, call_id="c1")], [text("ok")]]
                )
                await Runner.run(Agent(name="a", model=model, mcp_servers=[remote]), "go")
            async with sdk_session(served) as other:  # tasks belong to the server
                listed = await raw_request(other, "tasks/list", {}, 5)
    finally:
        tool_progress_sink.reset(token)
    assert model.requests[1].input[-1]["output"] == "crunched"
    assert [task["status"] for task in listed["tasks"]] == ["completed"]
    assert "crunching (4/5)" in [message for *_, message in reports]  # polled
    assert ("c1", 4.0, 5.0, "crunching (4/5)") in reports  # notified: a bar


async def test_tasks_cancel_stops_the_served_call() -> None:
    stopped.clear()
    with ToolboxServer([hold_on]) as served:
        async with sdk_session(served) as session:
            task_id = await start_task(session, "hold_on", {})
            cancel = mcp_types.CancelTaskRequest(
                params=mcp_types.CancelTaskRequestParams(task_id=task_id)
            )
            cancelled = await session.send_request(cancel, mcp_types.CancelTaskResult)
            assert cancelled.status == "cancelled"
            assert await asyncio.to_thread(stopped.wait, 10)  # the tool's run was stopped
            asked = mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=task_id))
            state = await session.send_request(asked, mcp_types.GetTaskResult)
    assert state.status == "cancelled" and served.calls == 0


async def test_a_second_connection_polls_the_same_task() -> None:
    with ToolboxServer([crunch]) as served:
        async with sdk_session(served) as first:
            task_id = await start_task(first, "crunch", {"seconds": 1})
        async with sdk_session(served) as second:  # the first connection is gone
            _, result = await follow(second, task_id)
    assert text_of(result) == "crunched" and served.calls == 1


async def test_a_tasks_question_reaches_the_client_through_tasks_result() -> None:
    served_asked: list[ApprovalRequest] = []

    def serving_handler(request: ApprovalRequest) -> ApprovalDecision:
        served_asked.append(request)
        return request.answer("red")

    asked: list[ApprovalRequest] = []

    def client_handler(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return request.answer("blue")

    with ToolboxServer([pick_colour], approval_handler=serving_handler) as served:
        remote = MCPServerStreamableHttp({"url": served.url, "headers": served.headers}, name="nb")
        async with remote:
            model = ScriptedModel([[tool_call("mcp__nb__pick_colour", {})], [text("ok")]])
            agent = Agent(name="a", model=model, mcp_servers=[remote])
            await Runner.run(agent, "paint", approval_handler=client_handler)
        async with sdk_session(served) as other:
            tasks = (await raw_request(other, "tasks/list", {}, 5))["tasks"]
    assert model.requests[1].input[-1]["output"] == "painted blue"
    [request] = asked
    assert request.question is not None and request.question.choices == ("red", "blue")
    assert served_asked == [] and [t["status"] for t in tasks] == ["completed"]


async def test_a_client_that_asks_for_no_task_gets_the_plain_call() -> None:
    with ToolboxServer([crunch]) as served:
        async with sdk_session(served) as session:
            result = await session.call_tool("crunch", {"seconds": 0.1})
            listed = await raw_request(session, "tasks/list", {}, 5)
    assert text_of(result) == "crunched" and listed["tasks"] == []
