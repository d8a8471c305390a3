"""MCP server objects against real servers: the three transports, results of every kind,
progress, the tool-list cache and its invalidation, crashes, hangs, and the lifecycle across
tasks, loops and processes."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.mcp import (
    MCPServerError,
    MCPServerManager,
    MCPServerSse,
    MCPServerStdio,
    MCPServerStreamableHttp,
)

from .conftest import DEMO, alive, children_of
from .results import text_of

DEMO_TOOLS = {"echo", "add", "image", "fail", "slow", "crash", "delete_note", "read_note"}


def stdio(command: list[str], **options: Any) -> MCPServerStdio:
    return MCPServerStdio({"command": command[0], "args": command[1:]}, **options)


@pytest.fixture(params=["stdio", "http", "sse"])
def any_demo(request: pytest.FixtureRequest, demo_command: list[str]) -> Any:
    if request.param == "stdio":
        return stdio(demo_command, name="demo")
    if request.param == "http":
        url = request.getfixturevalue("demo_http_url")
        return MCPServerStreamableHttp({"url": url}, name="demo")
    return MCPServerSse({"url": request.getfixturevalue("demo_sse_url")}, name="demo")


async def test_every_transport_lists_and_calls(any_demo: Any) -> None:
    async with any_demo as server:
        names = {t.name for t in await server.list_tools()}
        assert names >= DEMO_TOOLS
        echoed = await server.call_tool("echo", {"text": "hi"})
        assert text_of(echoed) == "hi" and not echoed.is_error
        added = await server.call_tool("add", {"a": 2, "b": 3})
        assert added.structured_content == {"sum": 5}
        failed = await server.call_tool("fail", {"message": "no luck"})
        assert failed.is_error and text_of(failed) == "no luck"
        picture = await server.call_tool("image", {})
        assert picture.content[0].type == "image" and picture.content[0].mime_type == "image/png"
        seen: list[tuple[float, float | None, str | None]] = []
        slow = await server.call_tool(
            "slow", {"seconds": 0.2, "steps": 2}, on_progress=lambda *a: seen.append(a)
        )
        assert text_of(slow) == "done"
        assert seen == [(1.0, 2.0, "step 1 of 2"), (2.0, 2.0, "step 2 of 2")]
        resources = await server.list_resources()
        assert [str(r.uri) for r in resources.resources] == ["note://hello"]
        note = await server.read_resource("note://hello")
        assert note.contents[0].text == "hello from a resource"
        prompts = await server.list_prompts()
        assert [p.name for p in prompts.prompts] == ["greet"]
        prompt = await server.get_prompt("greet", {"name": "Ada"})
        assert "Ada" in prompt.messages[0].content.text
    assert not any_demo.connected


async def test_tool_list_cache_and_list_changed(demo_command: list[str]) -> None:
    server = stdio(demo_command, name="demo", cache_tools_list=True)
    changed = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def on_message(message: Any) -> None:
        if type(message).__name__ == "ToolListChangedNotification":
            loop.call_soon_threadsafe(changed.set)

    server.message_handler = on_message
    async with server:
        first = {t.name for t in await server.list_tools()}
        await server.call_tool("add_tool", {"name": "newcomer"})
        await asyncio.wait_for(changed.wait(), 10)
        after = {t.name for t in await server.list_tools()}
        assert after == first | {"newcomer"}
        # Cached: with the server gone, the list still comes, and no new server starts.
        [child] = [p for p in children_of(os.getpid()) if alive(p)]
        await _kill(child)
        assert {t.name for t in await server.list_tools()} == after
        assert not [p for p in children_of(os.getpid()) if alive(p)]
        server.invalidate_tools_cache()  # asks again: a new server, without the added tool
        assert {t.name for t in await server.list_tools()} == first
        assert [p for p in children_of(os.getpid()) if alive(p)]


async def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not alive(pid)


async def test_a_crash_is_a_clear_error_with_stderr_and_the_next_call_restarts(
    demo_command: list[str],
) -> None:
    server = stdio(demo_command, name="demo")
    async with server:
        with pytest.raises(MCPServerError) as caught:
            await server.call_tool("crash", {})
        assert "MCP server 'demo'" in str(caught.value) and "started again" in str(caught.value)
        assert "crashing on purpose" in (caught.value.stderr or "")
        assert "crashing on purpose" in server.stderr_log()
        again = await server.call_tool("echo", {"text": "back"})
        assert text_of(again) == "back"
        assert "started again" in server.stderr_log()


async def test_a_server_that_died_while_idle_is_restarted_before_the_next_call(
    demo_command: list[str],
) -> None:
    async with stdio(demo_command, name="demo") as server:
        [child] = [p for p in children_of(os.getpid()) if alive(p)]
        await _kill(child)
        deadline = time.monotonic() + 10
        while server.connected and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert not server.connected  # noticed while idle
        result = await server.call_tool("echo", {"text": "still here"})
        assert text_of(result) == "still here"


async def test_a_hanging_server_times_out_naming_it(demo_command: list[str]) -> None:
    server = stdio(
        [*demo_command, "--hang-on-start"], name="stuck", client_session_timeout_seconds=1.5
    )
    started = time.monotonic()
    with pytest.raises(MCPServerError, match=r"MCP server 'stuck' did not start within 1.5 s"):
        await server.connect()
    assert time.monotonic() - started < 10
    assert "hanging" in server.stderr_log()
    assert not [p for p in children_of(os.getpid()) if alive(p)]


async def test_a_missing_program_is_one_clear_line() -> None:
    server = MCPServerStdio({"command": "no-such-mcp-server-here"}, name="ghost")
    with pytest.raises(MCPServerError, match=r"MCP server 'ghost' could not start: "):
        await server.connect()


async def test_stderr_is_captured_when_sys_stderr_has_no_file_descriptor(
    demo_command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # as under ipykernel
    server = stdio(demo_command, name="demo")
    async with server:
        await server.list_tools()
        assert "demo server starting" in server.stderr_log()


def test_connect_in_one_loop_and_clean_up_in_another(demo_command: list[str]) -> None:
    """Cells are separate tasks, and run_sync makes its own loop: none of that matters."""
    server = stdio(demo_command, name="demo")
    asyncio.run(server.connect())
    result: list[Any] = []
    thread = threading.Thread(
        target=lambda: result.append(asyncio.run(server.call_tool("echo", {"text": "x"})))
    )
    thread.start()
    thread.join(30)
    assert result and text_of(result[0]) == "x"
    asyncio.run(server.cleanup())
    assert not server.connected
    assert not [p for p in children_of(os.getpid()) if alive(p)]


async def test_the_environment_drops_the_notebooks_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    script = tmp_path / "env_server.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from mcp.server.mcpserver import MCPServer
            server = MCPServer("env")
            @server.tool()
            def env(name: str) -> str:
                return os.environ.get(name, "<unset>")
            server.run("stdio")
            """
        )
    )
    server = MCPServerStdio(
        {"command": sys.executable, "args": [str(script)], "env": {"GIVEN": "yes"}}, name="env"
    )
    async with server:
        secret = await server.call_tool("env", {"name": "OPENAI_API_KEY"})
        given = await server.call_tool("env", {"name": "GIVEN"})
    assert text_of(secret) == "<unset>" and text_of(given) == "yes"


async def test_manager_connects_at_once_and_reports_failures(demo_command: list[str]) -> None:
    good = stdio(demo_command, name="good")
    bad = MCPServerStdio({"command": "no-such-mcp-server-here"}, name="bad")
    async with MCPServerManager([good, bad]) as manager:
        assert manager.active_servers == [good]
        assert manager.failed_servers == [bad]
        assert "could not start" in str(manager.errors["bad"])
        bad.params["command"] = sys.executable
        bad.params["args"] = [str(DEMO)]
        assert await manager.reconnect() == [good, bad]
        assert not manager.errors
    assert not good.connected and not bad.connected


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_no_server_outlives_its_process(demo_command: list[str], how: str) -> None:
    """A normal exit closes every server (atexit); a killed process takes its servers along
    (parent-death signal)."""
    script = textwrap.dedent(
        f"""
        import asyncio, os, sys, time
        from jupyter_agents.mcp import MCPServerStdio
        server = MCPServerStdio({{"command": sys.executable, "args": [{str(DEMO)!r}]}})
        asyncio.run(server.connect())
        print(os.getpid(), flush=True)
        if {how == "sigkill"!r}:
            time.sleep(60)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=Path.cwd()
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    deadline = time.monotonic() + 20
    servers: list[int] = []
    while not servers and time.monotonic() < deadline:
        servers = children_of(pid)
        time.sleep(0.02)
    assert servers, "the server did not start"
    if how == "sigkill":
        parent.kill()
    parent.wait(20)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in servers) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(alive(p) for p in servers)
