"""An MCP server's questions (elicitation) answered by the person through the run's approval
handler, checked against the server's form, and declined when nobody can be asked."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalRequest,
    Question,
    Runner,
    ask_user,
    function_tool,
)
from jupyter_agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from jupyter_agents.runtime.mcp.toolbox_server import ToolboxServer
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

from ..recorded import scripted_requests
from .results import text_of

ASKING = Path(__file__).parent / "servers" / "asking_server.py"


@pytest.fixture
async def asking() -> AsyncIterator[MCPServerStdio]:
    server = MCPServerStdio({"command": sys.executable, "args": [str(ASKING)]}, name="asking")
    async with server:
        yield server


def booking_agent(server: MCPServerStdio, tool: str = "mcp__asking__book_table") -> Agent:
    turns: list[list[ScriptedOutput]] = [
        [tool_call(tool, {"restaurant": "Chez Ana"}, call_id="b1")],
        [text("Done.")],
    ]
    return Agent(name="booker", model=ScriptedModel(turns), mcp_servers=[server])


def told(agent: Agent) -> str:
    (output,) = [
        i["output"]
        for i in scripted_requests(agent)[-1].input
        if i.get("type") == "function_call_output"
    ]
    return str(output)


async def test_the_servers_question_is_answered_through_the_approval_handler(
    asking: MCPServerStdio,
) -> None:
    seen: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        if len(seen) == 1:
            return request.answer({"date": "2026-12-24", "party": "four"})  # does not fit
        return request.answer({"date": "2026-12-24", "party": 4, "room": "garden"})

    agent = booking_agent(asking)
    await Runner.run(agent, "book it", approval_handler=handler)
    assert told(agent) == "booked Chez Ana on 2026-12-24 for 4 (garden, outside=False)"
    first, second = seen
    question = first.question
    assert question is not None and question.origin == "MCP server asking"
    assert question.text == "Booking Chez Ana: which day, and for how many?"
    assert question.form is not None
    assert set(question.form["properties"]) == {"date", "party", "room", "outside"}
    assert first.call_id == "b1" and not first.allows_always
    assert second.error == "field 'party': must be a number"


async def test_skipping_declines(asking: MCPServerStdio) -> None:
    agent = booking_agent(asking)
    await Runner.run(agent, "book it", approval_handler=lambda r: r.skip())
    assert told(agent) == "not booked (decline)"


async def test_without_anyone_to_ask_the_server_is_declined(asking: MCPServerStdio) -> None:
    agent = booking_agent(asking)
    result = await Runner.run(agent, "book it")  # a run that pauses cannot pause mid-call
    assert result.final_output == "Done."
    assert told(agent) == "not booked (decline)"


async def test_the_servers_message_is_shown_without_control_characters(
    asking: MCPServerStdio,
) -> None:
    texts: list[Any] = []

    def handler(request: ApprovalRequest) -> ApprovalDecision:
        assert request.question is not None
        texts.append(request.question.text)
        return request.answer({"note": "hi"})

    agent = booking_agent(asking, "mcp__asking__shout")
    await Runner.run(agent, "shout", approval_handler=handler)
    assert told(agent) == "accept: hi"
    (shown,) = texts
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "cleared" in shown


@function_tool
async def pick_colour() -> str:
    """Pick a colour with the person."""
    colour = await ask_user(Question("Which colour?", choices=("red", "blue")))
    return f"painted {colour}"


async def test_a_served_tools_question_reaches_the_calling_clients_person() -> None:
    """An agent calls a tool served over MCP; the tool asks; the server elicits the calling
    client, whose run asks its own person: the answer travels back the same way."""
    served_asked: list[ApprovalRequest] = []

    def serving_handler(request: ApprovalRequest) -> None:  # None: the call would wait
        served_asked.append(request)

    with ToolboxServer([pick_colour], approval_handler=serving_handler) as served:
        remote = MCPServerStreamableHttp({"url": served.url, "headers": served.headers}, name="nb")
        async with remote:
            turns: list[list[ScriptedOutput]] = [
                [tool_call("mcp__nb__pick_colour", {}, call_id="p1")],
                [text("Done.")],
            ]
            agent = Agent(name="a", model=ScriptedModel(turns), mcp_servers=[remote])
            seen: list[ApprovalRequest] = []

            def handler(request: ApprovalRequest) -> ApprovalDecision:
                seen.append(request)
                return request.answer("blue")

            await Runner.run(agent, "paint", approval_handler=handler)
    assert told(agent) == "painted blue"
    (request,) = seen
    assert request.question is not None and request.question.origin == "MCP server nb"
    assert request.question.text == "Which colour?"
    # It travelled as a one-field form and is asked as the choice it was.
    assert request.question.choices == ("red", "blue") and request.question.form is None
    assert served_asked == []  # the serving side's own handler was not asked


async def test_a_served_question_the_client_cannot_put_to_anyone_is_declined() -> None:
    served_asked: list[ApprovalRequest] = []

    def serving_handler(request: ApprovalRequest) -> None:  # None: the call would wait
        served_asked.append(request)

    with ToolboxServer([pick_colour], approval_handler=serving_handler) as served:
        async with MCPServerStreamableHttp(
            {"url": served.url, "headers": served.headers}, name="plain"
        ) as remote:
            # Called directly, not from a run: the client answers elicitation requests, but
            # nobody on its side can be asked, so it declines; the tool hears None.
            result = await remote.call_tool("pick_colour", {})
    assert text_of(result) == "painted None"
    assert served_asked == []
