"""The client calls long tools as MCP tasks, against real servers that run calls as tasks: the test
task server (the ``mcp`` SDK's low-level server, over stdio and Streamable HTTP) and npm's
server-everything. Its requests stay short whatever the call's length; the task's status and
progress reach the card; Stop and the time limit cancel the task; a lost connection is opened
again and the same task polled, never run twice."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, ApprovalDecision, ApprovalRequest, RunConfig, Runner
from jupyter_agents.mcp import MCPServer, MCPServerError, MCPServerStdio, MCPServerStreamableHttp
from jupyter_agents.runtime.tools.live_output import tool_progress_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call

from .conftest import HERE, alive, children_of, free_port, wait_for_port
from .results import text_of

TASKS = HERE / "servers" / "task_server.py"
Report = tuple[str, float, float | None, str]


def task_server(**options: Any) -> MCPServerStdio:
    """The test task server over stdio."""
    return MCPServerStdio(
        {"command": sys.executable, "args": [str(TASKS)]}, name="tasks", **options
    )


async def short_requests(server: MCPServer) -> None:
    """Connect (starting a server takes longer), then let each request take a second at
    most: a call of several seconds ends well only as a task."""
    await server.connect()
    server.client_session_timeout_seconds = 1


async def history(server: MCPServer) -> dict[str, Any]:
    """What the server says happened (a plain call)."""
    seen: dict[str, Any] = json.loads(text_of(await server.call_tool("history", {})))
    return seen


async def eventually(
    server: MCPServer, holds: Callable[[dict[str, Any]], bool], seconds: float = 15
) -> dict[str, Any]:
    """The server's history once ``holds`` is true of it (asked until then, for ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        seen = await history(server)
        if holds(seen) or time.monotonic() > deadline:
            return seen
        await asyncio.sleep(0.1)  # polling the server's state, not timing our own code


class Reports:
    """What reaches the cards' progress bars (``tool_progress_sink``), and when the first did."""

    def __init__(self) -> None:
        self.said: list[Report] = []
        self.came = asyncio.Event()

    def __call__(self, call_id: str, done: float, total: float | None, message: str) -> None:
        self.said.append((call_id, done, total, message))
        self.came.set()

    def messages(self) -> list[str]:
        return [message for *_, message in self.said]


@pytest.fixture
def reports() -> Iterator[Reports]:
    seen = Reports()
    token = tool_progress_sink.set(seen)
    yield seen
    tool_progress_sink.reset(token)


def run_of(server: MCPServer, tool: str, arguments: dict[str, Any]) -> Agent[Any]:
    model = ScriptedModel([[tool_call(tool, arguments, call_id="c1")], [text("done")]])
    return Agent(name="a", model=model, mcp_servers=[server])


def told(agent: Agent[Any]) -> Any:
    assert isinstance(agent.model, ScriptedModel)
    return agent.model.requests[1].input[-1]["output"]


async def test_a_long_call_runs_as_a_task_with_its_progress_on_the_card(
    reports: Reports,
) -> None:
    async with task_server() as server:
        await short_requests(server)
        agent = run_of(server, "mcp__tasks__slow_report", {"seconds": 2.5, "steps": 5})
        await Runner.run(agent, "go")
        seen = await history(server)
    assert told(agent) == "report after 5 steps"  # a call of 2.5 s, each request within 1 s
    assert seen["created"] == {"slow_report": 1} and seen["gets"] >= 2
    assert {call for call, *_ in reports.said} == {"c1"}
    messages = reports.messages()
    assert messages[0] == "starting" and "step 4 of 5" in messages  # the task's status
    assert ("c1", 5.0, 5.0, "step 5") in reports.said  # its progress notifications


async def test_over_streamable_http_a_task_outlives_the_requests_timeout(
    start_server: Callable[[list[str], int], str], tmp_path: Path
) -> None:
    port = free_port()
    argv = [sys.executable, str(TASKS), "--transport", "streamable-http", "--port", str(port)]
    base = start_server([*argv, "--store", str(tmp_path / "tasks.json")], port)
    server = MCPServerStreamableHttp({"url": f"{base}/mcp"}, name="tasks")
    async with server:
        await short_requests(server)
        await server.list_tools()
        waited = await server.call_tool("durable_wait", {"seconds": 2.5})
        report = await server.call_tool("slow_report", {"seconds": 1.5, "steps": 3})
        seen = await history(server)
    assert text_of(waited) == "waited" and text_of(report) == "report after 3 steps"
    assert seen["created"] == {"durable_wait": 1, "slow_report": 1}


async def test_stop_cancels_the_task(reports: Reports) -> None:
    async with task_server() as server:
        agent = run_of(server, "mcp__tasks__slow_report", {"seconds": 60, "steps": 60})
        result = Runner.run_streamed(agent, "go")

        async def stop_once_it_runs() -> None:
            await asyncio.wait_for(reports.came.wait(), 20)  # the task's first status
            result.cancel()  # what Stop does

        stopping = asyncio.create_task(stop_once_it_runs())
        async for _ in result.stream_events():
            pass
        await stopping
        seen = await eventually(server, lambda h: bool(h["cancelled"]))
    assert result.is_cancelled
    assert len(seen["cancelled"]) == 1 and seen["finished"] == []


async def test_the_calls_time_limit_cancels_the_task() -> None:
    async with task_server() as server:
        agent = run_of(server, "mcp__tasks__slow_report", {"seconds": 60, "steps": 60})
        await Runner.run(agent, "go", run_config=RunConfig(tool_timeout=1.5))
        seen = await eventually(server, lambda h: bool(h["cancelled"]))
    assert "did not finish within 1.5 s" in str(told(agent))
    assert len(seen["cancelled"]) == 1 and seen["finished"] == []


def launch(port: int, store: Path, logs: Path) -> subprocess.Popen[bytes]:
    """The test task server over Streamable HTTP on ``port``, its durable tasks in ``store``."""
    argv = [sys.executable, str(TASKS), "--transport", "streamable-http", "--port", str(port)]
    log = logs / f"{time.monotonic_ns()}.log"
    with open(log, "wb") as errors:
        process = subprocess.Popen(
            [*argv, "--store", str(store)], stdout=subprocess.DEVNULL, stderr=errors
        )
    wait_for_port(port, process, log, time.monotonic() + 30)
    return process


async def test_a_lost_connection_is_opened_again_and_the_same_task_polled(
    tmp_path: Path,
) -> None:
    port, store = free_port(), tmp_path / "tasks.json"
    process = launch(port, store, tmp_path)
    server = MCPServerStreamableHttp(
        {"url": f"http://127.0.0.1:{port}/mcp"}, name="tasks", client_session_timeout_seconds=2
    )
    waiting = asyncio.Event()
    try:
        async with server:
            await server.list_tools()
            call = asyncio.create_task(
                server.call_tool(
                    "durable_wait", {"seconds": 3}, on_progress=lambda *_: waiting.set()
                )
            )
            await asyncio.wait_for(waiting.wait(), 20)  # the task exists
            process.kill()  # the connection is lost mid-task
            process.wait(10)
            process = launch(port, store, tmp_path)  # the server comes back, its store kept
            result = await asyncio.wait_for(call, 60)
    finally:
        process.kill()
        process.wait(10)
    assert text_of(result) == "waited"
    assert len(json.loads(store.read_text())) == 1  # one task: the call was never sent again


async def test_a_stdio_server_started_again_no_longer_knows_the_task_and_says_so() -> None:
    running = asyncio.Event()
    async with task_server() as server:
        await server.list_tools()
        arguments = {"seconds": 60, "steps": 60}
        call = asyncio.create_task(
            server.call_tool("slow_report", arguments, on_progress=lambda *_: running.set())
        )
        await asyncio.wait_for(running.wait(), 20)  # the task exists
        [child] = server_processes()
        os.kill(child, signal.SIGKILL)  # the server dies; the client starts it again
        with pytest.raises(MCPServerError) as failed:
            await asyncio.wait_for(call, 60)
    assert str(failed.value).startswith(
        "MCP server 'tasks' no longer knows the task of tool 'slow_report' ("
    )
    assert "it may have restarted, and the tool may or may not have run" in str(failed.value)


def server_processes() -> list[int]:
    """The test task servers this process started (alive)."""
    found = []
    for child in children_of(os.getpid()):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if str(TASKS).encode() in command and alive(child):
            found.append(child)
    return found


async def test_with_use_tasks_off_the_tool_is_called_plainly() -> None:
    async with task_server(use_tasks=False) as server:
        await server.list_tools()
        result = await server.call_tool("slow_report", {"seconds": 1, "steps": 1})
        seen = await history(server)
    assert result.is_error and text_of(result) == "call me as a task"
    assert seen["created"] == {}


# -- npm's server-everything (the TypeScript SDK's tasks) ----------------------------------------


async def test_server_everything_runs_its_research_as_a_task(
    everything_command: list[str], reports: Reports
) -> None:
    server = MCPServerStdio(
        {"command": everything_command[0], "args": everything_command[1:]},
        name="everything",
        client_session_timeout_seconds=2,
    )
    async with server:
        agent = run_of(server, "mcp__everything__simulate-research-query", {"topic": "bees"})
        await Runner.run(agent, "go")
    assert str(told(agent)).startswith("# Research Report: bees")
    messages = reports.messages()
    assert messages[:1] == ["Gathering sources..."] and "Generating report..." in messages


async def test_server_everything_asks_through_its_task(everything_command: list[str]) -> None:
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return request.answer({"interpretation": "programming"})

    server = MCPServerStdio(
        {"command": everything_command[0], "args": everything_command[1:]},
        name="everything",
        client_session_timeout_seconds=2,
    )
    async with server:
        agent = run_of(
            server,
            "mcp__everything__simulate-research-query",
            {"topic": "python", "ambiguous": True},
        )
        await Runner.run(agent, "go", approval_handler=answer)
    [request] = asked
    assert request.question is not None and "multiple interpretations" in request.question.text
    assert str(told(agent)).startswith("# Research Report: python (programming)")
