"""A run's cost (``result.cost``, traces) priced by genai-prices, against its own calculation."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from typing import Any

import openai
import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from jupyter_agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    RunCost,
    Runner,
    Usage,
    tool,
)
from jupyter_agents.runtime.cost import format_usd
from jupyter_agents.runtime.tracing import set_trace_processors
from jupyter_agents.runtime.usage import InputTokensDetails, OutputTokensDetails
from jupyter_agents.testing import ScriptedModel, tool_call
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from .test_tracing import Recorder

PRICED = [
    # (model name, provider id the model is given, provider id genai-prices is asked with)
    ("gpt-4o-mini", None, None),
    ("gpt-4.1", None, None),
    ("o3", None, None),
    ("claude-sonnet-4", "anthropic", "anthropic"),
    ("gemini-2.5-flash", "google", "google"),
]


def expected(model: str, provider: str | None, calls: list[tuple[int, int, int, int]]) -> Decimal:
    """genai-prices' own price of these calls (input, cached, output, reasoning tokens)."""
    return sum(
        (
            calc_price(
                PriceUsage(
                    input_tokens=i, cache_read_tokens=c, output_tokens=o, output_reasoning_tokens=r
                ),
                model_ref=model,
                provider_id=provider,
            ).total_price
            for i, c, o, r in calls
        ),
        Decimal(0),
    )


def _client(server: FakeOpenAIServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)


@tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    return key.upper()


@pytest.mark.http
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(("name", "given", "asked"), PRICED)
async def test_cost_over_http_equals_genai_prices(
    openai_server: FakeOpenAIServer, name: str, given: str | None, asked: str | None, stream: bool
) -> None:
    """Two calls through the real openai client (cached and reasoning tokens reported) cost
    exactly what genai-prices calculates for the same usage, streamed or not."""
    openai_server.enqueue(
        Reply(
            [ReplyToolCall("lookup", '{"key": "a"}', call_id="c1")],
            usage=(12_000, 300),
            cached_tokens=4_000,
            reasoning_tokens=120,
        )
    )
    openai_server.enqueue(Reply([ReplyText("done")], usage=(12_400, 50), cached_tokens=12_000))
    cls = OpenAIResponsesModel if name.startswith(("gpt", "o3")) else OpenAIChatCompletionsModel
    model = cls(name, openai_client=_client(openai_server))
    model.price_provider = given
    agent = Agent(name="priced", model=model, tools=[lookup])
    if stream:
        result: Any = Runner.run_streamed(agent, "go")
        async for _ in result.stream_events():
            pass
    else:
        result = await Runner.run(agent, "go")
    want = expected(name, asked, [(12_000, 4_000, 300, 120), (12_400, 12_000, 50, 0)])
    cost = result.cost
    assert cost.known and cost.usd == want and want > 0
    assert str(cost) == format_usd(want)
    (per_model,) = cost.models
    assert (per_model.model, per_model.requests, per_model.usd) == (name, 2, want)


def test_unknown_price_says_so_never_zero() -> None:
    result = Runner.run_sync(Agent(name="a", model=ScriptedModel(["hi"])), "hello")
    assert result.context_wrapper.usage.total_tokens > 0
    assert result.cost.usd is None and not result.cost.known
    assert str(result.cost) == "price unknown"


def test_a_run_without_calls_costs_nothing_known() -> None:
    assert str(RunCost(Decimal(0), Decimal(0), True)) == "$0.00"


def test_two_models_one_unknown_show_the_known_part() -> None:
    usage = Usage(input_tokens=1000, output_tokens=10)
    known = ScriptedModel([tool_call("lookup", {"key": "k"})], name="gpt-4o-mini", usage=usage)
    unknown = ScriptedModel(["ok"], name="my-local-llama", usage=usage)
    second = Agent(name="second", model=unknown)
    first = Agent(name="first", model=known, tools=[lookup], handoffs=[second])
    known.add_turns([tool_call("transfer_to_second")])
    result = Runner.run_sync(first, "go")
    cost = result.cost
    assert not cost.known and cost.usd is None
    assert cost.priced_usd == expected("gpt-4o-mini", None, [(1000, 0, 10, 0)] * 2)
    assert str(cost) == f"{format_usd(cost.priced_usd)} + price unknown"
    assert [(m.model, m.requests, m.usd is None) for m in cost.models] == [
        ("gpt-4o-mini", 2, False),
        ("my-local-llama", 1, True),
    ]


def test_usage_and_cost_are_in_the_generation_and_task_spans() -> None:
    recorder = Recorder()
    set_trace_processors([recorder])
    try:
        usage = Usage(
            input_tokens=2000,
            output_tokens=100,
            input_tokens_details=InputTokensDetails(500),
            output_tokens_details=OutputTokensDetails(40),
        )
        model = ScriptedModel(["hi"], name="o3", usage=usage)
        Runner.run_sync(Agent(name="a", model=model), "hello", run_config=RunConfig())
    finally:
        set_trace_processors([])
    price = expected("o3", None, [(2000, 500, 100, 40)])
    (generation,) = [s for s in recorder.spans if s.span_data.type == "generation"]
    assert generation.span_data.usage == {
        "requests": 1,
        "input_tokens": 2000,
        "output_tokens": 100,
        "total_tokens": 2100,
        "cached_tokens": 500,
        "cache_write_tokens": 0,
        "reasoning_tokens": 40,
        "cost_usd": str(price),
    }
    (task,) = [s for s in recorder.spans if s.span_data.type == "task"]
    assert task.span_data.metadata == {"cost_usd": str(price)}
    assert task.span_data.usage["requests"] == 1
    (trace,) = recorder.traces
    assert trace.metadata is None  # as in the SDK: the run's usage is its task span's


def test_import_and_unpriced_runs_do_not_load_genai_prices() -> None:
    """Importing the package and running without a budget, a trace or ``result.cost`` never
    imports genai-prices (300 ms); asking for the cost does."""
    code = (
        "import sys\n"
        "from jupyter_agents import Agent, Runner\n"
        "from jupyter_agents.testing import ScriptedModel\n"
        "r = Runner.run_sync(Agent(name='a', model=ScriptedModel(['hi'], name='gpt-4.1')), 'x')\n"
        "print('genai_prices' in sys.modules)\n"
        "str(r.cost)\n"
        "print('genai_prices' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]
