"""The SDK's runner surface: ``AgentRunner`` and the default runner, ``run_sync``'s loop,
``run_demo_loop``, ``serialize_usage``, ``RunErrorDetails`` and the positional order of
``Agent.as_tool``."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    AgentRunner,
    MaxTurnsExceeded,
    MCPToolCancellationError,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    UserError,
    run_demo_loop,
    tool,
    tool_input_guardrail,
)
from jupyter_agents import exceptions as sdk_exceptions
from jupyter_agents.run import get_default_agent_runner, set_default_agent_runner
from jupyter_agents.runtime.mcp.tool import _cancellable
from jupyter_agents.runtime.result import RunErrorDetails
from jupyter_agents.runtime.usage import InputTokensDetails
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.usage import Usage, deserialize_usage, serialize_usage


@pytest.fixture(autouse=True)
def _default_runner() -> Iterator[None]:
    yield
    set_default_agent_runner(None)


class _Recording(AgentRunner):
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def run(self, starting_agent: Any, input: Any, **options: Any) -> Any:
        self.calls.append(f"run:{input}")
        return await super().run(starting_agent, input, **options)


async def test_runner_calls_the_default_agent_runner() -> None:
    runner = _Recording()
    set_default_agent_runner(runner)
    assert get_default_agent_runner() is runner
    result = await Runner.run(Agent(name="a", model=ScriptedModel([[text("hi")]])), "go")
    assert result.final_output == "hi"
    assert runner.calls == ["run:go"]
    set_default_agent_runner(None)
    assert type(get_default_agent_runner()) is AgentRunner


def test_run_sync_runs_on_the_default_loop_and_leaves_it_open() -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    seen: list[asyncio.AbstractEventLoop] = []

    @tool
    async def where() -> str:
        """Where."""
        seen.append(asyncio.get_running_loop())
        return "here"

    try:
        model = ScriptedModel([[tool_call("where")], [text("done")]])
        result = AgentRunner().run_sync(Agent(name="a", model=model, tools=[where]), "go")
        assert result.final_output == "done"
        assert seen == [loop]
        assert not loop.is_closed()
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def test_run_sync_replaces_a_closed_default_loop() -> None:
    closed = asyncio.new_event_loop()
    closed.close()
    asyncio.set_event_loop(closed)
    try:
        model = ScriptedModel([[text("done")]])
        assert Runner.run_sync(Agent(name="a", model=model), "go").final_output == "done"
        replacement = asyncio.get_event_loop_policy().get_event_loop()
        assert replacement is not closed and not replacement.is_closed()
    finally:
        current = asyncio.get_event_loop_policy().get_event_loop()
        asyncio.set_event_loop(None)
        current.close()


async def test_run_sync_inside_a_running_loop_still_runs() -> None:
    model = ScriptedModel([[text("done")]])
    result = AgentRunner().run_sync(Agent(name="a", model=model), "go")
    assert result.final_output == "done"


async def test_run_demo_loop_keeps_the_conversation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel([[text("hello")], [text("fine")]])
    lines = iter(["Hi", "", "How are you?", "quit"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))
    await run_demo_loop(Agent(name="a", model=model), stream=False)
    out = capsys.readouterr().out
    assert "hello" in out and "fine" in out
    sent = model.requests[-1].input
    assert [item.get("content") for item in sent if item.get("role") == "user"] == [
        "Hi",
        "How are you?",
    ]


async def test_run_demo_loop_streams_text_and_tool_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    @tool
    def probe() -> str:
        """Probe."""
        return "probed"

    model = ScriptedModel([[tool_call("probe")], [text("all done")]])
    lines = iter(["go"])

    def read(_prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", read)
    await run_demo_loop(Agent(name="a", model=model, tools=[probe]))
    out = capsys.readouterr().out
    assert "[tool called]" in out
    assert "[tool output: probed]" in out
    assert "all done" in out


def test_serialize_usage_round_trips_with_the_sdks_shape() -> None:
    usage = Usage()
    usage.add(
        Usage(
            requests=1,
            input_tokens=11,
            output_tokens=7,
            total_tokens=18,
            input_tokens_details=InputTokensDetails(cached_tokens=3, cache_write_tokens=2),
        )
    )
    data = serialize_usage(usage)
    assert data["input_tokens_details"] == [{"cached_tokens": 3, "cache_write_tokens": 2}]
    assert data["output_tokens_details"] == [{"reasoning_tokens": 0}]
    assert data["request_usage_entries"][0]["input_tokens"] == 11
    again = deserialize_usage(data)
    assert again == usage
    assert again.request_usage_entries == usage.request_usage_entries


def test_usage_takes_the_openai_packages_detail_types() -> None:
    from openai.types.responses.response_usage import InputTokensDetails as OpenAIInput
    from openai.types.responses.response_usage import OutputTokensDetails as OpenAIOutput

    usage = Usage(
        requests=1,
        input_tokens_details=OpenAIInput(cached_tokens=4, cache_write_tokens=1),  # type: ignore[arg-type]
        output_tokens_details=OpenAIOutput(reasoning_tokens=5),  # type: ignore[arg-type]
    )
    total = Usage() + usage
    assert total.input_tokens_details.cached_tokens == 4
    assert total.input_tokens_details.cache_write_tokens == 1
    assert total.output_tokens_details.reasoning_tokens == 5


async def test_run_data_keeps_the_tool_guardrail_results_of_finished_turns() -> None:
    @tool_input_guardrail
    def allow(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.allow(output_info="checked")

    @tool(tool_input_guardrails=[allow])
    def probe() -> str:
        """Probe."""
        return "ok"

    model = ScriptedModel([[tool_call("probe")], [tool_call("probe")]])
    with pytest.raises(MaxTurnsExceeded) as caught:
        await Runner.run(Agent(name="a", model=model, tools=[probe]), "go", max_turns=2)
    details = caught.value.run_data
    assert details is not None
    assert [r.output.output_info for r in details.tool_input_guardrail_results] == [
        "checked",
        "checked",
    ]
    assert details.input_guardrail_results == []
    assert "2 tool input guardrail result(s)" in str(details)


def test_run_error_details_str_follows_the_printer_at_the_sdk_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    details = RunErrorDetails(
        input="x",
        new_items=[],
        raw_responses=[],
        last_agent=Agent(name="a"),
        context_wrapper=None,  # type: ignore[arg-type]
        input_guardrail_results=[],
        output_guardrail_results=[],
    )
    assert str(details).startswith('RunErrorDetails:\n- Last agent: Agent(name="a", ...)')
    monkeypatch.setattr(sdk_exceptions, "pretty_print_run_error_details", lambda d: "mine")
    assert str(details) == "mine"


async def test_an_mcp_call_cancelled_inside_the_client_fails_the_call_not_the_run() -> None:
    made = types.SimpleNamespace(
        server=types.SimpleNamespace(name="files"), mcp_tool=types.SimpleNamespace(name="read")
    )

    async def cancelled_inside() -> str:
        raise asyncio.CancelledError

    with pytest.raises(MCPToolCancellationError, match="'read' on MCP server 'files'"):
        await _cancellable(made, cancelled_inside())  # type: ignore[arg-type]
    assert await _cancellable(made, asyncio.sleep(0, "ok")) == "ok"  # type: ignore[arg-type]


async def test_cancelling_the_run_still_cancels_an_mcp_call() -> None:
    made = types.SimpleNamespace(
        server=types.SimpleNamespace(name="files"), mcp_tool=types.SimpleNamespace(name="read")
    )
    started = asyncio.Event()
    stopped: list[bool] = []

    async def slow() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            stopped.append(True)
            raise
        return "never"

    call = asyncio.ensure_future(_cancellable(made, slow()))  # type: ignore[arg-type]
    await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert stopped == [True]


async def test_as_tool_takes_the_sdks_positional_order() -> None:
    events: list[Any] = []
    inner = Agent(name="inner", model=ScriptedModel([[text("done")]]))
    made = inner.as_tool("ask", "Ask.", None, True, events.append)
    outer_model = ScriptedModel([[tool_call("ask", {"input": "x"})], [text("ok")]])
    await Runner.run(Agent(name="outer", model=outer_model, tools=[made]), "go")
    assert events  # the fifth positional argument is on_stream


def test_as_tool_refuses_a_number_for_is_enabled_and_a_config_for_on_stream() -> None:
    inner = Agent(name="inner")
    with pytest.raises(UserError, match="max_turns"):
        inner.as_tool("ask", "Ask.", None, 3)
    with pytest.raises(UserError, match="on_stream must be callable"):
        inner.as_tool("ask", "Ask.", None, True, "not a function")  # type: ignore[arg-type]


@pytest.mark.parametrize("saved", [False, True])
async def test_rejection_message_is_all_the_model_is_told(saved: bool) -> None:
    from jupyter_agents import RunState

    @tool(needs_approval=True)
    def publish(post: str) -> str:
        """Publish."""
        return "published"

    def outputs_after(keyword: str) -> Any:
        async def run() -> list[str]:
            model = ScriptedModel([[tool_call("publish", {"post": "x"})], [text("ok")]])
            agent = Agent(name="a", model=model, tools=[publish])
            paused = await Runner.run(agent, "go")
            state = paused.to_state()
            if keyword == "message":
                state.reject(paused.interruptions[0], message="Not today.")
            else:
                state.reject(paused.interruptions[0], rejection_message="Not today.")
            if saved:
                state = await RunState.from_json(agent, state.to_json())
            await Runner.run(agent, state)
            sent = model.requests[-1].input
            return [i["output"] for i in sent if i.get("type") == "function_call_output"]

        return run()

    assert await outputs_after("rejection_message") == ["Not today."]
    assert await outputs_after("message") == [
        "The user rejected this call to tool 'publish'; it did not run. Reason: Not today."
    ]


def test_wrong_instructions_are_a_user_error_and_a_type_error() -> None:
    with pytest.raises(UserError) as caught:
        Agent(name="a", instructions=123)  # type: ignore[arg-type]
    assert isinstance(caught.value, TypeError)
    assert "must be a string, callable, or None, got int" in str(caught.value)

    def one(context: Any) -> str:
        return "x"

    with pytest.raises(TypeError, match=r"must accept exactly 2 arguments .* but got 1"):
        Agent(name="a", instructions=one)  # type: ignore[arg-type]
