"""A hostile MCP server against the client: what it names, describes, answers and prints must
not reach the person's screen or the model as anything but inert, bounded text, and it must not
hang a run or fill the disk."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from mcp.types import TextContent

from jupyter_agents import Agent, FunctionTool, Runner
from jupyter_agents.mcp import MCPServerError, MCPServerStdio
from jupyter_agents.runtime.mcp import stdio as stdio_module
from jupyter_agents.runtime.mcp.names import qualified_tool_names
from jupyter_agents.runtime.mcp.results import cap_parts, cap_text, printable
from jupyter_agents.runtime.mcp.tool import MAX_DESCRIPTION_CHARS, MAX_PROGRESS_CHARS
from jupyter_agents.runtime.tools.kinds import describe_call
from jupyter_agents.runtime.tools.live_output import tool_output_sink
from jupyter_agents.runtime.tools.outputs import ToolOutputImage, ToolOutputText
from jupyter_agents.testing import ScriptedModel, text, tool_call

HOSTILE = Path(__file__).parents[1] / "mcp" / "servers" / "hostile_server.py"
UNSAFE = ["\x1b", "\x07", "\x00", "\u202e"]


def hostile(mode: str, **options: Any) -> MCPServerStdio:
    return MCPServerStdio(
        {"command": sys.executable, "args": [str(HOSTILE), mode]}, name="evil", **options
    )


@pytest.fixture
async def names_server() -> AsyncIterator[MCPServerStdio]:
    server = hostile("names")  # (`async with ... as` would type it as the base MCPServer)
    async with server:
        yield server


# -- pure functions: one line per case -----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain", "plain"),
        ("red \x1b[31mtext", "red \ufffd[31mtext"),
        ("bell\x07", "bell\ufffd"),
        ("nul\x00", "nul\ufffd"),
        ("c1 \x9b31m", "c1 \ufffd31m"),
        ("del\x7f", "del\ufffd"),
        ("safe\u202egnp.exe", "safe\ufffdgnp.exe"),
        ("iso\u2066late\u2069", "iso\ufffdlate\ufffd"),
        ("mark\u200e\u200f\u061c", "mark\ufffd\ufffd\ufffd"),
        ("bom\ufeff", "bom\ufffd"),
        ("tab\tnew\nline", "tab\tnew\nline"),
        ("carriage\rreturn", "carriage\ufffdreturn"),
        ("日本語 ünïcode", "日本語 ünïcode"),
    ],
)
def test_printable(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_printable_on_one_line() -> None:
    assert printable("two\nlines\tand tab", keep_newlines=False) == "two\ufffdlines and tab"


@pytest.mark.parametrize(
    ("length", "limit", "kept"),
    [(10, 20, 10), (20, 20, 20), (21, 20, None), (50_000_000, 20_000, None), (5, None, 5)],
)
def test_cap_text(length: int, limit: int | None, kept: int | None) -> None:
    capped = cap_text("h" + "x" * (length - 2) + "t", limit)
    if kept is not None:
        assert len(capped) == kept
        return
    assert limit is not None
    assert capped.startswith("hx") and capped.endswith("xt")
    assert f"… {length - 2 * (limit // 2):,} characters cut …" in capped


def test_cap_parts_keeps_head_and_tail_across_images() -> None:
    image = ToolOutputImage(image_url="data:image/png;base64,AAAA")
    parts: list[ToolOutputImage | ToolOutputText] = [
        image,
        ToolOutputText("a" * 30),
        image,
        ToolOutputText("b" * 30),
        image,
    ]
    capped = cap_parts(parts, 20)
    assert capped == [
        image,
        ToolOutputText("a" * 10),
        ToolOutputText("… 40 characters and 1 images cut …"),
        ToolOutputText("b" * 10),
        image,
    ]


def test_cap_parts_counts_images_past_the_limit() -> None:
    image = ToolOutputImage(image_url="data:image/png;base64,AAAA")
    capped = cap_parts([image] * 25, None)
    assert capped[:-1] == [image] * 20
    assert capped[-1] == ToolOutputText("[5 more images not shown: at most 20 per result]")


# -- names and descriptions ----------------------------------------------------------------------


async def test_names_and_descriptions_reach_the_model_inert(names_server: MCPServerStdio) -> None:
    model = ScriptedModel([[text("ok")]])
    await Runner.run(Agent(name="a", model=model, mcp_servers=[names_server]), "go")
    offered = model.requests[0].tools
    assert len(offered) == 4
    for tool in offered:
        assert isinstance(tool, FunctionTool)  # MCP tools are function tools to the model
        assert all(c.isalnum() or c in "_-" for c in tool.name)  # the API's name rule
        assert not any(u in tool.description for u in UNSAFE), tool.description
        assert len(tool.description) < MAX_DESCRIPTION_CHARS + 100  # not a megabyte, each turn
    described = {t.description for t in offered if isinstance(t, FunctionTool)}
    assert "tab\tand\nnewline stay" in described


async def test_the_card_shows_server_names_inert(names_server: MCPServerStdio) -> None:
    raw = next(t.name for t in await names_server.list_tools() if t.name.startswith("paint"))
    name = qualified_tool_names([("evil", raw)])[("evil", raw)]
    model = ScriptedModel([[tool_call(name, {})], [text("done")]])
    result = await Runner.run(Agent(name="a", model=model, mcp_servers=[names_server]), "go")
    call = next(i for i in result.new_items if i.type == "tool_call_item")
    shown = describe_call(call)
    assert shown.origin == "evil › paint\ufffd[31mred\ufffd[0m"


def test_adding_a_server_prints_its_tool_names_inert(capsys: pytest.CaptureFixture[str]) -> None:
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext jupyter_agents", store_history=False)
    try:
        ip.run_cell(f"%agent mcp add evil -- python {HOSTILE} names")
        printed = capsys.readouterr().out
    finally:
        ip.run_cell("%unload_ext jupyter_agents", store_history=False)
        ip.user_ns.clear()
        InteractiveShell.clear_instance()
    assert "MCP server 'evil' is connected; its tools:" in printed
    line = next(x for x in printed.splitlines() if "its tools:" in x)
    assert not any(u in printed for u in UNSAFE), printed
    assert "two\ufffdlines" in line  # a name cannot start a line of its own


# -- answers -------------------------------------------------------------------------------------


async def test_a_server_that_never_lists_its_tools_fails_the_run_in_bounded_time() -> None:
    server = hostile("silent-list", client_session_timeout_seconds=2)
    model = ScriptedModel([[text("ok")]])
    started = time.monotonic()
    async with server:
        with pytest.raises(MCPServerError, match=r"did not answer its tool list within 2 s"):
            await Runner.run(Agent(name="a", model=model, mcp_servers=[server]), "go")
    assert time.monotonic() - started < 30


async def test_blocks_of_unknown_types_are_a_one_line_error_and_the_session_stays() -> None:
    # The SDK refuses a result with content it does not know (it is not MCP): the model hears
    # so in one line (no validation dump), and the connection, which is fine, is kept.
    async with hostile("odd-blocks") as server:
        model = ScriptedModel([[tool_call("mcp__evil__ask", {})], [text("done")]])
        result = await Runner.run(Agent(name="a", model=model, mcp_servers=[server]), "go")
        told = model.requests[1].input[-1]["output"]
        assert "answered tool 'ask' with something that is not valid MCP (content.0" in told
        assert "\n" not in told and len(told) < 400
        output = next(i for i in result.new_items if i.type == "tool_call_output_item")
        assert output.status == "error"
        assert server.connected  # not dropped and restarted for a bad answer


async def test_a_server_flooding_stderr_cannot_fill_the_disk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limit = 256 * 1024
    monkeypatch.setattr(stdio_module, "LOG_LIMIT", limit)
    server = hostile("flood")
    async with server:
        path = server.log_path
        assert path is not None
        deadline = time.monotonic() + 20
        written = 0
        while written < 20 * limit:  # wait until the server has written 20 times the limit
            written = server.stderr_bytes
            assert time.monotonic() < deadline, f"only {written} bytes of stderr were seen"
            await asyncio.sleep(0.05)  # polling a child's progress
            assert path.stat().st_size <= 2 * limit
        answer = (await server.call_tool("ask", {})).content[0]
        assert isinstance(answer, TextContent) and answer.text == "answered"  # still answering
        assert "noise" in server.stderr_log()


async def test_progress_messages_reach_the_card_inert_and_short() -> None:
    streamed: list[str] = []
    token = tool_output_sink.set(lambda call_id, text: streamed.append(text))
    try:
        async with hostile("progress") as server:
            model = ScriptedModel([[tool_call("mcp__evil__ask", {})], [text("done")]])
            await Runner.run(Agent(name="a", model=model, mcp_servers=[server]), "go")
    finally:
        tool_output_sink.reset(token)
    assert model.requests[1].input[-1]["output"] == "answered"
    assert len(streamed) == 1000
    assert all(len(line) <= MAX_PROGRESS_CHARS + 40 for line in streamed)
    assert not any(u in line for line in streamed for u in UNSAFE)
