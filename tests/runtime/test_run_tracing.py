"""Span trees of real runs: agents, model calls, tools, guardrails and handoffs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    GuardrailFunctionOutput,
    ModelBehaviorError,
    ModelRetryPolicy,
    ModelSettings,
    RunConfig,
    Runner,
    RunState,
    input_guardrail,
    tool,
)
from jupyter_agents.runtime.tracing import (
    TracingProcessor,
    custom_span,
    set_trace_processors,
    trace,
)
from jupyter_agents.testing import ScriptedModel, assistant_message, text, tool_call


class Collector(TracingProcessor):
    def __init__(self) -> None:
        self.traces: list[dict[str, Any]] = []
        self.spans: list[dict[str, Any]] = []

    def on_trace_end(self, trace: Any) -> None:
        self.traces.append(trace.export())

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span.export())


@pytest.fixture
def collector() -> Iterator[Collector]:
    collected = Collector()
    set_trace_processors([collected])
    yield collected
    set_trace_processors([])


@tool
def lookup(key: str) -> str:
    """Look up."""
    with custom_span("inside the tool", {"key": key}):
        return f"value {key}"


@input_guardrail
def ok(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(None, False)


def make_agents() -> Agent:
    second = Agent(name="second", model=ScriptedModel([[text("bye")]]))
    return Agent(
        name="first",
        model=ScriptedModel(
            [[tool_call("lookup", {"key": "k"})], [tool_call("transfer_to_second")]]
        ),
        tools=[lookup],
        handoffs=[second],
        input_guardrails=[ok],
    )


def tree(spans: list[dict[str, Any]]) -> dict[str | None, list[str]]:
    by_id = {s["id"]: s for s in spans}
    children: dict[str | None, list[str]] = {}
    for span in sorted(spans, key=lambda s: s["started_at"]):
        parent = span["parent_id"]
        label = span["span_data"]["type"]
        name = span["span_data"].get("name")
        children.setdefault(by_id[parent]["span_data"].get("name") if parent else None, []).append(
            f"{label}:{name}" if name else label
        )
    return children


async def test_span_tree_for_a_run_with_tools_and_a_handoff(collector: Collector) -> None:
    """As in the SDK: a task span for the run, agent spans under it, a turn span per turn
    under its agent, and the turn's model call, tool calls and handoff under the turn."""
    result = await Runner.run(make_agents(), "go", run_config=RunConfig(workflow_name="demo"))
    assert result.final_output == "bye"
    (trace_data,) = collector.traces
    assert trace_data["workflow_name"] == "demo"
    assert {s["trace_id"] for s in collector.spans} == {trace_data["id"]}
    children = tree(collector.spans)
    assert children[None] == ["custom:task"]
    assert children["task"] == ["agent:first", "agent:second"]
    # the guardrail runs alongside the first model call, under the agent
    assert sorted(children["first"]) == ["custom:turn", "custom:turn", "guardrail:ok"]
    assert children["second"] == ["custom:turn"]
    assert sorted(children["turn"]) == sorted(
        ["generation", "function:lookup", "generation", "handoff", "generation"]
    )
    assert children["lookup"] == ["custom:inside the tool"]
    generation = next(s for s in collector.spans if s["span_data"]["type"] == "generation")
    assert generation["span_data"]["input"] == [{"role": "user", "content": "go"}]
    assert generation["span_data"]["usage"]["input_tokens"] > 0
    for span in collector.spans:
        assert span["started_at"] <= span["ended_at"]


async def test_task_and_turn_spans_report_their_usage(collector: Collector) -> None:
    await Runner.run(make_agents(), "go")
    task = next(s for s in collector.spans if s["span_data"].get("name") == "task")
    turns = [s for s in collector.spans if s["span_data"].get("name") == "turn"]
    generations = [s for s in collector.spans if s["span_data"]["type"] == "generation"]
    assert [t["span_data"]["data"]["turn"] for t in turns] == [1, 2, 3]
    assert [t["span_data"]["data"]["agent_name"] for t in turns] == ["first", "first", "second"]
    used = [g["span_data"]["usage"]["input_tokens"] for g in generations]
    assert [t["span_data"]["data"]["usage"]["input_tokens"] for t in turns] == used
    usage = task["span_data"]["data"]["usage"]
    assert usage["requests"] == 3 and usage["input_tokens"] == sum(used)
    assert "metadata" not in task  # the scripted model has no price: no cost to report
    (trace_data,) = collector.traces
    assert trace_data["metadata"] is None  # the usage is the task span's, not the trace's


async def test_task_and_turn_spans_can_be_turned_off(collector: Collector) -> None:
    config = RunConfig(tracing={"include_task_and_turn_spans": False})
    await Runner.run(make_agents(), "go", run_config=config)
    children = tree(collector.spans)
    assert children[None] == ["agent:first", "agent:second"]
    assert sorted(children["first"]) == sorted(
        ["guardrail:ok", "generation", "function:lookup", "generation", "handoff"]
    )
    assert children["second"] == ["generation"]


async def test_a_model_that_traces_its_own_calls_gets_no_generation_span_from_the_run(
    collector: Collector,
) -> None:
    """A ScriptedModel played the SDK's way records its own spans, as the SDK's does: one
    under the turn with ``emit_traces=True``, none without."""
    for emit, expected in ((False, 0), (True, 1)):
        collector.spans.clear()
        model = ScriptedModel(steps=[[assistant_message("hi")]], emit_traces=emit)
        await Runner.run(Agent(name="a", model=model), "go")
        generations = [s for s in collector.spans if s["span_data"]["type"] == "generation"]
        assert len(generations) == expected
        turn = next(s for s in collector.spans if s["span_data"].get("name") == "turn")
        assert all(g["parent_id"] == turn["id"] for g in generations)


async def test_sensitive_data_is_left_out_when_asked(collector: Collector) -> None:
    await Runner.run(make_agents(), "go", run_config=RunConfig(trace_include_sensitive_data=False))
    for span in collector.spans:
        assert "input" not in span["span_data"] and "output" not in span["span_data"]


async def test_tracing_disabled_records_nothing(collector: Collector) -> None:
    await Runner.run(make_agents(), "go", run_config=RunConfig(tracing_disabled=True))
    assert collector.traces == [] and collector.spans == []


async def test_errors_are_recorded_on_the_agent_span(collector: Collector) -> None:
    agent = Agent(name="broken", model=ScriptedModel([RuntimeError("model down")]))
    with pytest.raises(RuntimeError):
        await Runner.run(agent, "go")
    agent_span = next(s for s in collector.spans if s["span_data"]["type"] == "agent")
    assert agent_span["error"] == {"message": "Error in agent run", "data": {"error": "model down"}}


@pytest.mark.parametrize("sensitive", [True, False])
async def test_a_failing_input_filter_is_recorded_on_the_turn_span(
    collector: Collector, sensitive: bool
) -> None:
    """The filter's own error ends the run as it is; the turn's span says where, its text only
    with sensitive data (as in the SDK)."""

    def broken(_data: Any) -> Any:
        raise ValueError("secret in the filter")

    config = RunConfig(call_model_input_filter=broken, trace_include_sensitive_data=sensitive)
    with pytest.raises(ValueError, match="secret in the filter"):
        await Runner.run(Agent(name="a", model=ScriptedModel([["x"]])), "go", run_config=config)
    (turn,) = [s for s in collector.spans if s["span_data"].get("name") == "turn"]
    detail = "secret in the filter" if sensitive else "Error details are redacted."
    assert turn["error"] == {
        "message": "Error in call_model_input_filter",
        "data": {"error": detail},
    }


async def test_a_run_inside_a_user_trace_joins_it(collector: Collector) -> None:
    with trace("my job") as outer:
        await Runner.run(make_agents(), "go")
        await Runner.run(make_agents(), "again")
    (trace_data,) = collector.traces
    assert trace_data["id"] == outer.trace_id and trace_data["workflow_name"] == "my job"
    agents = [s for s in collector.spans if s["span_data"]["type"] == "agent"]
    assert len(agents) == 4


@pytest.mark.parametrize("sensitive", [True, False])
async def test_request_metadata_is_in_the_generation_span_only_with_sensitive_data(
    collector: Collector, sensitive: bool
) -> None:
    settings = ModelSettings(temperature=0.25, metadata={"label": "private-request-label"})
    agent = Agent(name="a", model=ScriptedModel([[text("ok")]]), model_settings=settings)
    config = RunConfig(trace_include_sensitive_data=sensitive)
    await Runner.run(agent, "go", run_config=config)
    generation = next(s for s in collector.spans if s["span_data"]["type"] == "generation")
    model_config = generation["span_data"]["model_config"]
    assert model_config["temperature"] == 0.25
    assert ("metadata" in model_config) is sensitive
    assert ("private-request-label" in json.dumps(collector.spans)) is sensitive


async def test_a_call_answered_badly_keeps_its_request_on_the_span(collector: Collector) -> None:
    """A call that failed after the server answered (a ModelBehaviorError) counts one request
    with no tokens on its generation span, as in the SDK; other failures leave usage empty."""
    once = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    bad = Agent(name="a", model=ScriptedModel([ModelBehaviorError("stream cut")]))
    with pytest.raises(ModelBehaviorError):
        await Runner.run(bad, "go", run_config=once)
    generation = next(s for s in collector.spans if s["span_data"]["type"] == "generation")
    assert generation["span_data"]["usage"] == {
        "requests": 1,
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
    }
    collector.spans.clear()
    down = Agent(name="a", model=ScriptedModel([RuntimeError("model down")]))
    with pytest.raises(RuntimeError):
        await Runner.run(down, "go", run_config=once)
    generation = next(s for s in collector.spans if s["span_data"]["type"] == "generation")
    assert generation["span_data"]["usage"] is None


class Events(Collector):
    def __init__(self) -> None:
        super().__init__()
        self.started: list[str] = []

    def on_trace_start(self, trace: Any) -> None:
        self.started.append(trace.trace_id)


@tool(needs_approval=True)
def guarded() -> str:
    """Needs a yes."""
    return "done"


async def _paused_and_resumed(
    first: RunConfig, then: RunConfig, through: Callable[[str], str] | None = None
) -> None:
    """Pause on a call, approve it and resume; ``through`` edits the saved text between
    (None: the live state, never written)."""
    model = ScriptedModel([[tool_call("guarded")], ["finished"]])
    agent = Agent(name="a", model=model, tools=[guarded])
    paused = await Runner.run(agent, "go", run_config=first)
    state = paused.to_state()
    if through is not None:
        state = RunState.from_string(agent, through(state.to_string()))
    state.approve(state.get_interruptions()[0])
    result = await Runner.run(agent, state, run_config=then)
    assert result.final_output == "finished"


async def test_a_resumed_run_continues_its_trace() -> None:
    """As in the SDK: the same trace id, and processors are told of it once."""
    events = Events()
    set_trace_processors([events])
    try:
        await _paused_and_resumed(RunConfig(), RunConfig())
    finally:
        set_trace_processors([])
    (trace_data,) = events.traces
    assert events.started == [trace_data["id"]]
    assert {s["trace_id"] for s in events.spans} == {trace_data["id"]}
    assert [s["span_data"]["type"] for s in events.spans].count("function") == 1


async def test_a_resumed_run_with_other_trace_settings_starts_a_trace() -> None:
    """A workflow name of its own: a second trace (with the paused run's id, as in the SDK)."""
    events = Events()
    set_trace_processors([events])
    try:
        await _paused_and_resumed(
            RunConfig(workflow_name="first", trace_id="trace_" + "a" * 32),
            RunConfig(workflow_name="second"),
        )
    finally:
        set_trace_processors([])
    assert [t["workflow_name"] for t in events.traces] == ["first", "second"]
    assert events.started == ["trace_" + "a" * 32] * 2


async def test_a_run_resumed_from_its_saved_text_continues_its_trace() -> None:
    """The saved text carries the trace (the key's fingerprint, never the key): resumed in this
    process with the same key, the run continues it, as in the SDK."""
    events = Events()
    saved: list[str] = []

    def keep(text: str) -> str:
        saved.append(text)
        return text

    keyed = RunConfig(tracing={"api_key": "trace-key-123"})
    set_trace_processors([events])
    try:
        await _paused_and_resumed(keyed, keyed, keep)
    finally:
        set_trace_processors([])
    (trace_data,) = events.traces
    assert events.started == [trace_data["id"]]
    assert {s["trace_id"] for s in events.spans} == {trace_data["id"]}
    assert json.loads(saved[0])["trace"]["id"] == trace_data["id"]
    assert "trace-key-123" not in saved[0] and "tracing_api_key_hash" in saved[0]


async def test_a_trace_this_process_did_not_start_decides_nothing() -> None:
    """A saved state from elsewhere names a trace: the resumed run starts its own trace, with
    a fresh id and its own settings, not the file's."""
    events = Events()
    foreign = "trace_" + "f" * 32

    def from_elsewhere(text: str) -> str:
        document = json.loads(text)
        document["trace"] = {"object": "trace", "id": foreign, "workflow_name": "theirs"}
        return json.dumps(document)

    set_trace_processors([events])
    try:
        await _paused_and_resumed(RunConfig(), RunConfig(workflow_name="mine"), from_elsewhere)
    finally:
        set_trace_processors([])
    assert foreign not in events.started and len(events.started) == 2
    assert [t["workflow_name"] for t in events.traces] == ["Agent workflow", "mine"]
