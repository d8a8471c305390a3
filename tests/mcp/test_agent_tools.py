"""MCP tools in runs: over HTTP with the real openai client in both wire formats, names and
schemas as sent, results to the model, errors, filters, and approvals (live and paused)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

from jupyter_agents import Agent, ApprovalDecision, Runner, RunState
from jupyter_agents.mcp import (
    MCPServerStdio,
    MCPServerStdioParams,
    MCPServerStreamableHttp,
    create_static_tool_filter,
)
from jupyter_agents.runtime.models.openai_chat import OpenAIChatCompletionsModel
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.runtime.tools.kinds import describe_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies, json_body

pytestmark = pytest.mark.http


@pytest.fixture
async def demo(demo_command: list[str]) -> AsyncIterator[MCPServerStdio]:
    server = MCPServerStdio({"command": demo_command[0], "args": demo_command[1:]}, name="demo")
    async with server:
        yield server


def model_for(server: FakeOpenAIServer, kind: str = "responses") -> Any:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    return cls("gpt-test", openai_client=client)


def offered(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tools = request["tools"]
    flat = [t.get("function", t) for t in tools]
    return {t["name"]: t for t in flat}


def outputs(request: dict[str, Any]) -> dict[str, Any]:
    """The tool outputs a request sends, by call id (either wire format)."""
    found = {}
    for item in request.get("input") or request.get("messages") or []:
        if item.get("type") == "function_call_output":
            found[item["call_id"]] = item["output"]
        elif item.get("role") == "tool":
            found[item["tool_call_id"]] = item["content"]
    return found


@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_calls_reach_the_server_and_answers_reach_the_model(
    openai_server: FakeOpenAIServer, demo: MCPServerStdio, kind: str
) -> None:
    openai_server.enqueue(
        Reply(
            [
                ReplyToolCall("mcp__demo__add", {"a": 2, "b": 3}, call_id="c1"),
                ReplyToolCall("mcp__demo__fail", {"message": "bad input"}, call_id="c2"),
                ReplyToolCall("mcp__demo__maybe", {"text": "q", "times": None}, call_id="c3"),
            ]
        ),
        Reply([ReplyText("Five.")]),
    )
    agent = Agent(name="a", model=model_for(openai_server, kind), mcp_servers=[demo])
    result = await Runner.run(agent, "Add 2 and 3.")
    assert result.final_output == "Five."
    first, second = json_bodies(openai_server.model_requests)
    tools = offered(first)
    assert list(tools) == sorted(tools)  # sorted, for the provider's prompt cache
    assert {"mcp__demo__add", "mcp__demo__echo", "mcp__demo__slow"} <= set(tools)
    assert tools["mcp__demo__add"]["strict"] is True
    assert tools["mcp__demo__maybe"]["parameters"]["required"] == ["text", "times"]
    sent = outputs(second)
    assert json.loads(sent["c1"]) == {"sum": 5}
    assert "bad input" in sent["c2"]
    assert sent["c3"] == "q (no times given)"  # the null optional was left out
    failed = [i for i in result.new_items if i.type == "tool_call_output_item"][1]
    assert failed.status == "error"


async def test_images_go_to_the_model_as_images(
    openai_server: FakeOpenAIServer, demo: MCPServerStdio
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__image", {}, call_id="c1")]), Reply([ReplyText("Red.")])
    )
    agent = Agent(name="a", model=model_for(openai_server), mcp_servers=[demo])
    await Runner.run(agent, "Show me.")
    [part] = outputs(json_body(openai_server.model_requests[1]))["c1"]
    assert part["type"] == "input_image"
    assert part["image_url"].startswith("data:image/png;base64,iVBORw0KGgo")


async def test_structured_content_when_asked(
    openai_server: FakeOpenAIServer, demo_command: list[str]
) -> None:
    server = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]},
        name="demo",
        use_structured_content=True,
    )
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__echo", {"text": "hi"}, call_id="c1")]),
        Reply([ReplyText("ok")]),
    )
    async with server:
        await Runner.run(Agent(name="a", model=model_for(openai_server), mcp_servers=[server]), "x")
    assert json.loads(outputs(json_body(openai_server.model_requests[1]))["c1"]) == {"result": "hi"}


async def test_long_and_odd_names_stay_unique_and_valid(
    openai_server: FakeOpenAIServer, demo_command: list[str]
) -> None:
    server = MCPServerStdio(
        {"command": demo_command[0], "args": [*demo_command[1:], "--long-names"]},
        name="demo.server",
    )
    openai_server.enqueue(Reply([ReplyText("ok")]))
    async with server:
        await Runner.run(Agent(name="a", model=model_for(openai_server), mcp_servers=[server]), "x")
    names = list(offered(json_body(openai_server.model_requests[0])))
    assert len(names) == len(set(names))
    assert all(len(n) <= 64 and n.replace("_", "").replace("-", "").isalnum() for n in names)
    assert "mcp__demo_server__weird_name_with_spaces" in names
    [long] = [n for n in names if "tttt" in n]
    assert len(long) == 64


async def test_two_servers_with_the_same_name_are_refused(demo_command: list[str]) -> None:
    one = MCPServerStdio({"command": demo_command[0], "args": demo_command[1:]}, name="x")
    two = MCPServerStdio({"command": demo_command[0], "args": demo_command[1:]}, name="x")
    with pytest.raises(Exception, match="two MCP servers named 'x'"):
        await Runner.run(Agent(name="a", model="unused", mcp_servers=[one, two]), "x")


async def test_static_and_dynamic_filters(
    openai_server: FakeOpenAIServer, demo_command: list[str]
) -> None:
    args: MCPServerStdioParams = {"command": demo_command[0], "args": demo_command[1:]}
    static = MCPServerStdio(
        args,
        name="s",
        tool_filter=create_static_tool_filter(
            allowed_tool_names=["echo", "add", "fail"], blocked_tool_names=["fail"]
        ),
    )
    seen: list[str] = []

    def only_notes(context: Any, tool: Any) -> bool:
        seen.append(context.server_name)
        return bool(tool.name.endswith("_note"))

    dynamic = MCPServerStdio(args, name="d", tool_filter=only_notes)
    openai_server.enqueue(Reply([ReplyText("ok")]))
    async with static, dynamic:
        agent = Agent(name="a", model=model_for(openai_server), mcp_servers=[static, dynamic])
        await Runner.run(agent, "x")
    assert sorted(offered(json_body(openai_server.model_requests[0]))) == [
        "mcp__d__delete_note",
        "mcp__d__read_note",
        "mcp__s__add",
        "mcp__s__echo",
    ]
    assert set(seen) == {"d"}


async def test_approval_live_with_annotations_in_the_card(
    openai_server: FakeOpenAIServer, demo_command: list[str]
) -> None:
    server = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]},
        name="demo",
        require_approval="destructive",
    )
    openai_server.enqueue(
        Reply(
            [
                ReplyToolCall("mcp__demo__read_note", {"name": "a"}, call_id="r1"),
                ReplyToolCall("mcp__demo__delete_note", {"name": "a"}, call_id="d1"),
                ReplyToolCall("mcp__demo__echo", {"text": "x"}, call_id="e1"),
            ]
        ),
        Reply([ReplyText("ok")]),
    )
    asked: list[str] = []

    def handler(request: Any) -> ApprovalDecision:
        asked.append(request.tool_name)
        return ApprovalDecision.reject("keep the note")

    async with server:
        agent = Agent(name="a", model=model_for(openai_server), mcp_servers=[server])
        result = await Runner.run(agent, "x", approval_handler=handler)
    # read-only: not asked; destructive: asked; no annotations (destructive by default): asked
    assert asked == ["mcp__demo__delete_note", "mcp__demo__echo"]
    sent = outputs(json_body(openai_server.model_requests[1]))
    assert sent["r1"] == "the note a says hi" and "keep the note" in sent["d1"]
    calls = {i.raw_item.call_id: i for i in result.new_items if i.type == "tool_call_item"}
    shown = describe_call(calls["d1"])
    assert shown.origin == "demo › delete_note" and shown.badge == "destructive"
    assert describe_call(calls["r1"]).badge == "read-only"


@pytest.mark.parametrize("decision", ["approve", "reject"])
async def test_approval_by_interruption_and_saved_state(
    openai_server: FakeOpenAIServer, demo_command: list[str], decision: str
) -> None:
    server = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]},
        name="demo",
        require_approval={"delete_note": "always"},
    )
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__delete_note", {"name": "old"}, call_id="d1")]),
        Reply([ReplyText("done")]),
    )
    async with server:
        agent = Agent(name="a", model=model_for(openai_server), mcp_servers=[server])
        paused = await Runner.run(agent, "delete old")
        [item] = paused.interruptions
        assert item.tool_name == "mcp__demo__delete_note" and item.arguments == {"name": "old"}
        state = RunState.from_json(agent, paused.to_state().to_json())
        if decision == "approve":
            state.approve(state.interruptions[0])
        else:
            state.reject(state.interruptions[0], message="not that one")
        resumed = await Runner.run(agent, state)
    assert resumed.final_output == "done"
    sent = outputs(json_body(openai_server.model_requests[1]))["d1"]
    assert sent == "deleted old" if decision == "approve" else "not that one" in sent


async def test_over_streamable_http(openai_server: FakeOpenAIServer, demo_http_url: str) -> None:
    server = MCPServerStreamableHttp({"url": demo_http_url}, name="web")
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__web__echo", {"text": "over http"}, call_id="c1")]),
        Reply([ReplyText("ok")]),
    )
    async with server:
        await Runner.run(Agent(name="a", model=model_for(openai_server), mcp_servers=[server]), "x")
    assert outputs(json_body(openai_server.model_requests[1]))["c1"] == "over http"


async def test_progress_reaches_the_live_output_sink(
    openai_server: FakeOpenAIServer, demo: MCPServerStdio
) -> None:
    from jupyter_agents.runtime.tools.live_output import tool_output_sink

    printed: list[tuple[str, str]] = []
    token = tool_output_sink.set(lambda call_id, text: printed.append((call_id, text)))
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__slow", {"seconds": 0.2, "steps": 2}, call_id="s1")]),
        Reply([ReplyText("ok")]),
    )
    try:
        await Runner.run(Agent(name="a", model=model_for(openai_server), mcp_servers=[demo]), "x")
    finally:
        tool_output_sink.reset(token)
    assert printed == [
        ("s1", "[progress 1/2] step 1 of 2\n"),
        ("s1", "[progress 2/2] step 2 of 2\n"),
    ]


async def test_progress_goes_to_the_progress_sink_as_a_bar_when_one_listens(
    openai_server: FakeOpenAIServer, demo: MCPServerStdio
) -> None:
    from jupyter_agents.runtime.tools.live_output import tool_output_sink, tool_progress_sink

    printed: list[tuple[str, str]] = []
    bars: list[tuple[str, float, float | None, str]] = []
    token = tool_output_sink.set(lambda call_id, text: printed.append((call_id, text)))
    listening = tool_progress_sink.set(lambda *said: bars.append(said))
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__slow", {"seconds": 0.2, "steps": 2}, call_id="s1")]),
        Reply([ReplyText("ok")]),
    )
    try:
        await Runner.run(Agent(name="a", model=model_for(openai_server), mcp_servers=[demo]), "x")
    finally:
        tool_progress_sink.reset(listening)
        tool_output_sink.reset(token)
    assert bars == [("s1", 1.0, 2.0, "step 1 of 2"), ("s1", 2.0, 2.0, "step 2 of 2")]
    assert printed == []  # the bar, not lines


async def test_a_crash_mid_call_tells_the_model_and_shows_stderr_in_the_card(
    openai_server: FakeOpenAIServer, demo: MCPServerStdio
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("mcp__demo__crash", {}, call_id="x1")]),
        Reply([ReplyToolCall("mcp__demo__note_resource", {}, call_id="n1")]),
        Reply([ReplyText("recovered")]),
    )
    agent = Agent(name="a", model=model_for(openai_server), mcp_servers=[demo])
    result = await Runner.run(agent, "x")
    assert result.final_output == "recovered"
    crashed, resource = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert crashed.status == "error" and crashed.error is not None
    assert crashed.error.type == "MCPServerError"
    assert "MCP server 'demo' closed the connection" in crashed.raw_item["output"]
    assert "crashing on purpose" in (crashed.error.traceback or "")  # shown under the error
    # The next call started the server again; an embedded resource comes with its URI.
    assert resource.raw_item["output"] == "[resource note://hello]\nhello from a resource"


async def test_require_approval_as_a_function(
    openai_server: FakeOpenAIServer, demo_command: list[str]
) -> None:
    seen: list[tuple[str, str]] = []

    async def decide(run_context: Any, agent: Any, tool: Any) -> bool:
        seen.append((agent.name, tool.name))
        return bool(tool.name == "echo")

    server = MCPServerStdio(
        {"command": demo_command[0], "args": demo_command[1:]}, name="demo", require_approval=decide
    )
    openai_server.enqueue(
        Reply(
            [
                ReplyToolCall("mcp__demo__echo", {"text": "x"}, call_id="e1"),
                ReplyToolCall("mcp__demo__add", {"a": 1, "b": 1}, call_id="a1"),
            ]
        )
    )
    async with server:
        agent = Agent(name="helper", model=model_for(openai_server), mcp_servers=[server])
        paused = await Runner.run(agent, "x")
    assert [i.tool_name for i in paused.interruptions] == ["mcp__demo__echo"]
    assert sorted(seen) == [("helper", "add"), ("helper", "echo")]
