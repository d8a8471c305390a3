"""Class-based tools (Qwen-Agent's BaseTool): the registry, settings, results, caching."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import (
    TOOL_REGISTRY,
    Agent,
    BaseTool,
    ContentItem,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    ToolCache,
    TracingProcessor,
    UserError,
    describe_call,
    register_tool,
    set_trace_processors,
)
from jupyter_agents.notebook.view.display_text import output_text
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_bodies

# Agent(tools=...) takes registered tools by name or as a dict of settings, but its annotation
# is list[Tool]: those lines carry `type: ignore[list-item]` (see the package's Agent.tools).

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.fixture(autouse=True)
def registry() -> Iterator[dict[str, type[BaseTool]]]:
    """The registry as it was before the test, restored after it."""
    saved = dict(TOOL_REGISTRY)
    yield TOOL_REGISTRY
    TOOL_REGISTRY.clear()
    TOOL_REGISTRY.update(saved)


def make_greeter() -> type[BaseTool]:
    @register_tool("greet")
    class Greeter(BaseTool):
        description = "Greet someone."
        parameters = [{"name": "who", "type": "string", "description": "Whom", "required": True}]
        defaults = {"greeting": "Hello"}
        calls: list[dict[str, Any]] = []

        def call(self, params: dict[str, Any], **kwargs: Any) -> Any:
            type(self).calls.append(params)
            return {"text": f"{self.setting('greeting')}, {params['who']}!", "by": self.name}

    return Greeter


async def run_with(tools: list[Any], *calls: Any) -> ScriptedModel:
    model = ScriptedModel([[c] for c in calls] + [[text("done")]])
    await Runner.run(Agent(name="a", model=model, tools=tools), "go")
    return model


async def test_a_registered_tool_by_name_with_its_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_greeter()
    model = await run_with(
        [{"name": "greet", "greeting": "Good day"}], tool_call("greet", {"who": "Ada"})
    )
    answer = model.requests[1].input[-1]
    assert json.loads(answer["output"]) == {"text": "Good day, Ada!", "by": "greet"}
    offered = model.requests[0].tools[0]
    assert isinstance(offered, BaseTool)
    assert offered.params_json_schema == {
        "type": "object",
        "properties": {"who": {"type": "string", "description": "Whom"}},
        "required": ["who"],
    }
    monkeypatch.setenv("JUPYTER_AGENTS_GREET_GREETING", "Hi")  # the environment, then defaults
    model = await run_with(["greet"], tool_call("greet", {"who": "Bo"}))
    assert json.loads(model.requests[1].input[-1]["output"])["text"] == "Hi, Bo!"


async def test_bad_arguments_are_told_to_the_model_and_nothing_runs() -> None:
    greeter = make_greeter()
    greeter.calls.clear()  # type: ignore[attr-defined]
    model = await run_with(["greet"], tool_call("greet", {"whom": "Ada"}))
    assert "who" in model.requests[1].input[-1]["output"]
    assert greeter.calls == []  # type: ignore[attr-defined]


def test_names_conflicts_and_unknown_names() -> None:
    make_greeter()
    with pytest.raises(UserError, match=r"'greet' is already registered .*allow_overwrite=True"):
        make_greeter()

    @register_tool("greet", allow_overwrite=True)
    class Other(BaseTool):
        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            return "other"

    assert TOOL_REGISTRY["greet"] is Other
    with pytest.raises(
        UserError, match=r"No tool named 'nope' is registered \(registered: .*greet"
    ):
        Agent(name="a", tools=["nope"])  # type: ignore[list-item]
    with pytest.raises(UserError, match="needs a 'name'"):
        Agent(name="a", tools=[{"greeting": "x"}])  # type: ignore[list-item]
    with pytest.raises(UserError, match="decorates BaseTool subclasses"):
        register_tool("f")(len)  # type: ignore[type-var]


def test_heavy_tools_are_shared_per_settings() -> None:
    @register_tool("heavy")
    class Heavy(BaseTool):
        reuse_instances = True

    one = Agent(name="a", tools=["heavy"]).tools[0]  # type: ignore[list-item]
    assert Agent(name="b", tools=[{"name": "heavy"}]).tools[0] is one  # type: ignore[list-item]
    assert Agent(name="c", tools=[{"name": "heavy", "size": 2}]).tools[0] is not one  # type: ignore[list-item]
    assert Agent(name="d", tools=[Heavy()]).tools[0] is not one  # an instance is kept as it is


async def test_content_items_become_text_images_and_files(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(PNG)
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")

    @register_tool("report")
    class Report(BaseTool):
        async def call(self, params: dict[str, Any], **kwargs: Any) -> Any:  # async works too
            assert kwargs["ctx"].tool_name == "report"
            return [
                ContentItem(text="the plot:"),
                ContentItem(image=str(tmp_path / "plot.png")),
                ContentItem(file=str(tmp_path / "data.csv")),
            ]

    model = await run_with(["report"], tool_call("report", {}))
    parts = model.requests[1].input[-1]["output"]
    assert [p["type"] for p in parts] == ["input_text", "input_image", "input_file"]
    assert parts[1]["image_url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert parts[2]["filename"] == "data.csv"
    assert output_text(parts) == "the plot:\n[image]\n[file: data.csv]"  # what a card shows
    with pytest.raises(UserError, match="exactly one of"):
        ContentItem(text="a", image="b")


class Spans(TracingProcessor):
    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span.export())


async def test_a_cache_serves_repeated_calls_until_they_expire() -> None:
    now = [0.0]
    cache = ToolCache(ttl=60, max_size=2, clock=lambda: now[0])

    @register_tool("square")
    class Square(BaseTool):
        parameters = {"type": "object", "properties": {"n": {"type": "integer"}, "m": {}}}
        runs = 0

        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            type(self).runs += 1
            return str(params["n"] ** 2)

    tool = Square(cache=cache)
    spans = Spans()
    set_trace_processors([spans])
    try:
        model = ScriptedModel(
            [
                [tool_call("square", {"n": 3, "m": 1}, "c1")],
                [tool_call("square", {"m": 1, "n": 3}, "c2")],  # the same call, keys reordered
                ["done"],
            ]
        )
        result = await Runner.run(Agent(name="a", model=model, tools=[tool]), "go")
    finally:
        set_trace_processors([])
    assert Square.runs == 1 and cache.hits == 1 and cache.misses == 1
    assert model.requests[2].input[-1]["output"] == "9"
    hits = [s for s in spans.spans if s["span_data"].get("name") == "tool cache hit"]
    assert [h["span_data"]["data"]["tool"] for h in hits] == ["square"]
    calls = [i for i in result.new_items if i.type == "tool_call_item"]
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert describe_call(calls[0], outputs[0]).badge is None
    assert describe_call(calls[1], outputs[1]).badge == "cached"
    now[0] = 61.0  # expired
    model = await run_with([tool], tool_call("square", {"n": 3, "m": 1}))
    assert Square.runs == 2
    for n in (4, 5, 6):  # max_size 2: the oldest goes
        cache.put(ToolCache.key("square", {"n": n}), str(n))
    assert len(cache) == 2 and cache.get(ToolCache.key("square", {"n": 4})) is None
    with pytest.raises(UserError, match="max_size"):
        ToolCache(max_size=0)


@pytest.mark.http
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_over_http_in_both_wire_formats(openai_server: FakeOpenAIServer, kind: str) -> None:
    make_greeter()
    openai_server.enqueue(
        Reply([ReplyToolCall("greet", {"who": "Ada"}, call_id="g1")]), Reply([ReplyText("Done.")])
    )
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    agent = Agent(name="a", model=cls("gpt-test", openai_client=client), tools=["greet"])  # type: ignore[list-item]
    result = await Runner.run(agent, "Greet Ada.")
    assert result.final_output == "Done."
    first, second = json_bodies(openai_server.model_requests)
    offered = first["tools"][0] if kind == "responses" else first["tools"][0]["function"]
    assert offered["name"] == "greet" and offered["parameters"]["required"] == ["who"]
    assert "Hello, Ada!" in json.dumps(second)


def make_failing(message: str = "disk on fire") -> type[BaseTool]:
    @register_tool("flaky")
    class Flaky(BaseTool):
        description = "Fails."

        def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            raise ValueError(message)

    return Flaky


async def test_an_exception_in_a_class_tool_is_told_to_the_model_in_one_line() -> None:
    make_failing("disk on fire\n  at line 3 of the config")
    model = ScriptedModel([[tool_call("flaky", {})], [text("I will stop.")]])
    result = await Runner.run(Agent(name="a", model=model, tools=["flaky"]), "go")  # type: ignore[list-item]
    assert result.final_output == "I will stop."  # the run went on
    told = model.requests[1].input[-1]["output"]
    assert told == ("Tool 'flaky' failed: ValueError: disk on fire at line 3 of the config")
    assert "Traceback" not in told and "jupyter_agents" not in told
    output = next(i for i in result.new_items if i.type == "tool_call_output_item")
    assert output.status == "error" and output.error is not None
    assert output.error.type == "ValueError"
    assert output.error.traceback is not None and "test_tool_registry.py" in output.error.traceback


async def test_an_async_class_tool_that_raises_is_told_too() -> None:
    @register_tool("async_flaky")
    class AsyncFlaky(BaseTool):
        async def call(self, params: dict[str, Any], **kwargs: Any) -> str:
            raise RuntimeError("no connection")

    model = await run_with(["async_flaky"], tool_call("async_flaky", {}))
    told = model.requests[1].input[-1]["output"]
    assert told == "Tool 'async_flaky' failed: RuntimeError: no connection"


async def test_a_class_tool_error_function_can_be_changed_or_switched_off() -> None:
    cls = make_failing()

    def mine(ctx: Any, error: Exception) -> str:
        return f"{ctx.tool_name} says: {error}"

    model = await run_with([cls(failure_error_function=mine)], tool_call("flaky", {}))
    assert model.requests[1].input[-1]["output"] == "flaky says: disk on fire"

    class Quiet(cls):  # type: ignore[valid-type, misc]
        failure_error_function = staticmethod(mine)

    model = await run_with([Quiet()], tool_call("flaky", {}))
    assert model.requests[1].input[-1]["output"] == "flaky says: disk on fire"

    with pytest.raises(ValueError, match="disk on fire"):
        await run_with([cls(failure_error_function=None)], tool_call("flaky", {}))
    with pytest.raises(ValueError, match="disk on fire"):
        await run_with([cls({"failure_error_function": None})], tool_call("flaky", {}))


async def test_a_long_error_is_cut_for_the_model() -> None:
    make_failing("x" * 50_000)
    model = await run_with(["flaky"], tool_call("flaky", {}))
    told = model.requests[1].input[-1]["output"]
    assert told.startswith("Tool 'flaky' failed: ValueError: xxx") and len(told) < 2_100


async def test_the_code_interpreter_failing_to_start_is_told_to_the_model(tmp_path: Path) -> None:
    # Not the code's error (that is its output): the tool's own, e.g. a kernel that cannot start.
    spec = {
        "name": "code_interpreter",
        "kernel_name": "no-such-kernel",
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "workspace": str(tmp_path),
    }
    model = ScriptedModel([[tool_call("code_interpreter", {"code": "1 + 1"})], [text("ok")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[spec]), "go")  # type: ignore[list-item]
    assert result.final_output == "ok"
    told = model.requests[1].input[-1]["output"]
    assert told.startswith("Tool 'code_interpreter' failed: ") and "no-such-kernel" in told
    assert "\n" not in told
