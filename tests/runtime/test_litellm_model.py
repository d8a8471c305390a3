"""An Anthropic model through LiteLLM end to end: the real ``litellm`` package over HTTP against
the local fake of Anthropic's Messages API (``jupyter_agents.testing.anthropic_server``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pydantic
import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from jupyter_agents import (
    Agent,
    ModelSettings,
    RunConfig,
    Runner,
    UserError,
    WebSearchTool,
    tool,
)
from jupyter_agents.extensions.models.litellm_model import LitellmModel
from jupyter_agents.runtime.retry import ModelRetryPolicy
from jupyter_agents.runtime.tracing import set_trace_processors
from jupyter_agents.testing.anthropic_server import FakeAnthropicServer, fake_anthropic_server
from jupyter_agents.testing.server import Reply, ReplyError, ReplyText, ReplyToolCall

from ..recorded import json_body
from .test_openai_models import run
from .test_tracing import Recorder

pytestmark = pytest.mark.http

CLAUDE = "anthropic/claude-sonnet-4-5"


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with fake_anthropic_server() as started:
        yield started


def claude(server: FakeAnthropicServer) -> LitellmModel:
    return LitellmModel(CLAUDE, base_url=server.api_base, api_key=server.api_key)


@tool
def get_weather(city: str) -> str:
    """Weather now.

    Args:
        city: City name.
    """
    return f"{city}: sunny"


sent: list[str] = []


@tool(needs_approval=True)
def send_email(to: str) -> str:
    """Send an email.

    Args:
        to: The address.
    """
    sent.append(to)
    return f"sent to {to}"


def blocks(request: Any, kind: str) -> list[dict[str, Any]]:
    """The content blocks of ``kind`` in a recorded Messages API request."""
    return [
        block
        for message in request.body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == kind
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_parallel_tool_calls_round_trip_as_anthropic_messages(
    server: FakeAnthropicServer, stream: bool
) -> None:
    server.enqueue(
        Reply(
            [
                ReplyText("Looking both up."),
                ReplyToolCall("get_weather", {"city": "Paris"}, call_id="toolu_1"),
                ReplyToolCall("get_weather", {"city": "Oslo"}, call_id="toolu_2"),
            ],
            usage=(300, 40),
            chunk_size=3,
        ),
        Reply([ReplyText("Sunny in both.")], usage=(400, 9), chunk_size=4),
    )
    agent = Agent(name="w", instructions="Be brief.", model=claude(server), tools=[get_weather])

    result = await run(agent, stream, "Weather?")

    assert result.final_output == "Sunny in both."
    outputs = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs == ["Paris: sunny", "Oslo: sunny"]
    usage = result.context_wrapper.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (2, 700, 49)
    if stream:
        assert "".join(result.deltas) == "Looking both up.Sunny in both."
        assert len(result.deltas) > 4  # streamed in pieces, not at the end
    first, second = server.model_requests
    assert first.path == "/v1/messages" and first.headers["x-api-key"] == server.api_key
    assert (
        json_body(first)["model"] == "claude-sonnet-4-5"
        and bool(json_body(first).get("stream")) == stream
    )
    assert json_body(first)["system"] in ("Be brief.", [{"type": "text", "text": "Be brief."}])
    assert json_body(first)["messages"] == [{"role": "user", "content": "Weather?"}] or json_body(
        first
    )["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}]
    (sent_tool,) = json_body(first)["tools"]
    assert sent_tool["name"] == "get_weather"
    assert sent_tool["input_schema"]["required"] == ["city"]
    uses = blocks(second, "tool_use")
    assert [(u["id"], u["input"]) for u in uses] == [
        ("toolu_1", {"city": "Paris"}),
        ("toolu_2", {"city": "Oslo"}),
    ]
    results = blocks(second, "tool_result")
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2"]
    assert "Paris: sunny" in json.dumps(results[0]["content"])


async def test_an_approval_pauses_and_the_resumed_run_sends_the_result(
    server: FakeAnthropicServer,
) -> None:
    sent.clear()
    server.enqueue(
        ReplyToolCall("send_email", {"to": "ana@example.com"}, call_id="toolu_mail"),
        "Sent.",
    )
    agent = Agent(name="m", model=claude(server), tools=[send_email])
    paused = await Runner.run(agent, "Email Ana.")
    (item,) = paused.interruptions
    assert item.raw_item.call_id == "toolu_mail" and sent == []
    state = paused.to_state()
    state.approve(state.interruptions[0])
    resumed = await Runner.run(agent, state)
    assert resumed.final_output == "Sent." and sent == ["ana@example.com"]
    (result,) = blocks(server.model_requests[-1], "tool_result")
    assert result["tool_use_id"] == "toolu_mail"
    assert "sent to ana@example.com" in json.dumps(result["content"])


async def test_a_handoff_goes_through_litellm_as_a_function_tool(
    server: FakeAnthropicServer,
) -> None:
    server.enqueue(ReplyToolCall("transfer_to_helper", {}, call_id="toolu_h"), "Helper here.")
    helper = Agent(name="helper", instructions="You help.", model=claude(server))
    triage = Agent(name="triage", model=claude(server), handoffs=[helper])
    result = await Runner.run(triage, "Help me.")
    assert result.final_output == "Helper here." and result.last_agent is helper
    first, second = server.model_requests
    assert [t["name"] for t in json_body(first)["tools"]] == ["transfer_to_helper"]
    assert "You help." in json.dumps(json_body(second)["system"])
    assert [r["tool_use_id"] for r in blocks(second, "tool_result")] == ["toolu_h"]


class Answer(pydantic.BaseModel):
    city: str
    days: int


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_structured_output(server: FakeAnthropicServer, stream: bool) -> None:
    server.enqueue(Reply([ReplyText('{"city": "Paris", "days": 2}')]))
    agent = Agent(name="s", model=claude(server), output_type=Answer)
    result = await run(agent, stream)
    assert result.final_output == Answer(city="Paris", days=2)
    body = json_body(server.model_requests[0])
    schema = json.dumps(body.get("output_format") or body.get("tools"))
    assert '"city"' in schema and '"days"' in schema  # the schema went to the model


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_usage_and_cost_are_genai_prices_for_the_anthropic_model(
    server: FakeAnthropicServer, stream: bool
) -> None:
    server.enqueue(
        Reply([ReplyToolCall("get_weather", {"city": "Rome"})], usage=(12_000, 300)),
        Reply([ReplyText("done")], usage=(12_400, 50), cached_tokens=12_000),
    )
    agent = Agent(name="priced", model=claude(server), tools=[get_weather])
    result = await run(agent, stream)
    usage = result.context_wrapper.usage
    assert (usage.input_tokens, usage.output_tokens) == (24_400, 350)
    assert usage.input_tokens_details.cached_tokens == 12_000
    want = sum(
        (
            calc_price(
                PriceUsage(input_tokens=i, cache_read_tokens=c, output_tokens=o),
                model_ref="claude-sonnet-4-5",
                provider_id="anthropic",
            ).total_price
            for i, c, o in [(12_000, 0, 300), (12_400, 12_000, 50)]
        ),
        Decimal(0),
    )
    cost = result.cost
    assert cost.known and cost.usd == want and want > 0
    (per_model,) = cost.models
    assert (per_model.model, per_model.requests) == (CLAUDE, 2)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_429_is_retried_once_by_the_run_and_never_by_litellm(
    server: FakeAnthropicServer, waits: list[float], stream: bool
) -> None:
    server.enqueue(ReplyError(429, "slow down", retry_after=1.5), "Finally.")
    agent = Agent(name="r", model=claude(server))
    result = await run(agent, stream, config=RunConfig(model_retry=ModelRetryPolicy()))
    assert result.final_output == "Finally."
    assert len(server.model_requests) == 2
    assert waits == [1.5]  # the server's Retry-After, as the run's policy read it
    assert result.context_wrapper.usage.requests == 1


async def test_an_overloaded_provider_is_retried_then_its_error_raised(
    server: FakeAnthropicServer, waits: list[float]
) -> None:
    from litellm.exceptions import InternalServerError

    server.enqueue(ReplyError(529, "overloaded"), "ok", ReplyError(529, "overloaded"))
    agent = Agent(name="r", model=claude(server))
    assert (await Runner.run(agent, "hi")).final_output == "ok"
    assert len(waits) == 1
    no_retries = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    with pytest.raises(InternalServerError, match="overloaded") as caught:
        await Runner.run(agent, "hi", run_config=no_retries)
    assert caught.value.status_code == 500  # LiteLLM's status for Anthropic's 529
    assert len(server.model_requests) == 3


async def test_a_bad_request_is_not_retried(
    server: FakeAnthropicServer, waits: list[float]
) -> None:
    from litellm.exceptions import BadRequestError

    server.enqueue(ReplyError(400, "messages: bad"))
    with pytest.raises(BadRequestError):
        await Runner.run(Agent(name="r", model=claude(server)), "hi")
    assert len(server.model_requests) == 1 and waits == []


async def test_what_the_provider_cannot_do_is_a_clear_error_before_any_request(
    server: FakeAnthropicServer,
) -> None:
    hosted = Agent(name="h", model=claude(server), tools=[WebSearchTool()])
    with pytest.raises(UserError, match=r"can only send function tools; remove web_search"):
        await Runner.run(hosted, "hi")
    chained = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    with pytest.raises(UserError, match="server-side conversation state"):
        await Runner.run(
            Agent(name="c", model=claude(server)),
            "hi",
            run_config=chained,
            previous_response_id="resp_1",
        )
    assert server.model_requests == []


async def test_a_setting_the_provider_does_not_take_is_a_user_error(
    server: FakeAnthropicServer,
) -> None:
    agent = Agent(name="p", model=claude(server), model_settings=ModelSettings(top_logprobs=3))
    with pytest.raises(
        UserError, match=r"does not support parameters: \[.logprobs., .top_logprobs.\]"
    ):
        await Runner.run(agent, "hi")
    assert server.model_requests == []


async def test_the_model_call_is_traced_with_its_usage_and_price(
    server: FakeAnthropicServer,
) -> None:
    server.enqueue(Reply([ReplyText("hi")], usage=(2_000, 100)))
    recorder = Recorder()
    set_trace_processors([recorder])
    try:
        await Runner.run(Agent(name="t", model=claude(server)), "hello")
    finally:
        set_trace_processors([])
    (generation,) = [s for s in recorder.spans if s.span_data.type == "generation"]
    assert generation.span_data.model == CLAUDE
    price = calc_price(
        PriceUsage(input_tokens=2_000, output_tokens=100),
        model_ref="claude-sonnet-4-5",
        provider_id="anthropic",
    ).total_price
    assert generation.span_data.usage["input_tokens"] == 2_000
    assert generation.span_data.usage["cost_usd"] == str(price)
    assert generation.error is None


async def test_litellm_prefixed_names_reach_the_provider_from_its_environment(
    server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_BASE", server.api_base)
    monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
    server.enqueue("Bonjour.")
    result = await Runner.run(Agent(name="p", model=f"litellm/{CLAUDE}"), "hi")
    assert result.final_output == "Bonjour."
    assert json_body(server.model_requests[0])["model"] == "claude-sonnet-4-5"


def test_without_the_litellm_package_the_error_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "litellm", None)
    with pytest.raises(UserError, match=r"pip install 'jupyter_agents\[litellm\]'"):
        LitellmModel(CLAUDE)
