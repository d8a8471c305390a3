"""Invoking tools: success, each error path, enabled/disabled tools, concurrency, threads."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    FunctionTool,
    ModelBehaviorError,
    RunConfig,
    RunContextWrapper,
    Runner,
    ToolArgumentsError,
    ToolContext,
    TracingProcessor,
    UserError,
    set_trace_processors,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call


class SpanCollector(TracingProcessor):
    def __init__(self) -> None:
        self.ended: list[Any] = []

    def on_span_end(self, span: Any) -> None:
        self.ended.append(span)


def outputs_of(result: Any) -> list[Any]:
    return [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]


TELL_THE_MODEL = RunConfig(tool_not_found_behavior="return_error_to_model")


async def run_calls(tools: list[Any], *calls: Any, context: Any = None) -> Any:
    """Run ``calls`` then "done"; a call to a tool not offered is told to the model."""
    model = ScriptedModel([list(calls), [text("done")]])
    agent = Agent(name="t", model=model, tools=tools)
    return await Runner.run(agent, "go", context=context, run_config=TELL_THE_MODEL)


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


async def test_invalid_json_arguments_become_a_message_to_the_model() -> None:
    result = await run_calls([divide], tool_call("divide", '{"a": 1, "b":'))
    (message,) = outputs_of(result)
    assert "not valid JSON" in message and "divide" in message
    assert result.final_output == "done"


async def test_schema_violation_becomes_a_message_naming_the_field() -> None:
    result = await run_calls([divide], tool_call("divide", {"a": "ten", "b": 2}))
    (message,) = outputs_of(result)
    # The SDK's words, through the default failure_error_function, then what to do.
    assert message.startswith(
        "An error occurred while running the tool. Please try again. Error: "
        "Invalid JSON input for tool divide: a:"
    )
    assert "match its schema" in message
    (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert output.status == "error"
    assert output.error is not None and output.error.type == "ModelBehaviorError"


@tool(failure_error_function=None)
def strict_divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@pytest.mark.parametrize("arguments", [{"a": "ten", "b": 2}, '{"a": 1, "b":', "[1, 2]"])
async def test_bad_arguments_end_the_run_without_a_failure_error_function(
    arguments: Any,
) -> None:
    with pytest.raises(ModelBehaviorError, match=r"^Invalid JSON input for tool strict_divide"):
        await run_calls([strict_divide], tool_call("strict_divide", arguments))


async def test_on_invoke_tool_words_errors_with_the_failure_error_function() -> None:
    seen: list[Exception] = []

    def told(ctx: RunContextWrapper[Any], error: Exception) -> str:
        seen.append(error)
        return f"told: {type(error).__name__}"

    @tool(failure_error_function=told)
    def half(x: int) -> float:
        if x < 0:
            raise ValueError("negative")
        return x / 2

    ctx = ToolContext(None, tool_name="half", tool_call_id="1", tool_arguments="")
    assert await half.on_invoke_tool(ctx, "{not json}") == "told: ModelBehaviorError"
    assert str(seen[0]).startswith("Invalid JSON input for tool half: ")
    assert await half.on_invoke_tool(ctx, '{"x": -1}') == "told: ValueError"
    assert await half.on_invoke_tool(ctx, '{"x": 4}') == 2.0
    with pytest.raises(ModelBehaviorError, match="Invalid JSON input for tool strict_divide"):
        await strict_divide.on_invoke_tool(ctx, "{not json}")


async def test_missing_argument_is_reported() -> None:
    result = await run_calls([divide], tool_call("divide", {"a": 1}))
    assert "b: Field required" in outputs_of(result)[0]


async def test_unknown_tool_gets_a_message_listing_available_tools() -> None:
    result = await run_calls([divide], tool_call("multiply", {"a": 1, "b": 2}))
    assert outputs_of(result) == ["Tool 'multiply' does not exist. Available tools: divide."]


async def test_exception_in_tool_goes_through_the_default_error_function() -> None:
    result = await run_calls([divide], tool_call("divide", {"a": 1, "b": 0}))
    (message,) = outputs_of(result)
    assert message.startswith("An error occurred while running the tool.")
    assert "division by zero" in message


async def test_failure_error_function_none_makes_the_run_raise() -> None:
    """As in the SDK: a ``UserError`` naming the tool, caused by the tool's exception; the
    call's function span holds "Error running tool"."""

    @tool(failure_error_function=None)
    def explode() -> str:
        """Always fails."""
        raise KeyError("boom")

    spans = SpanCollector()
    set_trace_processors([spans])
    try:
        with pytest.raises(UserError, match="Error running tool explode: 'boom'") as e:
            await run_calls([explode], tool_call("explode"))
    finally:
        set_trace_processors([])
    assert isinstance(e.value.__cause__, KeyError)
    (function,) = [s for s in spans.ended if s.span_data.type == "function"]
    assert function.error == {
        "message": "Error running tool",
        "data": {"tool_name": "explode", "error": "'boom'"},
    }


@pytest.mark.parametrize("is_async", [False, True])
async def test_custom_failure_error_functions(is_async: bool) -> None:
    def sync_handler(ctx: RunContextWrapper[Any], error: Exception) -> str:
        return f"custom: {type(error).__name__} for {ctx.context}"

    async def async_handler(ctx: RunContextWrapper[Any], error: Exception) -> str:
        return f"custom: {type(error).__name__} for {ctx.context}"

    @tool(failure_error_function=async_handler if is_async else sync_handler)
    def explode() -> str:
        """Always fails."""
        raise ValueError("nope")

    result = await run_calls([explode], tool_call("explode"), context="ctx")
    assert outputs_of(result) == ["custom: ValueError for ctx"]


async def test_a_raising_error_function_is_reported_as_a_user_error() -> None:
    def bad_handler(ctx: RunContextWrapper[Any], error: Exception) -> str:
        raise RuntimeError("handler broke")

    @tool(failure_error_function=bad_handler)
    def explode() -> str:
        """Always fails."""
        raise ValueError("nope")

    with pytest.raises(UserError, match="failure_error_function of tool 'explode'"):
        await run_calls([explode], tool_call("explode"))


async def test_disabled_tools_are_hidden_and_calls_to_them_are_refused() -> None:
    @tool(is_enabled=False)
    def secret() -> str:
        """Hidden."""
        return "leak"

    model = ScriptedModel([[tool_call("secret")], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[secret, divide])
    result = await Runner.run(agent, "go", run_config=TELL_THE_MODEL)
    assert model.requests[0].tool_names == ["divide"]
    assert outputs_of(result) == [
        "Tool 'secret' is not available right now. Do not call it again in this turn."
    ]


@pytest.mark.parametrize("is_async", [False, True])
async def test_is_enabled_callable_decides_per_run_context(is_async: bool) -> None:
    def sync_check(ctx: RunContextWrapper[Any], agent: Agent) -> bool:
        return bool(ctx.context["admin"]) and agent.name == "a"

    async def async_check(ctx: RunContextWrapper[Any], agent: Agent) -> bool:
        return bool(ctx.context["admin"]) and agent.name == "a"

    @tool(is_enabled=async_check if is_async else sync_check)
    def admin_only() -> str:
        """Admin."""
        return "ok"

    for admin, expected in [(True, ["admin_only"]), (False, [])]:
        model = ScriptedModel(["x"])
        await Runner.run(
            Agent(name="a", model=model, tools=[admin_only]), "go", context={"admin": admin}
        )
        assert model.requests[0].tool_names == expected


async def test_is_enabled_sees_the_tool_list_of_the_turn_it_was_asked_for() -> None:
    @tool
    def replacement() -> str:
        """New."""
        return "new"

    def swap(ctx: RunContextWrapper[Any], agent: Agent) -> bool:
        agent.tools[:] = [replacement]  # a callback changing the agent's tools
        return True

    @tool(is_enabled=swap)
    def original() -> str:
        """Old."""
        return "old"

    model = ScriptedModel(["x", "y"])
    agent = Agent(name="a", model=model, tools=[original, divide])
    await Runner.run(agent, "go")
    await Runner.run(agent, "go")
    # the list is read once per turn: the change shows on the next turn only
    assert [r.tool_names for r in model.requests] == [["divide", "original"], ["replacement"]]


async def test_context_is_injected_into_tools() -> None:
    @tool
    def whoami(ctx: ToolContext[dict[str, str]], greeting: str) -> str:
        """Greet the user."""
        return f"{greeting} {ctx.context['user']} ({ctx.tool_name}, {ctx.tool_call_id})"

    @tool
    async def usage_so_far(ctx: RunContextWrapper[dict[str, str]]) -> int:
        """Requests so far."""
        return ctx.usage.requests

    result = await run_calls(
        [whoami, usage_so_far],
        tool_call("whoami", {"greeting": "hi"}, call_id="c7"),
        tool_call("usage_so_far"),
        context={"user": "ana"},
    )
    assert outputs_of(result) == ["hi ana (whoami, c7)", "1"]


async def test_parallel_calls_run_concurrently_and_outputs_keep_call_order() -> None:
    started: dict[str, asyncio.Event] = {"first": asyncio.Event(), "second": asyncio.Event()}
    finished: list[str] = []

    @tool
    async def wait_for(me: str, other: str) -> str:
        """Start, then wait until the other call has started too."""
        started[me].set()
        # Deadlocks (and times out) unless both calls run at the same time.
        await asyncio.wait_for(started[other].wait(), timeout=5)
        if me == "first":  # finish in reverse order
            await asyncio.wait_for(asyncio.shield(_second_done.wait()), timeout=5)
        finished.append(me)
        if me == "second":
            _second_done.set()
        return me

    _second_done = asyncio.Event()
    result = await run_calls(
        [wait_for],
        tool_call("wait_for", {"me": "first", "other": "second"}),
        tool_call("wait_for", {"me": "second", "other": "first"}),
    )
    assert finished == ["second", "first"]
    assert outputs_of(result) == ["first", "second"]


async def test_sync_tools_run_on_a_worker_thread_with_the_callers_context() -> None:
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")
    marker.set("from caller")
    release = threading.Event()
    seen: dict[str, Any] = {}

    @tool
    def blocking() -> str:
        """Blocks until released."""
        seen["thread"] = threading.current_thread().name
        seen["marker"] = marker.get()
        assert release.wait(timeout=5)
        return "released"

    @tool
    async def releaser() -> str:
        """Runs on the loop while the sync tool blocks its thread."""
        release.set()
        return "set"

    result = await run_calls([blocking, releaser], tool_call("blocking"), tool_call("releaser"))
    assert outputs_of(result) == ["released", "set"]
    assert seen["thread"].startswith("jupyter_agents-tool")
    assert seen["marker"] == "from caller"


async def test_hand_built_function_tool() -> None:
    received: list[tuple[str, str]] = []

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        received.append((ctx.tool_name, arguments))
        if "bad" in arguments:
            raise ToolArgumentsError("value must not be 'bad'")
        return "handled"

    echo = FunctionTool(
        name="echo",
        description="Echo.",
        params_json_schema={
            "type": "object",
            "properties": {"value": {"type": "string"}},
            "required": ["value"],
            "additionalProperties": False,
        },
        on_invoke_tool=invoke,
    )
    result = await run_calls(
        [echo], tool_call("echo", {"value": "x"}), tool_call("echo", {"value": "bad"})
    )
    assert outputs_of(result) == ["handled", "value must not be 'bad'"]
    assert received[0] == ("echo", '{"value": "x"}')


def test_decorator_forms_and_direct_calls() -> None:
    @tool
    def bare(x: int) -> int:
        """Bare."""
        return x * 2

    @tool()
    def empty_parens(x: int) -> int:
        """Parens."""
        return x

    @tool(name_override="renamed", description_override="Custom description.")
    def configured(x: int) -> int:
        """Ignored docstring."""
        return x

    assert isinstance(bare, FunctionTool) and bare.name == "bare" and bare.description == "Bare."
    assert empty_parens.name == "empty_parens"
    assert (configured.name, configured.description) == ("renamed", "Custom description.")
    assert bare(21) == 42


def test_function_tool_and_tool_are_the_same_decorator() -> None:
    from jupyter_agents import function_tool

    assert function_tool is tool
