"""``%agent mcp`` in an in-process IPython shell: HTTP and SSE servers by URL, headers, and
one-line usage errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agents import BaseTool, ShellTool
from jupyter_agents.notebook.host import current_host

from ..prerequisites import needs_bwrap
from .test_served_tools import sdk_client, text_of


@pytest.fixture
def shell() -> Iterator[Any]:
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    yield ip
    ip.run_cell("%unload_ext jupyter_agents", store_history=False)  # closes the servers
    ip.user_ns.clear()
    InteractiveShell.clear_instance()


def test_http_and_sse_servers_by_url(
    shell: Any, demo_http_url: str, demo_sse_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_cell(f"%agent mcp add web --url {demo_http_url} --header X-Trace=abc")
    shell.run_cell(f"%agent mcp add old --url {demo_sse_url} --sse --approve never")
    printed = capsys.readouterr().out
    assert "MCP server 'web' is connected; its tools: echo, add," in printed
    assert "MCP server 'old' is connected" in printed
    host = current_host()
    assert host is not None
    web, old = host.mcp_servers["web"], host.mcp_servers["old"]
    assert type(web).__name__ == "MCPServerStreamableHttp" and web.params["headers"] == {
        "X-Trace": "abc"
    }
    assert type(old).__name__ == "MCPServerSse" and old.require_approval == "never"
    assert web.client_session_timeout_seconds == old.client_session_timeout_seconds == 30
    agent = host.notebook_agent()
    assert agent.mcp_servers == [web, old]
    shell.run_cell("%agent mcp list")
    listed = capsys.readouterr().out
    assert f"web: connected; approval destructive; {demo_http_url}" in listed
    shell.run_cell("%agent mcp restart web")
    assert "MCP server 'web' is connected" in capsys.readouterr().out
    shell.run_cell("%agent mcp log web")
    assert "HTTP server: it has no log here" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%agent mcp add", "give the server a NAME first"),
        ("%agent mcp add x", "give -- COMMAND ARGS... or --url URL"),
        ("%agent mcp add x --approve maybe -- python -V", "--approve takes always, never"),
        ("%agent mcp add x --url ftp://nowhere", "needs params="),
        ("%agent mcp add x --url http://h/mcp -- python", "either --url URL or -- COMMAND"),
        ("%agent mcp add x --header K --url http://h/mcp", "--header takes KEY=VALUE"),
        ("%agent mcp add x --header K=V -- python", "--header and --sse go with --url"),
        ("%agent mcp add x --nope 1 -- python", "unknown option --nope"),
        ("%agent mcp remove ghost", "no server named 'ghost'"),
        ("%agent mcp frobnicate", "%agent mcp"),
    ],
)
def test_usage_errors_are_one_line(shell: Any, line: str, message: str) -> None:
    result = shell.run_cell(line)
    error = result.error_in_exec
    assert isinstance(error, UsageError)
    assert message in str(error) and "\n" not in str(error)


@needs_bwrap
async def test_served_calls_run_under_the_notebook_policy(shell: Any, tmp_path: Path) -> None:
    shell.run_cell(f"%agent policy never read-only --workspace {tmp_path}")
    shell.user_ns["ShellTool"] = ShellTool
    shell.run_cell(
        "from jupyter_agents.notebook.toolbox_server import serve_toolbox\n"
        "served = serve_toolbox([ShellTool()])"
    )
    served = shell.user_ns["served"]
    try:
        async with sdk_client(served) as session:
            where = await session.call_tool("shell", {"commands": ["pwd"]})
            assert f"$ pwd\n{tmp_path}\n" in text_of(where)  # the policy's workspace
            wrote = await session.call_tool("shell", {"commands": ["touch made"]})
    finally:
        served.stop()
    assert "Read-only file system" in text_of(wrote) and not (tmp_path / "made").exists()


async def test_a_served_class_tool_runs_once_per_call_from_the_notebook(shell: Any) -> None:
    runs: list[str] = []

    class Stamp(BaseTool):
        name = "stamp"
        parameters = {"type": "object", "properties": {"label": {"type": "string"}}}

        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            runs.append(params["label"])
            return f"stamped {params['label']}"

    shell.user_ns["stamp"] = Stamp()
    shell.run_cell(
        "from jupyter_agents.notebook.toolbox_server import serve_toolbox\n"
        "served = serve_toolbox([stamp])"
    )
    served = shell.user_ns["served"]
    try:
        async with sdk_client(served) as session:
            result = await session.call_tool("stamp", {"label": "a"})
    finally:
        served.stop()
    assert text_of(result) == "stamped a" and runs == ["a"]
