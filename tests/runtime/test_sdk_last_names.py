"""The SDK's names programs reach for last, with their behaviour: AgentBase, the shell's
SDK-shaped executors, outcomes and local skills, the hosted tool-search declarations, the
tracing exporter interface with its batch processor, and the default model's GPT-5 checks."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.types.shared import Reasoning

from jupyter_agents import (
    Agent,
    AgentBase,
    BatchTraceProcessor,
    ProgrammaticToolCallingTool,
    Runner,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    ShellToolLocalSkill,
    Tool,
    ToolSearchTool,
    Trace,
    TracingExporter,
    UserError,
    set_trace_processors,
    tool,
    tool_namespace,
    trace,
)
from jupyter_agents.models import get_default_model_settings, is_gpt_5_default
from jupyter_agents.runtime.models.openai_chat import OpenAIChatCompletionsModel
from jupyter_agents.runtime.models.openai_responses import OpenAIResponsesModel
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyItem, ReplyText
from jupyter_agents.tracing.processor_interface import TracingExporter as SDKPathExporter

from ..recorded import json_bodies, json_body

SKILL: ShellToolLocalSkill = {
    "name": "csv-workbench",
    "description": "Summarise CSV files.",
    "path": "/opt/skills/csv-workbench",
}


@tool
def ping() -> str:
    """Ping."""
    return "pong"


async def test_an_agent_is_an_agent_base_and_the_base_lists_its_tools() -> None:
    agent = Agent(name="a", tools=[ping])
    assert isinstance(agent, AgentBase) and not isinstance("a", AgentBase)
    assert [t.name for t in await AgentBase.get_all_tools(agent, None)] == ["ping"]  # type: ignore[arg-type]
    assert agent.tool_named("ping") is ping


class SDKExecutor:
    """An executor written for the SDK: it reads ``request.data.action`` and answers with
    outcomes."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str]]] = []

    def __call__(self, request: ShellCommandRequest) -> ShellResult:
        self.seen.append((request.data.call_id, list(request.data.action.commands)))
        return ShellResult(
            output=[
                ShellCommandOutput(stdout="a" * 50, outcome=ShellCallOutcome("exit", 0)),
                ShellCommandOutput(stderr="slow", outcome=ShellCallOutcome(type="timeout")),
            ],
            max_output_length=10,
        )


def shell_client(server: FakeOpenAIServer, kind: str) -> Any:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    return cls("gpt-test", openai_client=client)


@pytest.mark.http
async def test_an_sdk_shaped_executor_and_its_outcomes_reach_the_model(
    openai_server: FakeOpenAIServer,
) -> None:
    call = {"type": "shell_call", "call_id": "s1", "status": "completed"}
    openai_server.enqueue(
        Reply([ReplyItem({**call, "action": {"commands": ["make", "sleep 99"]}})]),
        Reply([ReplyText("done")]),
    )
    executor = SDKExecutor()
    tool_ = ShellTool(executor=executor, approval_policy="never", environment={"skills": [SKILL]})
    agent = Agent(name="sh", model=shell_client(openai_server, "responses"), tools=[tool_])
    await Runner.run(agent, "build")
    assert executor.seen == [("s1", ["make", "sleep 99"])]
    first, second = json_bodies(openai_server.model_requests)
    environment = {"type": "local", "skills": [SKILL]}
    assert first["tools"] == [{"type": "shell", "environment": environment}]
    (output,) = [i for i in second["input"] if i.get("type") == "shell_call_output"]
    ran, slow = output["output"]
    assert ran["outcome"] == {"type": "exit", "exit_code": 0}
    assert slow["outcome"] == {"type": "timeout"}
    assert len(ran["stdout"]) < 50  # the executor's own max_output_length applied


def test_outputs_read_either_way() -> None:
    assert ShellCommandOutput("x", "", 2, "ls").outcome == ShellCallOutcome("exit", 2)
    timed_out = ShellCommandOutput("", "", None)
    assert timed_out.outcome == ShellCallOutcome("timeout") and timed_out.status == "timeout"
    assert ShellCommandOutput(outcome=ShellCallOutcome("exit")).exit_code == 0


def test_the_function_form_lists_the_skills_and_hosted_environments_are_refused() -> None:
    from jupyter_agents.runtime.tools.kinds import kind_for_tool

    shell = ShellTool(executor=SDKExecutor(), environment={"type": "local", "skills": [SKILL]})
    kind = kind_for_tool(shell)
    assert kind is not None
    chat_param = kind.chat_param(shell)
    assert chat_param is not None
    description = chat_param["function"]["description"]
    assert "csv-workbench (/opt/skills/csv-workbench): Summarise CSV files." in description
    with pytest.raises(UserError, match="runs the shell at the provider"):
        ShellTool(executor=SDKExecutor(), environment={"type": "container_auto"})
    with pytest.raises(UserError, match="each skill must be a dict"):
        ShellTool(environment={"type": "local", "skills": [{"name": "x"}]})


@pytest.mark.http
async def test_tool_search_and_programmatic_calling_are_declared_to_the_provider(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(Reply([ReplyText("ok")]))
    search = ToolSearchTool(description="Find billing tools.", execution="server")
    # Tool search needs something to search: a namespace (the SDK's rule).
    billing = tool_namespace(name="billing", description="Billing tools.", tools=[ping])
    tools: list[Tool] = [search, ProgrammaticToolCallingTool(), *billing]
    agent = Agent(name="a", model=shell_client(openai_server, "responses"), tools=tools)
    await Runner.run(agent, "go")
    sent = json_body(openai_server.model_requests[0])["tools"]
    declared = {"type": "tool_search", "description": "Find billing tools.", "execution": "server"}
    assert declared in sent
    assert {"type": "programmatic_tool_calling"} in sent
    assert [t.name for t in tools[:2]] == ["tool_search", "programmatic_tool_calling"]


class Collect(TracingExporter):
    def __init__(self, fail: bool = False) -> None:
        self.items: list[Any] = []
        self.fail = fail
        self.exported = threading.Event()

    def export(self, items: list[Any]) -> None:
        self.items.extend(items)
        self.exported.set()
        if self.fail:
            raise RuntimeError("the backend is down")


async def test_a_batch_processor_hands_the_runs_spans_to_an_exporter() -> None:
    assert SDKPathExporter is TracingExporter
    good, bad = Collect(), Collect(fail=True)
    processors = [BatchTraceProcessor(good, schedule_delay=0.05), BatchTraceProcessor(bad)]
    set_trace_processors(processors)
    try:
        model = ScriptedModel([[tool_call("ping")], [text("pong it is")]])
        with trace("batch export"):
            await Runner.run(Agent(name="a", model=model, tools=[ping]), "ping")
        assert good.exported.wait(10)  # the background thread exported without a flush
        for processor in processors:
            processor.force_flush()  # what is left; the failing exporter's batch is logged
    finally:
        set_trace_processors([])
    kinds = ["Trace" if isinstance(i, Trace) else "Span" for i in good.items]
    assert kinds[0] == "Trace" and kinds.count("Trace") == 1  # queued when it starts
    spans = [i.span_data.type for i in good.items if not isinstance(i, Trace)]
    assert {"agent", "generation", "function"} <= set(spans)
    assert len(bad.items) == len(good.items)


def test_a_full_queue_drops_and_counts_instead_of_blocking() -> None:
    gate = threading.Event()

    class Stuck(Collect):
        def export(self, items: list[Any]) -> None:
            super().export(items)
            assert gate.wait(10)  # the exporting thread is stuck until released

    exporter = Stuck()
    processor = BatchTraceProcessor(
        exporter, max_queue_size=2, schedule_delay=60, export_trigger_ratio=1.0
    )
    set_trace_processors([processor])
    try:
        for n in range(2):
            with trace(f"t{n}"):
                pass  # the queue is full: the thread takes both and gets stuck exporting
        assert exporter.exported.wait(10)
        for n in range(2, 7):
            with trace(f"t{n}"):
                pass  # two fit in the queue again, three are dropped; nothing blocks
    finally:
        set_trace_processors([])
        gate.set()
    assert processor.dropped == 3
    processor.shutdown()
    assert [i.name for i in exporter.items] == ["t0", "t1", "t2", "t3"]


def test_the_default_model_and_gpt_5(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_DEFAULT_MODEL", raising=False)
    assert is_gpt_5_default() is False  # gpt-4.1
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "GPT-5.4-mini")
    assert is_gpt_5_default() is True
    assert get_default_model_settings().reasoning == Reasoning(effort="none")
    assert get_default_model_settings("gpt-5").reasoning == Reasoning(effort="low")
    assert get_default_model_settings("gpt-5.2-pro").reasoning == Reasoning(effort="medium")
    assert get_default_model_settings("gpt-5-chat-latest").reasoning is None
    assert get_default_model_settings("gpt-4o").verbosity is None


async def test_tool_hooks_get_the_calls_tool_context() -> None:
    from jupyter_agents import RunHooks, ToolContext

    seen: list[tuple[str, str, str, str]] = []

    class Hooks(RunHooks[Any]):
        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            assert isinstance(context, ToolContext)
            seen.append(("start", context.tool_name, context.tool_call_id, context.tool_arguments))

        async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
            seen.append(("end", context.tool_name, context.tool_call_id, str(result)))

    model = ScriptedModel([[tool_call("ping", {}, call_id="p1")], [text("ok")]])
    await Runner.run(Agent(name="a", model=model, tools=[ping]), "go", hooks=Hooks())
    assert seen == [("start", "ping", "p1", "{}"), ("end", "ping", "p1", "pong")]
