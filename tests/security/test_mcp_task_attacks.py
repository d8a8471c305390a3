"""MCP tasks against a hostile server: what it says of a task is read strictly and bounded (a
table of what servers say, then a hostile server for each attack): it cannot make the client
spin, stall, show markup or escapes, or take another task's state or result for its own."""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import Agent, Runner
from jupyter_agents.mcp import MCPServerError, MCPServerStdio
from jupyter_agents.runtime.mcp.task_wire import (
    DEFAULT_POLL_SECONDS,
    MAX_POLL_SECONDS,
    MIN_POLL_SECONDS,
    TaskAnswerError,
    TaskState,
    created_task,
    poll_seconds,
    read_task,
    result_problem,
)
from jupyter_agents.runtime.tools.live_output import tool_progress_sink
from jupyter_agents.testing import ScriptedModel, text, tool_call

HOSTILE = Path(__file__).parents[1] / "mcp" / "servers" / "hostile_server.py"
UNSAFE = ["\x1b", "\x07", "\x00", "\u202e"]
STATE = {"taskId": "t1", "status": "working", "createdAt": "x", "lastUpdatedAt": "x", "ttl": 1}


def said(**changes: Any) -> dict[str, Any]:
    """A task as a server describes it, with ``changes`` (None: the key left out)."""
    described = {**STATE, **changes}
    return {key: value for key, value in described.items() if value is not None}


# -- what a server says, read strictly: one line per case ----------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected_id", "verdict"),
    [
        (said(), None, ("t1", "working")),
        (said(status="input_required"), "t1", ("t1", "input_required")),
        (said(status="completed"), "t1", ("t1", "completed")),
        (said(taskId="a" * 256), None, ("a" * 256, "working")),
        (said(taskId="a" * 257), None, "a task id that is not a short printable string"),
        (said(taskId=12345), None, "a task id that is not a short printable string (12345)"),
        (said(taskId=None), None, "a task id that is not a short printable string (None)"),
        (said(taskId=""), None, "a task id that is not a short printable string"),
        (said(taskId="t\x1b[2J"), None, "a task id that is not a short printable string"),
        (said(taskId="t\u202e1"), None, "a task id that is not a short printable string"),
        (said(taskId=["t1"]), None, "a task id that is not a short printable string"),
        (said(taskId="t2"), "t1", "the state of another task ('t2')"),
        (said(status="exploded"), None, "a task status MCP does not have ('exploded')"),
        (said(status="Working"), None, "a task status MCP does not have ('Working')"),
        (said(status=None), None, "a task status MCP does not have (None)"),
        (said(status=1), None, "a task status MCP does not have (1)"),
        ("t1", None, "a task that is not an object ('t1')"),
        ([said()], None, "a task that is not an object"),
        (None, None, "a task that is not an object (None)"),
    ],
)
def test_what_a_server_says_of_a_task_is_read_strictly(
    raw: Any, expected_id: str | None, verdict: tuple[str, str] | str
) -> None:
    if isinstance(verdict, tuple):
        state = read_task(raw, expected_id)
        assert (state.task_id, state.status) == verdict
        return
    with pytest.raises(TaskAnswerError) as caught:
        read_task(raw, expected_id)
    assert verdict in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        (1000, 1.0),
        (300, 0.3),
        (250, MIN_POLL_SECONDS),
        (1, MIN_POLL_SECONDS),
        (0, MIN_POLL_SECONDS),
        (-1000, MIN_POLL_SECONDS),
        (-(10**30), MIN_POLL_SECONDS),
        (10**12, MAX_POLL_SECONDS),
        (1e308, MAX_POLL_SECONDS),
        (math.inf, DEFAULT_POLL_SECONDS),
        (math.nan, DEFAULT_POLL_SECONDS),
        (True, DEFAULT_POLL_SECONDS),
        ("100", DEFAULT_POLL_SECONDS),
        (None, DEFAULT_POLL_SECONDS),
    ],
)
def test_a_poll_interval_is_kept_between_bounds(raw: object, seconds: float) -> None:
    assert poll_seconds(raw) == seconds
    assert read_task(said(pollInterval=raw)).poll_seconds == seconds


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("step 2 of 4", "step 2 of 4"),
        ("<b>bold</b> <script>x</script>", "<b>bold</b> <script>x</script>"),  # text, drawn as text
        ("clear \x1b[2J", "clear \ufffd[2J"),
        ("two\nlines", "two\ufffdlines"),
        ("safe\u202egnp.exe", "safe\ufffdgnp.exe"),
        ("m" * 10_000, "m" * 199 + "…"),
        ("", None),
        (None, None),
        (42, None),
        ({"html": "<b>"}, None),
    ],
)
def test_a_status_message_is_printable_and_short(raw: object, shown: str | None) -> None:
    assert read_task(said(statusMessage=raw)).message == shown


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        (60_000, 60.0),
        (None, None),
        (-5, 0.0),
        (10**20, 30 * 24 * 3600.0),
        ("forever", None),
        (math.nan, None),
    ],
)
def test_a_lifetime_is_kept_between_bounds(raw: object, seconds: float | None) -> None:
    assert read_task(said(ttl=raw)).ttl_seconds == seconds


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"content": []}, None),
        ({"content": [], "_meta": {}}, None),
        (
            {"content": [], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}},
            None,
        ),
        (
            {"content": [], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t2"}}},
            "the result of another task ('t2')",
        ),
        (
            {"content": [], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": 1}}},
            "the result of another task (1)",
        ),
        (
            {"content": [], "_meta": {"io.modelcontextprotocol/related-task": "t2"}},
            "the result of another task ('t2')",
        ),
    ],
)
def test_a_result_must_be_the_tasks_own(answer: dict[str, Any], problem: str | None) -> None:
    assert result_problem(answer, "t1") == problem


def test_a_call_is_answered_with_a_result_or_a_task() -> None:
    assert created_task({"content": [{"type": "text", "text": "done at once"}]}) is None
    created = created_task({"task": said()})
    assert isinstance(created, TaskState) and created.task_id == "t1"
    with pytest.raises(TaskAnswerError, match="not a short printable string"):
        created_task({"task": said(taskId=7)})
    with pytest.raises(TaskAnswerError, match="a task that is not an object"):
        created_task({"task": None})


# -- a hostile server for each attack -------------------------------------------------------------


@pytest.fixture
def hostile_tasks() -> Callable[[str], MCPServerStdio]:
    """A hostile server (``hostile_server.py task-...``) that runs its calls as tasks."""

    def make(mode: str) -> MCPServerStdio:
        return MCPServerStdio(
            {"command": sys.executable, "args": [str(HOSTILE), mode]},
            name="evil",
            client_session_timeout_seconds=10,
        )

    return make


async def requests_seen(server: MCPServerStdio) -> list[str]:
    """The methods of the requests the server's process answered, in order (it writes each to
    stderr, which reaches the log through a pipe): asked once more for its tools, the list is
    complete when that last request shows."""
    server.invalidate_tools_cache()
    await server.list_tools()
    deadline = time.monotonic() + 10
    while True:
        # The log keeps earlier processes' lines too; this process's come after the last mark.
        lines = server.stderr_log().split("--- started again ---")[-1].split()
        if lines.count("tools/list") >= 2 or time.monotonic() > deadline:
            return lines
        await asyncio.sleep(0.05)  # the log pump copies the pipe on its own thread


async def call_ask(server: MCPServerStdio) -> tuple[Any, float]:
    """Call ``ask`` (listed first, so the client knows it may run as a task): its result or
    the error it raised, and the seconds it took."""
    await server.list_tools()
    started = time.monotonic()
    try:
        outcome: Any = await server.call_tool("ask", {}, timeout_seconds=60)
    except MCPServerError as e:
        outcome = e
    return outcome, time.monotonic() - started


async def test_a_status_message_of_markup_reaches_the_card_inert_and_short(
    hostile_tasks: Callable[[str], MCPServerStdio],
) -> None:
    reports: list[tuple[str, float, float | None, str]] = []
    token = tool_progress_sink.set(lambda *said: reports.append(said))
    server = hostile_tasks("task-markup")
    try:
        async with server:
            model = ScriptedModel([[tool_call("mcp__evil__ask", {})], [text("done")]])
            await Runner.run(Agent(name="a", model=model, mcp_servers=[server]), "go")
    finally:
        tool_progress_sink.reset(token)
    assert model.requests[1].input[-1]["output"] == "answered"
    [message] = {said[3] for said in reports}
    assert message.startswith("<script>alert(1)</script><b>bold</b>")  # text: the card draws text
    assert len(message) <= 200 and not any(u in message for u in UNSAFE)


async def test_a_huge_poll_interval_does_not_stall_the_call(
    hostile_tasks: Callable[[str], MCPServerStdio],
) -> None:
    server = hostile_tasks("task-poll-huge")
    async with server:
        result, seconds = await call_ask(server)
    assert not isinstance(result, Exception) and result.content[0].text == "answered"
    assert MAX_POLL_SECONDS <= seconds < MAX_POLL_SECONDS + 4  # not thirty years


async def test_a_negative_poll_interval_does_not_make_the_client_spin(
    hostile_tasks: Callable[[str], MCPServerStdio],
) -> None:
    server = hostile_tasks("task-poll-negative")
    async with server:
        result, seconds = await call_ask(server)
        seen = await requests_seen(server)
    assert not isinstance(result, Exception) and result.content[0].text == "answered"
    assert seen.count("tasks/get") == 3 and seconds >= 3 * MIN_POLL_SECONDS


@pytest.mark.parametrize(
    ("mode", "message", "cancelled"),
    [
        ("task-unknown-status", "a task status MCP does not have ('exploded')", True),
        ("task-id-number", "a task id that is not a short printable string (12345)", False),
        ("task-other-get-id", "the state of another task ('t2')", True),
        ("task-other-result", "the result of another task ('t2')", False),
    ],
)
async def test_a_lying_server_fails_the_call_in_one_line(
    hostile_tasks: Callable[[str], MCPServerStdio], mode: str, message: str, cancelled: bool
) -> None:
    """A state the client cannot use stops the call, and the task is cancelled when there is
    one to cancel (a task id that is not one names none; a result means the task ended)."""
    server = hostile_tasks(mode)
    async with server:
        error, _ = await call_ask(server)
        seen = await requests_seen(server)
    assert isinstance(error, MCPServerError)
    assert str(error) == (
        f"MCP server 'evil' answered the task of tool 'ask' with {message}; the call was stopped."
    )
    assert ("tasks/cancel" in seen) is cancelled


async def test_a_task_the_server_no_longer_knows_fails_the_call_in_one_line(
    hostile_tasks: Callable[[str], MCPServerStdio],
) -> None:
    server = hostile_tasks("task-lost")
    async with server:
        error, _ = await call_ask(server)
    assert isinstance(error, MCPServerError) and "\n" not in str(error)
    assert str(error).startswith(
        "MCP server 'evil' no longer knows the task of tool 'ask' ('Task not found: t1')"
    )
