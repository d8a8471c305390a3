"""The SDK's run switches: error handlers, tool_error_formatter, tool_not_found_behavior,
auto_previous_response_id and stored prompts (Agent(prompt=))."""

from __future__ import annotations

from typing import Any

import openai
import pydantic
import pytest

from jupyter_agents import (
    Agent,
    AgentToolStreamEvent,
    ApprovalDecision,
    GenerateDynamicPromptData,
    InMemorySession,
    MaxTurnsExceeded,
    MessageOutputItem,
    ModelBehaviorError,
    ModelRefusalError,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Prompt,
    RunConfig,
    RunErrorHandlerInput,
    RunErrorHandlerResult,
    RunHooks,
    Runner,
    ToolCallOutputItem,
    ToolErrorFormatterArgs,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, output_item, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies


@tool
def ping(n: int) -> str:
    """Ping."""
    return f"pong {n}"


@tool(needs_approval=True)
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


class Answer(pydantic.BaseModel):
    value: int


def looping(turns: int = 5) -> ScriptedModel:
    return ScriptedModel([[tool_call("ping", {"n": i})] for i in range(turns)])


# -- error_handlers ---------------------------------------------------------------------------


async def test_max_turns_handler_ends_the_run_with_its_output_and_sees_the_run_so_far() -> None:
    seen: list[RunErrorHandlerInput[Any]] = []

    def handler(data: RunErrorHandlerInput[Any]) -> RunErrorHandlerResult:
        seen.append(data)
        return RunErrorHandlerResult(final_output="gave up after two pings")

    session = InMemorySession("s1")
    agent = Agent(name="a", model=looping(), tools=[ping])
    result = await Runner.run(
        agent, "go", max_turns=2, error_handlers={"max_turns": handler}, session=session
    )

    assert result.final_output == "gave up after two pings"
    (data,) = seen
    assert isinstance(data.error, MaxTurnsExceeded)
    assert data.run_data.last_agent is agent
    assert len(data.run_data.raw_responses) == 2
    assert [i["type"] for i in data.run_data.output if "type" in i].count("function_call") == 2
    assert data.run_data.history[0] == {"role": "user", "content": "go"}
    last = result.new_items[-1]
    assert isinstance(last, MessageOutputItem)
    saved = await session.get_items()
    assert saved[-1]["content"][0]["text"] == "gave up after two pings"  # the session has it


async def test_max_turns_handler_may_return_a_dict_or_the_value_or_keep_it_out_of_history() -> None:
    for answer, expected in (
        ({"final_output": "from dict", "include_in_history": False}, "from dict"),
        ("plain value", "plain value"),
    ):

        def handler(_data: RunErrorHandlerInput[Any], answer: Any = answer) -> Any:
            return answer

        result = await Runner.run(
            Agent(name="a", model=looping(), tools=[ping]),
            "go",
            max_turns=1,
            error_handlers={"max_turns": handler},
        )
        assert result.final_output == expected
        kept = isinstance(result.new_items[-1], MessageOutputItem)
        assert kept is (expected == "plain value")


async def test_an_async_handler_that_returns_none_lets_the_error_stand() -> None:
    async def decline(_data: Any) -> None:
        return None

    with pytest.raises(MaxTurnsExceeded):
        await Runner.run(
            Agent(name="a", model=looping(), tools=[ping]),
            "go",
            max_turns=1,
            error_handlers={"max_turns": decline},
        )


async def test_invalid_final_output_handler_replaces_a_malformed_structured_answer() -> None:
    agent = Agent(name="s", model=ScriptedModel([["not json"]]), output_type=Answer)
    with pytest.raises(ModelBehaviorError):
        await Runner.run(agent, "go")

    agent = Agent(name="s", model=ScriptedModel([["not json"]]), output_type=Answer)
    result = await Runner.run(
        agent, "go", error_handlers={"invalid_final_output": lambda d: {"value": 7}}
    )
    assert result.final_output == Answer(value=7)


async def test_a_handler_output_that_does_not_fit_the_output_type_is_a_user_error() -> None:
    agent = Agent(name="s", model=ScriptedModel([["not json"]]), output_type=Answer)
    with pytest.raises(UserError, match="does not fit agent 's'"):
        await Runner.run(
            agent, "go", error_handlers={"invalid_final_output": lambda d: {"wrong": 1}}
        )


async def test_a_refusal_of_structured_output_is_a_model_refusal_error_or_goes_to_its_handler() -> (
    None
):
    refusal = output_item(
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "refusal", "refusal": "I cannot help with that."}],
        }
    )
    agent = Agent(name="s", model=ScriptedModel([[refusal]]), output_type=Answer)
    with pytest.raises(ModelRefusalError) as caught:
        await Runner.run(agent, "go")
    assert caught.value.refusal == "I cannot help with that."

    agent = Agent(name="s", model=ScriptedModel([[refusal]]), output_type=Answer)
    result = await Runner.run(
        agent,
        "go",
        error_handlers={"model_refusal": lambda d: Answer(value=0)},
    )
    assert result.final_output == Answer(value=0)


async def test_unknown_error_handler_kinds_and_non_callables_are_refused_up_front() -> None:
    agent = Agent(name="a", model=looping(), tools=[ping])
    with pytest.raises(UserError, match="unknown kind 'max_turn'"):
        await Runner.run(agent, "go", error_handlers={"max_turn": lambda d: "x"})  # type: ignore[arg-type]
    with pytest.raises(UserError, match="must be callable"):
        await Runner.run(agent, "go", error_handlers={"max_turns": "x"})  # type: ignore[arg-type]
    assert agent.model.requests == []  # type: ignore[union-attr]


# -- tool_not_found_behavior ------------------------------------------------------------------


async def test_a_call_to_a_missing_tool_ends_the_run_by_default_as_in_the_sdk() -> None:
    model = ScriptedModel([[tool_call("nope", {})], ["ok"]])
    with pytest.raises(ModelBehaviorError) as raised:
        await Runner.run(Agent(name="a", model=model, tools=[ping]), "go")
    assert str(raised.value).startswith("Tool nope not found in agent a")
    assert "tool_not_found_behavior='return_error_to_model'" in str(raised.value)  # what to do
    assert len(model.requests) == 1


async def test_return_error_to_model_tells_the_model_of_a_missing_tool() -> None:
    model = ScriptedModel([[tool_call("nope", {})], ["ok"]])
    result = await Runner.run(
        Agent(name="a", model=model, tools=[ping]),
        "go",
        run_config=RunConfig(tool_not_found_behavior="return_error_to_model"),
    )
    assert result.final_output == "ok"
    told = model.requests[1].input[-1]["output"]
    assert "'nope' does not exist" in told and "ping" in told


async def test_a_misspelt_tool_not_found_behavior_is_a_user_error() -> None:
    with pytest.raises(UserError, match="tool_not_found_behavior"):
        await Runner.run(
            Agent(name="a", model=looping(), tools=[ping]),
            "go",
            run_config=RunConfig(tool_not_found_behavior="raise"),  # type: ignore[arg-type]
        )


# -- tool_error_formatter ---------------------------------------------------------------------


async def test_the_formatter_words_missing_tools_and_rejections() -> None:
    calls: list[ToolErrorFormatterArgs[Any]] = []

    async def formatter(args: ToolErrorFormatterArgs[Any]) -> str:
        calls.append(args)
        return f"[{args.kind}] {args.tool_name}"

    turn = [tool_call("nope", {}, call_id="c1"), tool_call("delete", {"path": "x"}, call_id="c2")]
    model = ScriptedModel([turn, ["done"]])
    result = await Runner.run(
        Agent(name="a", model=model, tools=[delete]),
        "go",
        run_config=RunConfig(
            tool_error_formatter=formatter, tool_not_found_behavior="return_error_to_model"
        ),
        approval_handler=lambda request: ApprovalDecision.reject(),
    )
    assert result.final_output == "done"
    outputs = {i["call_id"]: i["output"] for i in model.requests[1].input if "output" in i}
    assert outputs == {"c1": "[tool_not_found] nope", "c2": "[approval_rejected] delete"}
    assert {(a.kind, a.tool_type, a.call_id) for a in calls} == {
        ("tool_not_found", "function", "c1"),
        ("approval_rejected", "function", "c2"),
    }
    assert all(a.default_message and a.run_context is result.context_wrapper for a in calls)


async def test_the_persons_own_reason_wins_and_a_failing_formatter_keeps_the_default() -> None:
    def broken(args: ToolErrorFormatterArgs[Any]) -> str:
        raise RuntimeError("formatter bug")

    def wrong_type(args: ToolErrorFormatterArgs[Any]) -> Any:
        return 42

    for formatter in (broken, wrong_type, lambda args: None):
        model = ScriptedModel([[tool_call("nope", {}, call_id="c1")], ["done"]])
        config = RunConfig(
            tool_error_formatter=formatter, tool_not_found_behavior="return_error_to_model"
        )
        await Runner.run(Agent(name="a", model=model, tools=[ping]), "go", run_config=config)
        assert "'nope' does not exist" in model.requests[1].input[-1]["output"]

    model = ScriptedModel([[tool_call("delete", {"path": "x"}, call_id="c2")], ["done"]])
    await Runner.run(
        Agent(name="a", model=model, tools=[delete]),
        "go",
        run_config=RunConfig(tool_error_formatter=lambda args: "formatted"),
        approval_handler=lambda request: ApprovalDecision.reject(message="not today"),
    )
    assert "not today" in model.requests[1].input[-1]["output"]


# -- auto_previous_response_id (the real openai client over HTTP) -----------------------------


@pytest.mark.http
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_auto_previous_response_id_chains_calls_after_the_first(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("ping", {"n": 1}, call_id="call_1")]),
        Reply([ReplyText("pong received")]),
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    agent = Agent(
        name="a", model=OpenAIResponsesModel("gpt-test", openai_client=client), tools=[ping]
    )
    if stream:
        result: Any = Runner.run_streamed(agent, "go", auto_previous_response_id=True)
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "go", auto_previous_response_id=True)

    assert result.final_output == "pong received"
    first, second = json_bodies(openai_server.model_requests)
    assert "previous_response_id" not in first
    assert first["input"] == [{"role": "user", "content": "go"}]
    assert second["previous_response_id"] == result.raw_responses[0].response_id
    assert second["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "pong 1"}
    ]


async def test_without_auto_previous_response_id_every_call_sends_the_whole_history() -> None:
    model = ScriptedModel([[tool_call("ping", {"n": 1})], ["done"]])
    await Runner.run(Agent(name="a", model=model, tools=[ping]), "go")
    assert model.requests[1].previous_response_id is None
    assert len(model.requests[1].input) == 3


# -- Agent(prompt=) ----------------------------------------------------------------------------


@pytest.mark.http
async def test_a_stored_prompt_is_sent_with_every_responses_call(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("ping", {"n": 1}, call_id="call_1")]), Reply([ReplyText("ok")])
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    seen: list[GenerateDynamicPromptData] = []

    def prompt(data: GenerateDynamicPromptData) -> Prompt:
        seen.append(data)
        return {"id": "pmpt_1", "version": "2", "variables": {"turn": str(len(seen))}}

    agent = Agent(
        name="p",
        model=OpenAIResponsesModel("gpt-test", openai_client=client),
        tools=[ping],
        prompt=prompt,
    )
    await Runner.run(agent, "go", context={"user": "ada"})
    assert [b["prompt"] for b in json_bodies(openai_server.model_requests)] == [
        {"id": "pmpt_1", "version": "2", "variables": {"turn": "1"}},
        {"id": "pmpt_1", "version": "2", "variables": {"turn": "2"}},
    ]
    assert seen[0].agent is agent and seen[0].context.context == {"user": "ada"}


async def test_a_static_prompt_reaches_the_model_and_none_sends_nothing() -> None:
    model = ScriptedModel([["a"], ["b"]])
    await Runner.run(Agent(name="p", model=model, prompt={"id": "pmpt_2"}), "go")
    await Runner.run(Agent(name="q", model=model), "go")
    assert [r.prompt for r in model.requests] == [
        {"id": "pmpt_2", "version": None, "variables": None},
        None,
    ]


def test_a_malformed_prompt_is_refused_when_the_agent_is_made() -> None:
    with pytest.raises(UserError, match="string 'id'"):
        Agent(name="p", prompt={"name": "x"})  # type: ignore[arg-type]
    with pytest.raises(UserError, match="unknown key"):
        Agent(name="p", prompt={"id": "x", "vars": {}})  # type: ignore[arg-type]


async def test_a_prompt_function_returning_garbage_is_a_user_error() -> None:
    agent = Agent(name="p", model=ScriptedModel([["a"]]), prompt=lambda data: "pmpt_1")  # type: ignore[arg-type,return-value]
    with pytest.raises(UserError, match="prompt function's result"):
        await Runner.run(agent, "go")


@pytest.mark.http
async def test_chat_completions_leaves_the_prompt_out_and_says_so_once(
    openai_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.enqueue(Reply([ReplyText("one")]), Reply([ReplyText("two")]))
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    model = OpenAIChatCompletionsModel("gpt-test", openai_client=client)
    agent = Agent(name="c", model=model, prompt={"id": "pmpt_1"})
    with caplog.at_level("WARNING", logger="jupyter_agents"):
        await Runner.run(agent, "go")
        await Runner.run(agent, "again")
    assert all("prompt" not in b for b in json_bodies(openai_server.model_requests))
    assert sum("stored prompts need the Responses API" in m for m in caplog.messages) == 1


# -- Agent.as_tool run options -----------------------------------------------------------------


async def test_as_tool_on_stream_sees_every_nested_event_with_its_agent_and_call() -> None:
    got: list[AgentToolStreamEvent] = []

    async def on_stream(payload: AgentToolStreamEvent) -> None:
        got.append(payload)

    inner = Agent(name="inner", model=ScriptedModel([["bonjour"]]))
    outer_model = ScriptedModel(
        [[tool_call("ask", {"input": "hello"}, call_id="call_ask")], ["done"]]
    )
    outer = Agent(
        name="outer", model=outer_model, tools=[inner.as_tool("ask", "Ask.", on_stream=on_stream)]
    )
    result = await Runner.run(outer, "go")

    assert result.final_output == "done"
    assert got and all(p["agent"] is inner for p in got)
    calls = [p["tool_call"] for p in got]
    assert {c.call_id for c in calls if c is not None} == {"call_ask"} and None not in calls
    kinds = [p["event"].type for p in got]
    assert kinds[0] == "agent_updated_stream_event"
    assert "raw_response_event" in kinds and "run_item_stream_event" in kinds


async def test_a_failing_on_stream_handler_does_not_fail_the_nested_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(payload: AgentToolStreamEvent) -> None:
        raise RuntimeError("handler bug")

    inner = Agent(name="inner", model=ScriptedModel([["bonjour"]]))
    outer_model = ScriptedModel([[tool_call("ask", {"input": "hi"})], ["done"]])
    outer = Agent(
        name="outer", model=outer_model, tools=[inner.as_tool("ask", "Ask.", on_stream=broken)]
    )
    with caplog.at_level("ERROR", logger="jupyter_agents"):
        result = await Runner.run(outer, "go")
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.output == "bonjour"
    assert any("on_stream handler failed" in m for m in caplog.messages)


async def test_as_tool_passes_run_config_hooks_and_session_to_the_nested_run() -> None:
    class Counting(RunHooks[Any]):
        def __init__(self) -> None:
            self.started: list[str] = []

        async def on_agent_start(self, context: Any, agent: Agent[Any]) -> None:
            self.started.append(agent.name)

    hooks = Counting()
    session = InMemorySession("nested")
    inner_model = ScriptedModel([["first"], ["second"]])
    inner = Agent(name="inner", model=inner_model)
    config = RunConfig(workflow_name="nested", model_settings=ModelSettings(temperature=0.1))
    made = inner.as_tool("ask", "Ask.", run_config=config, hooks=hooks, session=session)
    outer_model = ScriptedModel(
        [[tool_call("ask", {"input": "one"})], ["ok"], [tool_call("ask", {"input": "two"})], ["ok"]]
    )
    outer = Agent(name="outer", model=outer_model, tools=[made])
    await Runner.run(outer, "go")
    await Runner.run(outer, "again")

    assert hooks.started == ["inner", "inner"]
    assert all(r.model_settings.temperature == 0.1 for r in inner_model.requests)
    assert outer_model.requests[0].model_settings.temperature is None
    second = inner_model.requests[1].input
    assert [i.get("content") for i in second if i.get("role") == "user"] == ["one", "two"]
    assert len(await session.get_items()) == 4
