"""More of the OpenAI Agents SDK's names and keyword arguments, each with its behaviour."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import openai
import pydantic
import pytest
from openai import omit

from jupyter_agents import (
    Agent,
    AgentHookContext,
    AgentHooks,
    AgentOutputSchema,
    AgentOutputSchemaBase,
    FunctionTool,
    FunctionToolResult,
    HandoffInputData,
    HandoffInputFilter,
    ModelBehaviorError,
    ModelSettings,
    ModelTracing,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunContextWrapper,
    RunHooks,
    Runner,
    Span,
    ToolCallOutputItem,
    ToolOutputImageDict,
    ToolOutputTextDict,
    ToolsToFinalOutputFunction,
    ToolsToFinalOutputResult,
    Trace,
    TracingProcessor,
    UserError,
    custom_span,
    enable_verbose_stdout_logging,
    function_span,
    handoff,
    items,
    set_trace_processors,
    tool,
    trace,
)
from jupyter_agents.extensions import handoff_filters
from jupyter_agents.extensions.handoff_prompt import RECOMMENDED_PROMPT_PREFIX
from jupyter_agents.models.chatcmpl_converter import Converter
from jupyter_agents.runtime import tracing
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer
from jupyter_agents.tool_context import ToolContext

from ..recorded import json_body, scripted_requests

IMAGE = "data:image/png;base64,iVBORw0KGgo="


# --- structured output: AgentOutputSchemaBase ---------------------------------------------


class ShoutSchema(AgentOutputSchemaBase):
    """A schema of one's own: the model answers {"word": ...}, the final output is shouted."""

    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return "shout"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"word": {"type": "string"}}}

    def is_strict_json_schema(self) -> bool:
        return False

    def validate_json(self, json_str: str) -> Any:
        word = json.loads(json_str).get("word")
        if not isinstance(word, str):
            raise ModelBehaviorError("no word in the answer")
        return word.upper() + "!"


async def test_a_custom_output_schema_validates_the_final_answer() -> None:
    schema = ShoutSchema()
    model = ScriptedModel([[text('{"word": "hello"}')]])
    result = await Runner.run(Agent(name="s", model=model, output_type=schema), "go")
    assert result.final_output == "HELLO!"
    assert model.requests[0].output_schema is schema
    bad = ScriptedModel([[text('{"other": 1}')]])
    with pytest.raises(ModelBehaviorError, match="no word"):
        await Runner.run(Agent(name="s", model=bad, output_type=schema), "go")


@pytest.mark.http
async def test_a_custom_output_schema_reaches_the_wire(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue('{"word": "hi"}')
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    model = OpenAIResponsesModel("gpt-test", openai_client=client)
    result = await Runner.run(Agent(name="s", model=model, output_type=ShoutSchema()), "go")
    assert result.final_output == "HI!"
    fmt = json_body(openai_server.model_requests[0])["text"]["format"]
    assert (fmt["name"], fmt["strict"]) == ("final_output", False)  # the SDK's name
    assert fmt["schema"] == ShoutSchema().json_schema()


@pytest.mark.http
async def test_the_responses_model_sends_a_stored_prompt(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue("hi")
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    model = OpenAIResponsesModel("gpt-test", openai_client=client)
    prompt = {"id": "pmpt_1", "version": "2", "variables": {"city": "Oslo"}}
    response = await model.get_response(
        None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED, prompt=prompt
    )
    assert response.output[0].content[0].text == "hi"
    assert json_body(openai_server.model_requests[0])["prompt"] == prompt
    assert "prompt" not in (await _body_without_prompt(model, openai_server))


async def _body_without_prompt(model: OpenAIResponsesModel, server: FakeOpenAIServer) -> Any:
    server.enqueue("again")
    await model.get_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)
    return json_body(server.model_requests[-1])


@pytest.mark.http
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_logprobs_and_cache_retention_reach_the_wire(
    openai_server: FakeOpenAIServer, api: str
) -> None:
    openai_server.enqueue("hi")
    client = openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )
    cls = OpenAIResponsesModel if api == "responses" else OpenAIChatCompletionsModel
    settings = ModelSettings(top_logprobs=3, prompt_cache_retention="24h")
    agent = Agent(name="a", model=cls("gpt-test", openai_client=client), model_settings=settings)
    await Runner.run(agent, "go")
    body = json_body(openai_server.model_requests[0])
    assert (body["top_logprobs"], body["prompt_cache_retention"]) == (3, "24h")
    if api == "responses":
        assert body["include"] == ["message.output_text.logprobs"]
    else:
        assert body["logprobs"] is True
    with pytest.raises(UserError, match="top_logprobs"):
        ModelSettings(top_logprobs=99)


def test_a_plain_text_custom_schema_means_plain_text() -> None:
    class Plain(ShoutSchema):
        def is_plain_text(self) -> bool:
            return True

    assert Agent(name="p", output_type=Plain()).output_schema is None


def test_the_builtin_output_schema_answers_the_sdk_methods() -> None:
    class Weather(pydantic.BaseModel):
        city: str

    schema = AgentOutputSchema(Weather)
    assert (schema.name(), schema.is_plain_text(), schema.is_strict_json_schema()) == (
        "Weather",
        False,
        True,
    )
    assert schema.json_schema()["additionalProperties"] is False
    assert schema.validate_json('{"city": "Oslo"}') == Weather(city="Oslo")
    loose = AgentOutputSchema(list[int], strict_json_schema=False)
    assert (loose.name(), loose.is_strict_json_schema()) == ("final_output", False)
    assert loose.validate_json('{"response": [1, 2]}') == [1, 2]


def test_a_str_output_schema_is_plain_text_as_in_the_sdk() -> None:
    schema = AgentOutputSchema(str)
    assert (schema.is_plain_text(), schema.name()) == (True, "str")
    assert schema.validate_json("not JSON at all") == "not JSON at all"
    with pytest.raises(UserError, match="plain-text output"):
        schema.json_schema()
    assert Converter.convert_response_format(schema) is omit
    assert Agent(name="p", output_type=schema).output_schema is None


# --- hooks: AgentHookContext -------------------------------------------------------------


async def test_hooks_typed_with_agent_hook_context_get_the_runs_context() -> None:
    seen: list[tuple[str, Any]] = []

    class Watch(RunHooks[dict[str, int]]):
        async def on_agent_start(
            self, context: AgentHookContext[dict[str, int]], agent: Agent[Any]
        ) -> None:
            seen.append(("run", context.context["n"]))

    class Mine(AgentHooks[dict[str, int]]):
        async def on_end(
            self, context: AgentHookContext[dict[str, int]], agent: Agent[Any], output: Any
        ) -> None:
            assert isinstance(context, AgentHookContext)
            seen.append(("agent", (output, len(context.turn_input))))

    agent = Agent(name="a", model=ScriptedModel([[text("done")]]), hooks=Mine())
    await Runner.run(agent, "go", context={"n": 7}, hooks=Watch())
    assert seen == [("run", 7), ("agent", ("done", 1))]


# --- Agent.as_tool: parameters, input_builder, include_input_schema, failure_error_function


class Forecast(pydantic.BaseModel):
    """A forecast request."""

    city: str = pydantic.Field(description="City name")
    days: int


def _outer(inner_tool: Any, arguments: dict[str, Any]) -> tuple[Agent[Any], ScriptedModel]:
    model = ScriptedModel([[tool_call("forecast", arguments, call_id="c1")], [text("ok")]])
    return Agent(name="outer", model=model, tools=[inner_tool]), model


def _tool_output(result: Any) -> ToolCallOutputItem:
    return next(i for i in result.new_items if isinstance(i, ToolCallOutputItem))


async def test_as_tool_with_parameters_takes_those_arguments() -> None:
    inner_model = ScriptedModel([[text("cold")]])
    inner = Agent(name="weather", model=inner_model)
    made = inner.as_tool("forecast", "Forecast.", parameters=Forecast)
    outer, outer_model = _outer(made, {"city": "Oslo", "days": 2})
    result = await Runner.run(outer, "go")
    offered = outer_model.requests[0].tools[0]
    assert isinstance(offered, FunctionTool)
    schema = offered.params_json_schema
    assert sorted(schema["properties"]) == ["city", "days"] and schema["required"] == [
        "city",
        "days",
    ]
    assert _tool_output(result).output == "cold"
    sent = inner_model.requests[0].input[0]["content"]
    assert '"city": "Oslo"' in sent and '"days": 2' in sent
    assert "- city (string, required): City name" in sent
    assert "Argument schema" not in sent


async def test_as_tool_can_include_the_whole_schema() -> None:
    inner_model = ScriptedModel([[text("cold")]])
    made = Agent(name="w", model=inner_model).as_tool(
        "forecast", "Forecast.", parameters=Forecast, include_input_schema=True
    )
    outer, _ = _outer(made, {"city": "Oslo", "days": 2})
    await Runner.run(outer, "go")
    sent = inner_model.requests[0].input[0]["content"]
    assert "Argument schema" in sent and '"additionalProperties": false' in sent


async def test_as_tool_arguments_that_do_not_fit_go_back_to_the_model() -> None:
    inner_model = ScriptedModel([[text("never")]])
    made = Agent(name="w", model=inner_model).as_tool("forecast", "F.", parameters=Forecast)
    outer, _ = _outer(made, {"city": "Oslo", "days": "many"})
    result = await Runner.run(outer, "go")
    out = _tool_output(result)
    assert out.status == "error" and "days" in str(out.output)
    assert inner_model.requests == []


async def test_as_tool_input_builder_makes_the_nested_input() -> None:
    @dataclass
    class Ask:
        city: str

    async def build(options: Any) -> str:
        return f"Forecast for {options['params']['city']}, please."

    inner_model = ScriptedModel([[text("cold")]])
    made = Agent(name="w", model=inner_model).as_tool(
        "forecast", "F.", parameters=Ask, input_builder=build
    )
    outer, _ = _outer(made, {"city": "Oslo"})
    await Runner.run(outer, "go")
    assert inner_model.requests[0].input == [
        {"role": "user", "content": "Forecast for Oslo, please."}
    ]


def test_as_tool_parameters_must_be_a_model_or_dataclass() -> None:
    with pytest.raises(Exception, match="pydantic model or a dataclass"):
        Agent(name="w").as_tool("t", "T.", parameters=int)


async def test_as_tool_failure_error_function_words_the_nested_failure() -> None:
    def explain(ctx: RunContextWrapper[Any], error: Exception) -> str:
        return f"the weather agent failed: {type(error).__name__}"

    broken = Agent(name="w", model=ScriptedModel([[text("not json")]]), output_type=Forecast)
    made = broken.as_tool("forecast", "F.", failure_error_function=explain)
    outer, _ = _outer(made, {"input": "Oslo"})
    result = await Runner.run(outer, "go")
    assert _tool_output(result).output == "the weather agent failed: ModelBehaviorError"

    broken = Agent(name="w", model=ScriptedModel([[text("not json")]]), output_type=Forecast)
    made = broken.as_tool("forecast", "F.", failure_error_function=None)
    outer, _ = _outer(made, {"input": "Oslo"})
    with pytest.raises(ModelBehaviorError):
        await Runner.run(outer, "go")


# --- type aliases in use -------------------------------------------------------------------


@tool
def lookup(key: str) -> str:
    """Look up."""
    return f"value of {key}"


async def test_a_tools_to_final_output_function_ends_the_run() -> None:
    async def first_output(
        ctx: RunContextWrapper[Any], results: list[FunctionToolResult]
    ) -> ToolsToFinalOutputResult:
        return ToolsToFinalOutputResult(is_final_output=True, final_output=results[0].output)

    behavior: ToolsToFinalOutputFunction = first_output
    model = ScriptedModel([[tool_call("lookup", {"key": "k"})]])
    agent = Agent(name="a", model=model, tools=[lookup], tool_use_behavior=behavior)
    assert (await Runner.run(agent, "go")).final_output == "value of k"


async def test_a_handoff_input_filter_shapes_what_the_next_agent_sees() -> None:
    def only_last_message(data: HandoffInputData) -> HandoffInputData:
        return data.clone(input_history="just this", pre_handoff_items=(), new_items=())

    keep: HandoffInputFilter = only_last_message
    second = Agent(name="second", model=ScriptedModel([[text("bye")]]))
    first = Agent(
        name="first",
        model=ScriptedModel([[tool_call("transfer_to_second", {})]]),
        handoffs=[handoff(second, input_filter=keep)],
    )
    await Runner.run(first, "hello")
    assert scripted_requests(second)[0].input == [{"role": "user", "content": "just this"}]


async def test_tool_output_dicts_reach_the_model_as_content() -> None:
    @tool
    def snapshot() -> list[ToolOutputTextDict | ToolOutputImageDict]:
        """Take a picture."""
        return [{"type": "text", "text": "a cat"}, {"type": "image", "image_url": IMAGE}]

    model = ScriptedModel([[tool_call("snapshot", call_id="c1")], [text("a cat")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[snapshot]), "look")
    assert model.requests[1].input[-1]["output"] == [
        {"type": "input_text", "text": "a cat"},
        {"type": "input_image", "image_url": IMAGE, "detail": "auto"},
    ]
    assert _tool_output(result).output[1]["type"] == "image"  # the item keeps what was returned


# --- tracing: span_id= and disabled= -------------------------------------------------------


class Keep(TracingProcessor):
    def __init__(self) -> None:
        self.spans: list[Span[Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        pass

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        self.spans.append(span)


@pytest.fixture
def kept() -> Iterator[Keep]:
    saved = tracing.get_trace_processors()
    keep = Keep()
    set_trace_processors([keep])
    yield keep
    set_trace_processors(saved)


def test_span_helpers_take_an_id_and_an_off_switch(kept: Keep) -> None:
    chosen = "span_" + "ab" * 12
    with trace("t"), custom_span("mine", span_id=chosen) as mine:
        assert mine.span_id == chosen
        with function_span("quiet", disabled=True) as quiet:
            assert quiet.export() is None and quiet.span_id == "no-op"
        with function_span("child"):
            pass
    assert [(s.span_data.name, s.span_id == chosen) for s in kept.spans] == [
        ("child", False),
        ("mine", True),
    ]
    assert kept.spans[0].parent_id == chosen


# --- logging -------------------------------------------------------------------------------


async def test_verbose_stdout_logging_prints_the_runtimes_records(
    capsys: pytest.CaptureFixture[str],
) -> None:
    @tool
    def broken() -> str:
        """Fails."""
        raise RuntimeError("boom")

    logger = logging.getLogger("jupyter_agents")
    before = (logger.level, list(logger.handlers))
    try:
        enable_verbose_stdout_logging()
        enable_verbose_stdout_logging()  # a second call adds no second handler
        assert len(logger.handlers) == len(before[1]) + 1
        model = ScriptedModel([[tool_call("broken")], [text("sorry")]])
        await Runner.run(Agent(name="a", model=model, tools=[broken]), "go")
        logging.getLogger("jupyter_agents.tracing").debug("a debug line")
    finally:
        logger.setLevel(before[0])
        logger.handlers[:] = before[1]
    out = capsys.readouterr().out
    assert "tool 'broken' raised RuntimeError('boom')" in out
    assert "a debug line" in out


# --- the SDK's module paths ------------------------------------------------------------------


async def test_code_written_against_the_sdks_module_paths_runs() -> None:
    @tool
    def who(ctx: ToolContext[Any]) -> str:
        """Say which call this is."""
        return f"{ctx.tool_name}/{ctx.tool_call_id}"

    second = Agent(
        name="second", instructions=RECOMMENDED_PROMPT_PREFIX, model=ScriptedModel([["bye"]])
    )
    first = Agent(
        name="first",
        model=ScriptedModel([[tool_call("who", call_id="c9")], [tool_call("transfer_to_second")]]),
        tools=[who],
        handoffs=[handoff(second, input_filter=handoff_filters.remove_all_tools)],
    )
    result = await Runner.run(first, "hello")
    assert [i.output for i in result.new_items if isinstance(i, items.ToolCallOutputItem)] == [
        "who/c9"
    ]
    assert [i.get("role") or i.get("type") for i in scripted_requests(second)[0].input] == ["user"]
    instructions = scripted_requests(second)[0].system_instructions
    assert instructions is not None and instructions.startswith(RECOMMENDED_PROMPT_PREFIX)
