"""The Responses wire as the OpenAI Agents SDK sends it: ``ModelSettings``' newer fields (sent
to the local server), ``Converter``, stored prompts with the default model, raw usage, client
stand-ins, and the hosted tools' newer settings."""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields
from typing import Any

import openai
import pytest
from openai.types.responses.web_search_tool import Filters
from openai.types.shared import Reasoning
from pydantic import TypeAdapter
from pydantic_core import to_json

from jupyter_agents import (
    Agent,
    FileSearchTool,
    ImageGenerationTool,
    ModelRetrySettings,
    ModelSettings,
    ModelTracing,
    OpenAIProvider,
    OpenAIResponsesModel,
    Runner,
    Tool,
    UserError,
    WebSearchTool,
    handoff,
    retry_policies,
    set_default_openai_client,
    tool,
)
from jupyter_agents.model_settings import MCPToolChoice
from jupyter_agents.models.openai_responses import Converter
from jupyter_agents.testing import ScriptedModel
from jupyter_agents.testing.server import FakeOpenAIServer

from ..recorded import json_bodies, json_body


@tool
def ping(n: int) -> str:
    """Answer pong."""
    return f"pong {n}"


def _client(server: FakeOpenAIServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)


# -- ModelSettings -------------------------------------------------------------------------------


def test_the_newer_settings_come_last_and_reasoning_is_openais_type() -> None:
    names = [f.name for f in fields(ModelSettings)]
    assert names[-4:] == [
        "context_management",
        "prompt_cache_options",
        "preserve_raw_usage",
        "timeout",
    ]
    settings = ModelSettings(reasoning={"effort": "low", "future_option": "on"})
    assert isinstance(settings.reasoning, Reasoning)
    assert settings.reasoning.effort == "low"
    assert settings.reasoning.model_extra == {"future_option": "on"}


def test_a_dict_override_changes_only_its_fields() -> None:
    base = ModelSettings(
        temperature=0.5,
        reasoning={"effort": "low"},
        extra_args={"a": 1, "b": 2},
        retry=ModelRetrySettings(max_retries=2, backoff={"initial_delay": 0.1}),
    )
    resolved = base.resolve(
        {"temperature": 0.0, "extra_args": {"b": 3}, "retry": {"backoff": {"jitter": False}}}
    )
    assert resolved.temperature == 0.0
    assert resolved.reasoning is base.reasoning
    assert resolved.extra_args == {"a": 1, "b": 3}  # merged key by key
    assert resolved.retry is not None and resolved.retry.max_retries == 2
    assert resolved.retry.backoff_settings is not None
    assert resolved.retry.backoff_settings.initial_delay == 0.1
    assert resolved.retry.backoff_settings.jitter is False
    with pytest.raises(TypeError, match="Unknown model settings: temperatur"):
        base.resolve({"temperatur": 1.0})
    with pytest.raises(TypeError, match="Unknown model settings in prompt_cache_options: tll"):
        ModelSettings(prompt_cache_options={"tll": "30m"})


def test_traceable_settings_leave_out_what_only_the_http_request_carries() -> None:
    settings = ModelSettings(
        temperature=0.5,
        tool_choice={"server_label": "crm", "name": "lookup"},
        extra_headers={"Authorization": "Bearer secret"},
        extra_args={"timeout": object()},  # not JSON: never traced
        prompt_cache_options={"mode": "explicit", "ttl": "30m"},
        preserve_raw_usage=True,
    )
    assert settings.tool_choice == MCPToolChoice(server_label="crm", name="lookup")
    traced = settings.to_traceable_dict()
    assert traced == {
        "temperature": 0.5,
        "tool_choice": {"server_label": "crm", "name": "lookup"},
        "prompt_cache_options": {"mode": "explicit", "ttl": "30m"},
    }
    assert json.dumps(traced)
    assert settings.to_json_dict()["extra_headers"] == {"Authorization": "Bearer secret"}


def test_pydantic_round_trips_settings_without_the_retry_policy() -> None:
    settings = ModelSettings(
        reasoning=Reasoning(effort="high"),
        tool_choice=MCPToolChoice(server_label="crm", name="lookup"),
        retry=ModelRetrySettings(max_retries=1, policy=retry_policies.never()),
        context_management=[{"type": "compaction", "compact_threshold": 1000}],
    )
    back = TypeAdapter(ModelSettings).validate_json(to_json(settings))
    assert back.reasoning == Reasoning(effort="high")
    assert back.tool_choice == MCPToolChoice(server_label="crm", name="lookup")
    assert back.retry is not None and back.retry.max_retries == 1 and back.retry.policy is None
    assert back.context_management == [{"type": "compaction", "compact_threshold": 1000}]


# -- on the wire ---------------------------------------------------------------------------------


@pytest.mark.http
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_the_newer_settings_are_sent_and_raw_usage_is_kept(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.enqueue("hi", "hi again")
    settings = ModelSettings(
        reasoning={"effort": "low"},
        context_management=[{"type": "compaction", "compact_threshold": 200000}],
        prompt_cache_options={"mode": "explicit", "ttl": "30m"},
        preserve_raw_usage=True,
    )
    model = OpenAIResponsesModel("gpt-test", openai_client=_client(openai_server))
    agent = Agent(name="w", model=model, model_settings=settings)
    if stream:
        streamed = Runner.run_streamed(agent, "go")
        async for _ in streamed.stream_events():
            pass
        responses = streamed.raw_responses
    else:
        responses = (await Runner.run(agent, "go")).raw_responses
    body = json_body(openai_server.model_requests[0])
    assert body["context_management"] == [{"type": "compaction", "compact_threshold": 200000}]
    assert body["prompt_cache_options"] == {"mode": "explicit", "ttl": "30m"}
    assert body["reasoning"] == {"effort": "low"}
    raw = responses[0].raw_usage
    assert raw is not None and raw["input_tokens"] == responses[0].usage.input_tokens
    assert "output_tokens_details" in raw

    plain = await Runner.run(Agent(name="w", model=model), "again")  # not asked: not kept
    assert plain.raw_responses[0].raw_usage is None
    assert "context_management" not in json_body(openai_server.model_requests[1])


@pytest.mark.http
async def test_a_stored_prompt_with_the_default_model_sends_neither_model_nor_tools(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue("hi", "hi")
    client = _client(openai_server)
    implicit = OpenAIResponsesModel("gpt-test", openai_client=client, model_is_explicit=False)
    await Runner.run(Agent(name="p", model=implicit, prompt={"id": "pmpt_1"}), "go")
    explicit = OpenAIResponsesModel("gpt-test", openai_client=client)
    await Runner.run(Agent(name="p", model=explicit, prompt={"id": "pmpt_1"}), "go")
    provider = OpenAIProvider(openai_client=client, use_responses=True)
    assert provider.get_model(None)._model_is_explicit is False  # type: ignore[attr-defined]
    assert provider.get_model("gpt-test")._model_is_explicit is True  # type: ignore[attr-defined]
    first, second = json_bodies(openai_server.model_requests)
    assert "model" not in first and "tools" not in first
    assert first["prompt"] == {"id": "pmpt_1", "version": None, "variables": None}
    assert second["model"] == "gpt-test"


@pytest.mark.http
async def test_tools_ask_for_the_results_they_return(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue("hi")
    model = OpenAIResponsesModel("gpt-test", openai_client=_client(openai_server))
    tools: list[Tool] = [
        ping,
        FileSearchTool(vector_store_ids=["vs1"], max_num_results=0, include_search_results=True),
        WebSearchTool(search_content_types=["image"], image_settings={"max_results": 2}),
    ]
    settings = ModelSettings(top_logprobs=1, response_include=["reasoning.encrypted_content"])
    await Runner.run(Agent(name="t", model=model, tools=tools, model_settings=settings), "go")
    body = json_body(openai_server.model_requests[0])
    assert body["include"] == [
        "reasoning.encrypted_content",
        "file_search_call.results",
        "web_search_call.results",
        "message.output_text.logprobs",
    ]
    by_type = {t["type"]: t for t in body["tools"]}
    assert by_type["file_search"] == {"type": "file_search", "vector_store_ids": ["vs1"]}
    assert by_type["web_search"] == {
        "type": "web_search",
        "filters": None,
        "user_location": None,
        "search_context_size": "medium",
        "search_content_types": ["image"],
        "image_settings": {"max_results": 2},
    }


@pytest.mark.http
async def test_a_structured_output_is_named_final_output(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue('{"response": 3}')
    model = OpenAIResponsesModel("gpt-test", openai_client=_client(openai_server))
    result = await Runner.run(Agent(name="s", model=model, output_type=int), "go")
    assert result.final_output == 3
    fmt = json_body(openai_server.model_requests[0])["text"]["format"]
    assert (fmt["type"], fmt["name"]) == ("json_schema", "final_output")


# -- Converter -----------------------------------------------------------------------------------


def test_the_converter_is_the_models_conversion() -> None:
    from openai import omit

    converted = Converter.convert_tools([ping], [handoff(Agent(name="helper"))])
    assert [t["name"] for t in converted.tools] == ["ping", "transfer_to_helper"]
    assert converted.includes == []
    assert Converter.convert_tool_choice(None) is omit
    assert Converter.convert_tool_choice("required") == "required"
    assert Converter.convert_tool_choice("web_search") == {"type": "web_search"}
    assert Converter.convert_tool_choice("ping", tools=[ping]) == {
        "type": "function",
        "name": "ping",
    }
    assert Converter.convert_tool_choice(MCPToolChoice(server_label="s", name="n")) == {
        "server_label": "s",
        "type": "mcp",
        "name": "n",
    }
    with pytest.raises(UserError, match="requires ToolSearchTool"):
        Converter.convert_tool_choice("tool_search", tools=[ping])
    assert Converter.get_response_format(None) is omit
    with pytest.raises(UserError, match="max_num_results must be zero, an integer between 1"):
        Converter.convert_tools([FileSearchTool(vector_store_ids=["v"], max_num_results=51)], [])


# -- clients and tools ---------------------------------------------------------------------------


async def test_a_client_stand_in_without_with_options_is_used_as_it_is() -> None:
    calls: list[dict[str, Any]] = []

    class Responses:
        async def create(self, **kwargs: Any) -> Any:
            calls.append(kwargs)
            from jupyter_agents.runtime.models._responses_build import build_response, message_item

            return build_response("r1", "m", [message_item("ok", "msg_1")], None)

    class StandIn:
        responses = Responses()

    model = OpenAIResponsesModel("m", openai_client=StandIn())  # type: ignore[arg-type]
    response = await model.get_response(
        None, "hi", ModelSettings(extra_headers={"X-A": "1"}), [], None, [], ModelTracing.DISABLED
    )
    assert response.output[0].content[0].text == "ok"
    assert calls[0]["extra_headers"] == {"X-A": "1"}


def test_hosted_tools_take_the_sdks_settings() -> None:
    assert WebSearchTool(None, None, "high", False).to_tool_param()["external_web_access"] is False
    searched = WebSearchTool(filters={"allowed_domains": ["example.com"], "future": [1]})
    assert isinstance(searched.filters, Filters)
    assert searched.to_tool_param()["filters"] == {
        "allowed_domains": ["example.com"],
        "future": [1],
    }
    with pytest.raises(TypeError):
        ImageGenerationTool()  # type: ignore[call-arg]
    config = {"type": "image_generation", "quality": "high"}
    assert ImageGenerationTool(config).to_tool_param() == config  # type: ignore[arg-type]


async def test_a_failing_prompt_function_cancels_the_instructions_still_running() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def instructions(_ctx: Any, _agent: Any) -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async def prompt(_data: Any) -> Any:
        await started.wait()  # needs the instructions to have started: they run at once
        raise RuntimeError("no prompt")

    agent = Agent(name="p", model=ScriptedModel(), instructions=instructions, prompt=prompt)
    with pytest.raises(RuntimeError, match="no prompt"):
        await Runner.run(agent, "go")
    assert cancelled.is_set()


def test_the_default_client_gives_its_key_to_trace_export_unless_told_not_to() -> None:
    from jupyter_agents.runtime.models import provider
    from jupyter_agents.runtime.tracing_key import set_tracing_export_key, tracing_export_key

    saved = provider._settings["client"]
    set_tracing_export_key(None)  # an earlier default client may have given its key
    try:
        set_default_openai_client(openai.AsyncOpenAI(api_key="sk-not-for-traces"), False)
        assert tracing_export_key() is None
        set_default_openai_client(openai.AsyncOpenAI(api_key="sk-for-traces"))
        assert tracing_export_key() == "sk-for-traces"
    finally:
        set_tracing_export_key(None)
        provider._settings["client"] = saved
        provider._reset()
