"""Structured output, tool_use_behavior, Agent.as_tool, hooks, the model input filter, tool
timeouts, sessions in runs and server-side conversation state."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any, Literal

import pydantic
import pytest
from typing_extensions import TypedDict

from jupyter_agents import (
    Agent,
    AgentHooks,
    CallModelData,
    GuardrailFunctionOutput,
    InMemorySession,
    ModelBehaviorError,
    ModelInputData,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    SQLiteSession,
    StopAtTools,
    ToolCallOutputItem,
    ToolsToFinalOutputResult,
    UserError,
    output_guardrail,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call


class Weather(pydantic.BaseModel):
    city: str
    celsius: float


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


@pytest.mark.parametrize(
    ("output_type", "answer", "expected"),
    [
        (Weather, {"city": "Paris", "celsius": 21.5}, Weather(city="Paris", celsius=21.5)),
        (Point, {"x": 1, "y": 2}, Point(1, 2)),
        (Movie, {"title": "Up", "year": 2009}, {"title": "Up", "year": 2009}),
        (int, {"response": 42}, 42),
        (list[str], {"response": ["a", "b"]}, ["a", "b"]),
    ],
)
async def test_structured_output_is_validated(output_type: Any, answer: Any, expected: Any) -> None:
    model = ScriptedModel([[text(json.dumps(answer))]])
    result = await Runner.run(Agent(name="s", model=model, output_type=output_type), "go")
    assert result.final_output == expected
    output_schema = model.requests[0].output_schema
    assert output_schema is not None
    schema = output_schema.json_schema()
    assert schema["additionalProperties"] is False and schema["type"] == "object"


async def test_invalid_structured_output_is_a_model_behavior_error() -> None:
    model = ScriptedModel([[text('{"city": "Paris"}')]])
    with pytest.raises(ModelBehaviorError, match="celsius"):
        await Runner.run(Agent(name="s", model=model, output_type=Weather), "go")


async def test_final_output_as() -> None:
    model = ScriptedModel([[text('{"city": "Oslo", "celsius": 9}')]])
    result = await Runner.run(Agent(name="s", model=model, output_type=Weather), "go")
    assert result.final_output_as(Weather).city == "Oslo"
    with pytest.raises(TypeError, match="not a Point"):
        result.final_output_as(Point, raise_if_incorrect_type=True)


@tool
def fetch(key: str) -> str:
    """Fetch."""
    return f"value of {key}"


@tool
def other(key: str) -> str:
    """Other."""
    return f"other {key}"


async def test_stop_on_first_tool_and_stop_at_tools() -> None:
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})]])
    agent = Agent(name="s", model=model, tools=[fetch], tool_use_behavior="stop_on_first_tool")
    result = await Runner.run(agent, "go")
    assert result.final_output == "value of a" and len(model.requests) == 1

    model = ScriptedModel([[tool_call("other", {"key": "x"})], [tool_call("fetch", {"key": "b"})]])
    agent = Agent(
        name="s",
        model=model,
        tools=[fetch, other],
        tool_use_behavior=StopAtTools(stop_at_tool_names=["fetch"]),
    )
    assert (await Runner.run(agent, "go")).final_output == "value of b"
    assert len(model.requests) == 2


async def test_tool_use_behavior_function() -> None:
    async def decide(ctx: RunContextWrapper[Any], results: list[Any]) -> ToolsToFinalOutputResult:
        outputs = [r.output for r in results]
        return ToolsToFinalOutputResult(is_final_output=len(outputs) == 2, final_output=outputs)

    model = ScriptedModel(
        [
            [tool_call("fetch", {"key": "a"})],
            [tool_call("fetch", {"key": "b"}), tool_call("other", {"key": "c"})],
        ]
    )
    agent = Agent(name="s", model=model, tools=[fetch, other], tool_use_behavior=decide)
    assert (await Runner.run(agent, "go")).final_output == ["value of b", "other c"]

    bad = Agent(
        name="s",
        model=ScriptedModel([[tool_call("fetch", {"key": "a"})]]),
        tools=[fetch],
        tool_use_behavior=lambda ctx, results: True,  # type: ignore[arg-type,return-value]
    )
    with pytest.raises(UserError, match="ToolsToFinalOutputResult"):
        await Runner.run(bad, "go")


async def test_reset_tool_choice_avoids_forced_loops() -> None:
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["done"]])
    agent = Agent(
        name="s", model=model, tools=[fetch], model_settings=ModelSettings(tool_choice="required")
    )
    await Runner.run(agent, "go")
    assert [r.model_settings.tool_choice for r in model.requests] == ["required", "auto"]
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["done"]])
    keep = agent.clone(model=model, reset_tool_choice=False)
    await Runner.run(keep, "go")
    assert [r.model_settings.tool_choice for r in model.requests] == ["required", "required"]


async def test_agent_as_tool_runs_the_agent_and_forwards_its_events() -> None:
    translator_model = ScriptedModel([["Bonjour"]])
    translator = Agent(name="translator", instructions="Translate.", model=translator_model)
    outer_model = ScriptedModel([[tool_call("translate", {"input": "Hello"})], ["It is Bonjour."]])
    outer = Agent(
        name="outer",
        model=outer_model,
        tools=[translator.as_tool("translate", "Translate to French.")],
    )
    result = Runner.run_streamed(outer, "translate hello")
    nested_agents = set()
    async for event in result.stream_events():
        if event.type == "agent_updated_stream_event":
            nested_agents.add(event.new_agent.name)
    assert nested_agents == {"outer", "translator"}
    assert result.final_output == "It is Bonjour."
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.output == "Bonjour"
    assert translator_model.requests[0].input == [{"role": "user", "content": "Hello"}]


@tool
def lookup() -> str:
    """Look the answer up."""
    return "internal"


def guard_tripping_on(word: str) -> Any:
    @output_guardrail
    def guard(ctx: Any, agent: Agent[Any], output: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=output == word)

    return guard


@pytest.mark.parametrize("guarded", [False, True])
async def test_agent_tool_with_an_empty_final_output(guarded: bool) -> None:
    # As in the SDK: an empty answer falls back to the nested run's latest text, unless output
    # guardrails checked the answer (they did not check the text before it).
    worker = Agent(
        name="worker",
        model=ScriptedModel([[tool_call("lookup", {})], [""]]),
        tools=[lookup],
        output_guardrails=[guard_tripping_on("internal")] if guarded else [],
    )
    outer_model = ScriptedModel([[tool_call("delegate", {"input": "go"})], ["done"]])
    outer = Agent(name="outer", model=outer_model, tools=[worker.as_tool("delegate", "Ask.")])
    result = await Runner.run(outer, "go")
    outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert outputs == ["" if guarded else "internal"]


class Recorder(RunHooks[Any]):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_agent_start(self, context: Any, agent: Agent) -> None:
        self.seen.append(f"agent_start:{agent.name}")

    async def on_agent_end(self, context: Any, agent: Agent, output: Any) -> None:
        self.seen.append(f"agent_end:{agent.name}:{output}")

    async def on_llm_start(self, context: Any, agent: Agent, prompt: Any, items: Any) -> None:
        self.seen.append("llm_start")

    async def on_llm_end(self, context: Any, agent: Agent, response: Any) -> None:
        self.seen.append("llm_end")

    async def on_tool_start(self, context: Any, agent: Agent, tool: Any) -> None:
        self.seen.append(f"tool_start:{tool.name}")

    async def on_tool_end(self, context: Any, agent: Agent, tool: Any, result: Any) -> None:
        self.seen.append(f"tool_end:{tool.name}:{result}")

    async def on_handoff(self, context: Any, from_agent: Agent, to_agent: Agent) -> None:
        self.seen.append(f"handoff:{from_agent.name}->{to_agent.name}")


class AgentRecorder(AgentHooks[Any]):
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.turn_inputs: list[list[Any]] = []

    async def on_start(self, context: Any, agent: Agent) -> None:
        self.seen.append("start")
        self.turn_inputs.append(list(context.turn_input))

    async def on_handoff(self, context: Any, agent: Agent, source: Agent) -> None:
        self.seen.append(f"handoff:{source.name}->{agent.name}")

    async def on_end(self, context: Any, agent: Agent, output: Any) -> None:
        self.seen.append("end")


async def test_run_and_agent_hooks() -> None:
    second_hooks = AgentRecorder()
    first_hooks = AgentRecorder()
    second = Agent(name="second", model=ScriptedModel(["bye"]), hooks=second_hooks)
    first = Agent(
        name="first",
        hooks=first_hooks,
        tools=[fetch],
        handoffs=[second],
        model=ScriptedModel(
            [[tool_call("fetch", {"key": "k"})], [tool_call("transfer_to_second")]]
        ),
    )
    hooks = Recorder()
    await Runner.run(first, "go", hooks=hooks)
    assert hooks.seen == [
        "agent_start:first",
        "llm_start",
        "llm_end",
        "tool_start:fetch",
        "tool_end:fetch:value of k",
        "llm_start",
        "llm_end",
        "handoff:first->second",
        "agent_start:second",
        "llm_start",
        "llm_end",
        "agent_end:second:bye",
    ]
    # as the SDK: the agent that hands off hears of it; the first start sees the run's input
    assert first_hooks.seen == ["start", "handoff:first->second"]
    assert first_hooks.turn_inputs == [[{"role": "user", "content": "go"}]]
    assert second_hooks.seen == ["start", "end"]


@pytest.mark.parametrize("stop_on_first_tool", [True, False])
async def test_a_resumed_run_starts_its_agent_only_with_a_new_turn(
    stop_on_first_tool: bool,
) -> None:
    @tool(needs_approval=True)
    def act() -> str:
        """Act."""
        return "acted"

    hooks = AgentRecorder()
    model = ScriptedModel([[tool_call("act")], ["done"]])
    behavior: Literal["stop_on_first_tool", "run_llm_again"] = (
        "stop_on_first_tool" if stop_on_first_tool else "run_llm_again"
    )
    agent = Agent(name="a", model=model, tools=[act], hooks=hooks, tool_use_behavior=behavior)
    paused = await Runner.run(agent, "go")
    state = paused.to_state()
    state.approve(state.get_interruptions()[0])
    result = await Runner.run(agent, state)
    # as the SDK: the approved call runs first; the start hooks run again only if the model
    # is called again
    assert result.final_output == ("acted" if stop_on_first_tool else "done")
    assert hooks.seen == (["start", "end"] if stop_on_first_tool else ["start", "start", "end"])


async def test_call_model_input_filter_edits_what_is_sent() -> None:
    def only_last(data: CallModelData) -> ModelInputData:
        return ModelInputData(
            input=data.model_data.input[-1:],
            instructions=f"{data.model_data.instructions} ({data.agent.name})",
        )

    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["done"]])
    agent = Agent(name="f", instructions="Be brief.", model=model, tools=[fetch])
    await Runner.run(agent, "go", run_config=RunConfig(call_model_input_filter=only_last))
    second = model.requests[1]
    assert second.system_instructions == "Be brief. (f)"
    assert [i["type"] for i in second.input] == ["function_call_output"]


async def test_call_model_input_filter_repeats_are_sent_once_latest_value_in_order() -> None:
    call = {"type": "function_call", "call_id": "c", "name": "fetch", "arguments": "{}"}
    old = {"type": "function_call_output", "call_id": "c", "output": "old"}
    new = {"type": "function_call_output", "call_id": "c", "output": "new"}
    thought: dict[str, Any] = {"type": "reasoning", "id": "r", "summary": ["1"]}
    later = {**thought, "summary": ["2"]}
    other = {"type": "function_call", "call_id": "d", "name": "fetch", "arguments": "{}"}

    def repeats(data: CallModelData) -> ModelInputData:
        extra = [old, thought, call, new, other, later, call]
        return ModelInputData(input=[*data.model_data.input, *extra], instructions=None)

    model = ScriptedModel([["done"]])
    await Runner.run(
        Agent(name="f", model=model), "go", run_config=RunConfig(call_model_input_filter=repeats)
    )
    sent = model.requests[0].input
    # an output keeps its last place and value; a call and a reasoning item keep their first
    # place (ahead of what needs them) with their latest value
    assert sent[1:] == [later, call, new, other]


async def test_tool_timeout_tells_the_model() -> None:
    @tool(timeout=0.05)
    async def hang() -> str:
        """Never returns."""
        await asyncio.Event().wait()
        return "never"

    model = ScriptedModel([[tool_call("hang")], ["gave up"]])
    result = await Runner.run(Agent(name="t", model=model, tools=[hang]), "go")
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.output == "Tool 'hang' did not finish within 0.05 s and was stopped."
    assert output.status == "timeout"
    with pytest.raises(UserError, match="timeout"):
        tool(timeout=-1)(lambda: None)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_sessions_prepend_history_and_save_whole_runs(kind: str, tmp_path: Any) -> None:
    session = (
        InMemorySession("s1") if kind == "memory" else SQLiteSession("s1", tmp_path / "history.db")
    )
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["first answer"], ["second answer"]])
    agent = Agent(name="mem", model=model, tools=[fetch])
    await Runner.run(agent, "first question", session=session)
    stored = await session.get_items()
    assert [i.get("type", i.get("role")) for i in stored] == [
        "user",
        "function_call",
        "function_call_output",
        "message",
    ]
    await Runner.run(agent, "second question", session=session)
    sent = model.requests[-1].input
    assert sent[0] == {"role": "user", "content": "first question"}
    assert sent[-1] == {"role": "user", "content": "second question"}
    assert len(await session.get_items()) == 6


async def test_a_failed_or_cancelled_run_saves_nothing() -> None:
    session = InMemorySession("s2")
    failing = Agent(name="f", model=ScriptedModel([RuntimeError("down")]))
    with pytest.raises(RuntimeError):
        await Runner.run(failing, "q", session=session)
    assert await session.get_items() == []
    slow_started = asyncio.Event()

    @tool
    async def slow() -> str:
        """Slow."""
        slow_started.set()
        await asyncio.Event().wait()
        return "x"

    streamed = Runner.run_streamed(
        Agent(name="c", model=ScriptedModel([[tool_call("slow")]]), tools=[slow]),
        "q",
        session=session,
    )

    async def drain() -> None:
        async for _ in streamed.stream_events():
            pass

    task = asyncio.create_task(drain())
    await asyncio.wait_for(slow_started.wait(), timeout=5)
    streamed.cancel()
    await asyncio.wait_for(task, timeout=5)
    assert await session.get_items() == []


async def test_session_input_callback_merges_history() -> None:
    session = InMemorySession("s3")
    await session.add_items([{"role": "user", "content": f"old {i}"} for i in range(5)])
    model = ScriptedModel(["ok"])
    keep_two = RunConfig(session_input_callback=lambda history, new: [*history[-2:], *new])
    await Runner.run(Agent(name="c", model=model), "new", session=session, run_config=keep_two)
    assert [i["content"] for i in model.requests[0].input] == ["old 3", "old 4", "new"]
    assert len(await session.get_items()) == 7  # the history stays; new input and answer added


async def test_previous_response_id_sends_only_new_items() -> None:
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["done"]])
    agent = Agent(name="srv", model=model, tools=[fetch])
    result = await Runner.run(agent, "go", previous_response_id="resp_earlier")
    first, second = model.requests
    assert first.previous_response_id == "resp_earlier"
    assert first.input == [{"role": "user", "content": "go"}]
    assert second.previous_response_id == result.raw_responses[0].response_id
    assert [i["type"] for i in second.input] == ["function_call_output"]


async def test_conversation_id_sends_only_new_items() -> None:
    model = ScriptedModel([[tool_call("fetch", {"key": "a"})], ["done"]])
    await Runner.run(Agent(name="srv", model=model, tools=[fetch]), "go", conversation_id="conv_1")
    assert [r.conversation_id for r in model.requests] == ["conv_1", "conv_1"]
    assert [i["type"] for i in model.requests[1].input] == ["function_call_output"]
