"""ModelSettings(retry=ModelRetrySettings(...)) end to end: the real openai client over HTTP
against the local server, with the waits recorded instead of slept."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    JSONLinesExporter,
    ModelRetryAdvice,
    ModelRetryAdviceRequest,
    ModelRetryBackoffSettings,
    ModelRetryPolicy,
    ModelRetrySettings,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RetryDecision,
    RetryPolicyContext,
    RunConfig,
    Runner,
    retry_policies,
    set_trace_processors,
)
from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyError,
    ReplyHang,
    ReplyText,
)

from ..recorded import json_bodies

pytestmark = pytest.mark.http

STEADY = ModelRetryBackoffSettings(initial_delay=0.5, multiplier=3.0, max_delay=10.0, jitter=False)


def client_for(server: FakeOpenAIServer) -> openai.AsyncOpenAI:
    # The openai package's default client (max_retries=2): the run turns its retries off.
    return openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key)


def make_model(kind: str, server: FakeOpenAIServer) -> Any:
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    return cls("gpt-test", openai_client=client_for(server))


def agent_with(server: FakeOpenAIServer, retry: Any = None, kind: str = "responses") -> Agent:
    return Agent(
        name="r", model=make_model(kind, server), model_settings=ModelSettings(retry=retry)
    )


async def run(agent: Agent, stream: bool = False, config: Any = None, **kwargs: Any) -> Any:
    if not stream:
        return await Runner.run(agent, "hi", run_config=config, **kwargs)
    result = Runner.run_streamed(agent, "hi", run_config=config, **kwargs)
    async for _ in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_retries_follow_the_policy_and_the_backoff(
    openai_server: FakeOpenAIServer, waits: list[float], kind: str, stream: bool
) -> None:
    openai_server.enqueue(ReplyError(503, "down"), ReplyError(503, "down"), "Finally.")
    retry = ModelRetrySettings(
        max_retries=3, backoff=STEADY, policy=retry_policies.http_status([503])
    )
    result = await run(agent_with(openai_server, retry, kind), stream)
    assert result.final_output == "Finally."
    assert len(openai_server.model_requests) == 3
    assert waits == [0.5, 1.5]  # initial_delay, then times the multiplier


async def test_the_retry_budget_ends_with_the_last_error(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(*(ReplyError(500, f"down {i}") for i in range(3)))
    retry = ModelRetrySettings(
        max_retries=1, backoff=STEADY, policy=retry_policies.http_status([500])
    )
    with pytest.raises(openai.InternalServerError, match="down 1") as caught:
        await run(agent_with(openai_server, retry))
    assert len(openai_server.model_requests) == 2
    assert waits == [0.5]
    assert "model call failed 2 times" in " ".join(getattr(caught.value, "__notes__", []))
    openai_server.reset()


async def test_a_policy_that_says_no_sends_one_request(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(502, "bad gateway"), "unused")
    retry = ModelRetrySettings(max_retries=5, policy=retry_policies.http_status([500]))
    with pytest.raises(openai.InternalServerError):
        await run(agent_with(openai_server, retry))
    assert len(openai_server.model_requests) == 1 and waits == []
    openai_server.reset()


async def test_model_settings_retry_overrides_run_config_model_retry(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    # RunConfig says one attempt; the agent's ModelSettings.retry governs instead.
    no_retries = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    openai_server.enqueue(ReplyError(503, "a"), ReplyError(503, "b"), "ok")
    retry = ModelRetrySettings(
        max_retries=2, backoff=STEADY, policy=retry_policies.http_status([503])
    )
    result = await run(agent_with(openai_server, retry), config=no_retries)
    assert result.final_output == "ok" and len(openai_server.model_requests) == 3

    # And the other way round: RunConfig's default (3 attempts) but the agent says none.
    openai_server.reset()
    openai_server.enqueue(ReplyError(503, "a"), "unused")
    with pytest.raises(openai.InternalServerError):
        await run(agent_with(openai_server, ModelRetrySettings(max_retries=0)))
    assert len(openai_server.model_requests) == 1
    openai_server.reset()
    openai_server.enqueue(ReplyError(429, "a"), "unused")
    never = ModelRetrySettings(max_retries=3, policy=retry_policies.never())
    with pytest.raises(openai.RateLimitError):
        await run(agent_with(openai_server, never))
    assert len(openai_server.model_requests) == 1
    assert waits == [0.5, 1.5]
    openai_server.reset()


async def test_without_model_settings_retry_run_config_model_retry_still_decides(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(500, "a"), ReplyError(500, "b"), "unused")
    config = RunConfig(model_retry=ModelRetryPolicy(max_attempts=2, initial_delay=0.2, jitter=0))
    with pytest.raises(openai.InternalServerError):
        await run(agent_with(openai_server), config=config)
    assert len(openai_server.model_requests) == 2 and waits == [0.2]
    openai_server.reset()


async def test_unset_fields_come_from_run_config_model_retry(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    """No policy: provider_suggested (408/409/429/5xx, not 400); no max_retries: max_attempts-1;
    no backoff: model_retry's delays."""
    config = RunConfig(
        model_retry=ModelRetryPolicy(max_attempts=4, initial_delay=0.1, backoff=2.0, jitter=0)
    )
    openai_server.enqueue(ReplyError(500, "a"), ReplyError(409, "b"), ReplyError(400, "bad"))
    partial = ModelRetrySettings(backoff={"multiplier": 5.0})
    with pytest.raises(openai.BadRequestError):
        await run(agent_with(openai_server, partial), config=config)
    assert len(openai_server.model_requests) == 3
    assert waits == [0.1, 0.5]

    waits.clear()
    openai_server.reset()
    openai_server.enqueue(*(ReplyError(503, str(i)) for i in range(5)))
    with pytest.raises(openai.InternalServerError):
        await run(agent_with(openai_server, ModelRetrySettings()), config=config)
    assert len(openai_server.model_requests) == 4  # max_attempts=4: three retries
    assert waits == pytest.approx([0.1, 0.2, 0.4])
    openai_server.reset()


async def test_run_config_model_settings_retry_merges_with_the_agents(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    """RunConfig.model_settings wins field by field, the backoff's fields included; an agent
    without retry of its own takes the run's."""
    seen: list[int] = []

    def policy(context: RetryPolicyContext) -> bool:
        seen.append(context.attempt)
        return True

    run_retry = ModelRetrySettings(backoff={"initial_delay": 0.25})
    agent_retry = ModelRetrySettings(max_retries=1, backoff=STEADY, policy=policy)
    config = RunConfig(model_settings=ModelSettings(retry=run_retry))
    openai_server.enqueue(ReplyError(500, "a"), ReplyError(500, "b"), "unused")
    with pytest.raises(openai.InternalServerError):
        await run(agent_with(openai_server, agent_retry), config=config)
    # max_retries and policy from the agent, initial_delay from the run, multiplier kept.
    assert len(openai_server.model_requests) == 2 and seen == [1] and waits == [0.25]

    openai_server.reset()
    waits.clear()
    whole_run = RunConfig(
        model_settings=ModelSettings(
            retry=ModelRetrySettings(max_retries=1, backoff=STEADY, policy=lambda c: True)
        )
    )
    openai_server.enqueue(ReplyError(400, "would not retry by default"), "ok")
    result = await run(agent_with(openai_server), config=whole_run)
    assert result.final_output == "ok" and waits == [0.5]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_retry_after_is_waited_exactly_even_above_max_delay(
    openai_server: FakeOpenAIServer, waits: list[float], stream: bool
) -> None:
    capped = ModelRetryBackoffSettings(initial_delay=0.01, max_delay=0.05, jitter=False)
    openai_server.enqueue(ReplyError(429, "slow down", retry_after=0.25), "ok")
    retry = ModelRetrySettings(max_retries=1, backoff=capped, policy=retry_policies.retry_after())
    result = await run(agent_with(openai_server, retry), stream)
    assert result.final_output == "ok" and waits == [0.25]

    # retry_after() retries only when the server named a delay.
    openai_server.reset()
    waits.clear()
    openai_server.enqueue(ReplyError(429, "slow down"), "unused")
    with pytest.raises(openai.RateLimitError):
        await run(agent_with(openai_server, retry), stream)
    assert len(openai_server.model_requests) == 1 and waits == []
    openai_server.reset()


async def test_a_plain_yes_waits_retry_after_before_the_backoff(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(429, "slow", retry_after=0.3), ReplyError(500, "oops"), "ok")
    retry = ModelRetrySettings(
        max_retries=2, backoff=STEADY, policy=retry_policies.http_status([429, 500])
    )
    assert (await run(agent_with(openai_server, retry))).final_output == "ok"
    assert waits == [0.3, 1.5]  # the server's delay, then the backoff of attempt 2


async def test_composed_policies_and_what_a_policy_is_told(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    contexts: list[RetryPolicyContext] = []

    async def custom(context: RetryPolicyContext) -> RetryDecision:
        contexts.append(context)
        if context.normalized.error_code == "overloaded":
            return RetryDecision(retry=True, delay=0.123, reason="overloaded, custom wait")
        return RetryDecision(retry=False)

    policy = retry_policies.any(
        retry_policies.all(retry_policies.http_status([429]), retry_policies.retry_after()),
        custom,
    )
    openai_server.enqueue(
        ReplyError(529, "overloaded", code="overloaded"),
        ReplyError(429, "slow", retry_after=0.2),
        ReplyError(429, "slow, no hint"),
        "unused",
    )
    retry = ModelRetrySettings(max_retries=5, backoff=STEADY, policy=policy)
    with pytest.raises(openai.RateLimitError):
        await run(agent_with(openai_server, retry))
    assert len(openai_server.model_requests) == 3
    assert waits == [0.123, 0.2]
    first = contexts[0]
    assert (first.attempt, first.max_retries, first.stream) == (1, 5, False)
    assert first.normalized.status_code == 529 and "overloaded" in (first.normalized.message or "")
    assert first.normalized.request_id and first.provider_advice is not None
    assert first.provider_advice.suggested is True  # 5xx: the OpenAI API's advice
    assert not first.stateful_request and first.replay_safety == "unknown"
    assert [c.attempt for c in contexts] == [1, 2, 3]
    assert contexts[1].normalized.retry_after == pytest.approx(0.2)
    openai_server.reset()


async def test_network_errors_and_timeouts(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    contexts: list[RetryPolicyContext] = []
    network = retry_policies.network_error()

    def policy(context: RetryPolicyContext) -> Any:
        contexts.append(context)
        return network(context)

    openai_server.enqueue(ReplyHang(), "ok")
    agent = Agent(
        name="t",
        model=make_model("responses", openai_server),
        model_settings=ModelSettings(
            timeout=0.3, retry=ModelRetrySettings(max_retries=1, backoff=STEADY, policy=policy)
        ),
    )
    result = await asyncio.wait_for(run(agent), timeout=30)
    assert result.final_output == "ok" and waits == [0.5]
    (context,) = contexts
    assert isinstance(context.error, openai.APITimeoutError)
    assert context.normalized.is_timeout and context.normalized.is_network_error
    assert context.normalized.status_code is None


async def test_a_stream_that_delivered_is_never_retried(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    asked: list[RetryPolicyContext] = []

    def always(context: RetryPolicyContext) -> bool:
        asked.append(context)
        return True

    openai_server.enqueue(Reply([ReplyText("partial answer here")], abort_after_events=6), "no")
    agent = agent_with(openai_server, ModelRetrySettings(max_retries=3, policy=always))
    with pytest.raises(openai.APIError):
        await run(agent, stream=True)
    assert len(openai_server.model_requests) == 1 and asked == [] and waits == []
    openai_server.reset()


async def test_a_streamed_failure_before_any_event_is_retried_with_stream_true(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    asked: list[bool] = []

    def policy(context: RetryPolicyContext) -> bool:
        asked.append(context.stream)
        return True

    openai_server.enqueue(ReplyError(503, "down"), "ok")
    agent = agent_with(openai_server, ModelRetrySettings(max_retries=1, policy=policy), "chat")
    result = await run(agent, stream=True)
    assert result.final_output == "ok" and asked == [True] and len(waits) == 1


async def test_stateful_requests_need_the_providers_word(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    """With previous_response_id a retry needs replay safety. The OpenAI API's advice gives it
    after an HTTP error status (the server did not do the work), not after a timeout."""
    openai_server.enqueue(ReplyError(503, "down"), "ok")
    status = ModelRetrySettings(
        max_retries=2, backoff=STEADY, policy=retry_policies.http_status([503])
    )
    result = await run(agent_with(openai_server, status), previous_response_id="resp_earlier")
    assert result.final_output == "ok" and waits == [0.5]
    assert [b.get("previous_response_id") for b in json_bodies(openai_server.model_requests)] == [
        "resp_earlier",
        "resp_earlier",
    ]

    for previous, expected in ((None, "ok"), ("resp_earlier", None)):
        openai_server.reset()
        openai_server.enqueue(ReplyHang(), "ok")
        agent = Agent(
            name="t",
            model=make_model("responses", openai_server),
            model_settings=ModelSettings(
                timeout=0.3,
                retry=ModelRetrySettings(max_retries=2, policy=retry_policies.network_error()),
            ),
        )
        if expected is None:
            with pytest.raises(openai.APITimeoutError):
                await run(agent, previous_response_id=previous)
        else:
            assert (await run(agent, previous_response_id=previous)).final_output == expected
    assert len(openai_server.model_requests) == 1
    openai_server.reset()


class AdvisedModel(OpenAIResponsesModel):
    """An OpenAI model whose provider advice is scripted (as an SDK model's may be)."""

    def __init__(self, server: FakeOpenAIServer, advice: ModelRetryAdvice) -> None:
        super().__init__("gpt-test", openai_client=client_for(server))
        self.advice = advice
        self.requests: list[ModelRetryAdviceRequest] = []

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        self.requests.append(request)
        return self.advice


async def test_a_provider_veto_wins_in_any(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    model = AdvisedModel(openai_server, ModelRetryAdvice(suggested=False, reason="quota gone"))
    policy = retry_policies.any(
        retry_policies.provider_suggested(), retry_policies.http_status([503])
    )
    agent = Agent(
        name="v",
        model=model,
        model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=2, policy=policy)),
    )
    openai_server.enqueue(ReplyError(503, "down"), "unused")
    with pytest.raises(openai.InternalServerError):
        await run(agent)
    assert len(openai_server.model_requests) == 1 and waits == []
    (request,) = model.requests
    assert (request.attempt, request.stream) == (1, False)
    openai_server.reset()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_replay_unsafe_failure_needs_explicit_consent(
    openai_server: FakeOpenAIServer, waits: list[float], stream: bool
) -> None:
    unsafe = ModelRetryAdvice(suggested=False, replay_safety="unsafe", reason="may have run")

    def consent(context: RetryPolicyContext) -> RetryDecision:
        return RetryDecision(retry=True, delay=0.01, approve_unsafe_replay=True)

    def plain_yes(context: RetryPolicyContext) -> bool:
        return True

    for policy, retried in ((plain_yes, False), (consent, not stream)):
        openai_server.reset()
        openai_server.enqueue(ReplyError(500, "down"), "ok")
        combined = retry_policies.any(retry_policies.provider_suggested(), policy)
        agent = Agent(
            name="u",
            model=AdvisedModel(openai_server, unsafe),
            model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=1, policy=combined)),
        )
        if retried:
            assert (await run(agent, stream)).final_output == "ok"
        else:
            with pytest.raises(openai.InternalServerError):
                await run(agent, stream)
        assert len(openai_server.model_requests) == (2 if retried else 1)
    assert waits == ([] if stream else [0.01])
    openai_server.reset()


async def test_the_policy_never_reaches_traces_or_json(
    openai_server: FakeOpenAIServer, waits: list[float], tmp_path: Path
) -> None:
    path = tmp_path / "traces.jsonl"
    exporter = JSONLinesExporter(str(path))
    set_trace_processors([exporter])
    try:
        openai_server.enqueue("ok")
        retry = ModelRetrySettings(
            max_retries=1, backoff={"initial_delay": 0.5}, policy=retry_policies.network_error()
        )
        await run(agent_with(openai_server, retry))
    finally:
        set_trace_processors([])
        exporter.shutdown()
    spans = [json.loads(line) for line in path.read_text().splitlines()]
    configs = [
        s["span_data"]["model_config"]
        for s in spans
        if s.get("span_data", {}).get("type") == "generation"
    ]
    assert configs == [
        {
            "retry": {
                "max_retries": 1,
                "backoff": {
                    "initial_delay": 0.5,
                    "max_delay": None,
                    "multiplier": None,
                    "jitter": None,
                },
            }
        }
    ]


@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_a_request_method_replaced_on_the_given_client_is_the_one_called(
    openai_server: FakeOpenAIServer, kind: str
) -> None:
    # The SDK's own tests (and users' tests) replace `create` on the client they pass. A copy
    # of the client would not have the replacement and would send a real request.
    client = client_for(openai_server)
    resource: Any = client.responses if kind == "responses" else client.chat.completions
    original = resource.create
    calls: list[str] = []

    async def create(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["model"])
        return await original(*args, **kwargs)

    resource.create = create  # on this instance, as monkeypatch.setattr does
    openai_server.enqueue(Reply([ReplyText("from the replacement")]))
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    result = await Runner.run(Agent(name="r", model=cls("gpt-test", openai_client=client)), "hi")
    assert result.final_output == "from the replacement"
    assert calls == ["gpt-test"]
