"""Span trees of real runs: agents, model calls, tools, guardrails and handoffs."""

from __future__ import annotations

import json
from collections.abc import Iterator
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
    input_guardrail,
    tool,
)
from jupyter_agents.runtime.tracing import (
    TracingProcessor,
    custom_span,
    set_trace_processors,
    trace,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call


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
    result = await Runner.run(make_agents(), "go", run_config=RunConfig(workflow_name="demo"))
    assert result.final_output == "bye"
    (trace_data,) = collector.traces
    assert trace_data["workflow_name"] == "demo"
    assert {s["trace_id"] for s in collector.spans} == {trace_data["id"]}
    children = tree(collector.spans)
    assert children[None] == ["agent:first", "agent:second"]
    assert sorted(children["first"]) == sorted(
        [  # the guardrail runs alongside the model
            "guardrail:ok",
            "generation",
            "function:lookup",
            "generation",
            "handoff",
        ]
    )
    assert children["lookup"] == ["custom:inside the tool"]
    assert children["second"] == ["generation"]
    generation = next(s for s in collector.spans if s["span_data"]["type"] == "generation")
    assert generation["span_data"]["input"] == [{"role": "user", "content": "go"}]
    assert generation["span_data"]["usage"]["input_tokens"] > 0
    for span in collector.spans:
        assert span["started_at"] <= span["ended_at"]


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
    assert "model down" in agent_span["error"]["message"]


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
