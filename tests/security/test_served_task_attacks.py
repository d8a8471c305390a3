"""The served MCP tasks (``%agent mcp serve``, ``ToolboxServer``) against a hostile client: it
holds the token, yet cannot read, cancel or fetch a task it cannot name, pile up tasks past the
limits, keep one longer than a day, cancel one that ended or get a cancelled one's result."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import ClientSession
from mcp import types as mcp_types
from mcp.shared.exceptions import MCPError

from jupyter_agents import function_tool
from jupyter_agents.runtime.mcp.served_tasks import MAX_KEPT, MAX_WORKING
from jupyter_agents.runtime.mcp.task_client import raw_request
from jupyter_agents.runtime.mcp.task_wire import served_ttl_ms
from jupyter_agents.runtime.mcp.toolbox_server import ToolboxServer

from ..mcp.test_served_tools import sdk_client


@pytest.mark.parametrize(
    ("requested", "ttl_ms"),
    [
        (None, 3_600_000),
        (120_000, 120_000),
        (1, 60_000),
        (-1, 60_000),
        (10**15, 86_400_000),
        (math.inf, 3_600_000),
        ("forever", 3_600_000),
    ],
)
def test_a_served_task_lives_between_a_minute_and_a_day(requested: object, ttl_ms: int) -> None:
    assert served_ttl_ms(requested) == ttl_ms


@function_tool
async def hold() -> str:
    """Never end (until cancelled)."""
    await asyncio.sleep(3600)
    return "held"


@function_tool
def quick() -> str:
    """End at once."""
    return "quick"


@asynccontextmanager
async def served_tasks() -> AsyncIterator[tuple[ToolboxServer, ClientSession]]:
    """A served toolbox and a session of the ``mcp`` SDK's client, which a hostile client uses
    to send what it likes."""
    with ToolboxServer([hold, quick]) as served:
        async with sdk_client(served) as session:
            yield served, session


async def create(session: ClientSession, tool: str, task: dict[str, Any]) -> dict[str, Any]:
    answer = await raw_request(
        session, "tools/call", {"name": tool, "arguments": {}, "task": task}, 10
    )
    created: dict[str, Any] = answer["task"]
    return created


async def ask(session: ClientSession, method: str, task_id: str) -> dict[str, Any]:
    return await raw_request(session, method, {"taskId": task_id}, 10)


@pytest.mark.parametrize("method", ["tasks/get", "tasks/result", "tasks/cancel"])
async def test_a_client_gets_nothing_of_a_task_it_cannot_name(method: str) -> None:
    async with served_tasks() as (_, session):
        mine = await create(session, "quick", {})
        assert len(mine["taskId"]) == 32 and int(mine["taskId"], 16) >= 0  # 128 random bits
        for guess in ("0" * 32, mine["taskId"][:-1] + "x", "", "../" + mine["taskId"]):
            with pytest.raises(MCPError) as refused:
                await ask(session, method, guess)
            assert refused.value.code == mcp_types.INVALID_PARAMS


@pytest.mark.parametrize("task", [True, "forever", [], {"ttl": "a day"}])
async def test_a_malformed_task_request_is_refused_and_runs_nothing(task: object) -> None:
    async with served_tasks() as (served, session):
        params = {"name": "quick", "arguments": {}, "task": task}
        with pytest.raises(MCPError) as refused:
            await raw_request(session, "tools/call", params, 10)
        assert refused.value.code == mcp_types.INVALID_PARAMS
    assert served.calls == 0 and served.tasks.running == 0


async def test_no_more_than_the_working_limit_run_at_once() -> None:
    async with served_tasks() as (served, session):
        held = [await create(session, "hold", {}) for _ in range(MAX_WORKING)]
        with pytest.raises(MCPError, match=f"{MAX_WORKING} tasks are running already"):
            await create(session, "hold", {})
        await ask(session, "tasks/cancel", held[0]["taskId"])
        assert (await create(session, "quick", {}))["status"] == "working"
    assert served.tasks.running == 0  # stopping the server cancelled the rest


async def test_past_the_kept_limit_the_oldest_ended_task_is_forgotten() -> None:
    async with served_tasks() as (_, session):
        first = await create(session, "quick", {})
        await ask(session, "tasks/result", first["taskId"])  # it ended
        for _ in range(MAX_KEPT):
            made = await create(session, "quick", {})
            await ask(session, "tasks/result", made["taskId"])  # never more than one running
        listed = await raw_request(session, "tasks/list", {}, 10)
        assert len(listed["tasks"]) == MAX_KEPT
        with pytest.raises(MCPError, match="No task"):
            await ask(session, "tasks/get", first["taskId"])


@pytest.mark.parametrize(
    ("requested", "given"),
    [
        ({}, 3_600_000),
        ({"ttl": 1}, 60_000),
        ({"ttl": 10**15}, 86_400_000),
        ({"ttl": 90_000}, 90_000),
    ],
)
async def test_a_requested_lifetime_is_kept_between_bounds(
    requested: dict[str, Any], given: int
) -> None:
    async with served_tasks() as (_, session):
        assert (await create(session, "quick", requested))["ttl"] == given


async def test_an_ended_task_cannot_be_cancelled_and_a_cancelled_one_has_no_result() -> None:
    async with served_tasks() as (_, session):
        done = await create(session, "quick", {})
        result = await ask(session, "tasks/result", done["taskId"])  # waits for its end
        assert result["content"][0]["text"] == "quick"
        related = result["_meta"]["io.modelcontextprotocol/related-task"]
        assert related == {"taskId": done["taskId"]}
        with pytest.raises(MCPError, match="is completed already; it cannot be cancelled"):
            await ask(session, "tasks/cancel", done["taskId"])
        held = await create(session, "hold", {})
        assert (await ask(session, "tasks/cancel", held["taskId"]))["status"] == "cancelled"
        with pytest.raises(MCPError, match="was cancelled; it has no result"):
            await ask(session, "tasks/result", held["taskId"])
