"""The SDK's composable retries (ModelSettings(retry=ModelRetrySettings(...)), retry_policies),
with the real openai client over HTTP against the local server."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    ModelRetryBackoffSettings,
    ModelRetrySettings,
    ModelSettings,
    OpenAIResponsesModel,
    RetryDecision,
    RetryPolicyContext,
    RunConfig,
    Runner,
    UserError,
    retry_policies,
)
from jupyter_agents.runtime._run import model_call
from jupyter_agents.testing.server import FakeOpenAIServer, ReplyError

pytestmark = pytest.mark.http


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delays the run waited between attempts (not actually waited)."""
    recorded: list[float] = []

    async def record(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(model_call, "wait", record)
    return recorded


def agent_for(server: FakeOpenAIServer, retry: ModelRetrySettings | None) -> Agent:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    model = OpenAIResponsesModel("gpt-test", openai_client=client)
    return Agent(name="r", model=model, model_settings=ModelSettings(retry=retry))


async def run(agent: Agent, stream: bool, **options: Any) -> Any:
    if not stream:
        return await Runner.run(agent, "hi", **options)
    result = Runner.run_streamed(agent, "hi", **options)
    async for _ in result.stream_events():
        pass
    return result


NO_BACKOFF_JITTER = ModelRetryBackoffSettings(
    initial_delay=0.5, multiplier=3, max_delay=2, jitter=False
)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_a_policy_retries_up_to_max_retries_with_the_backoff(
    openai_server: FakeOpenAIServer, waits: list[float], stream: bool
) -> None:
    openai_server.enqueue(*(ReplyError(503, f"down {i}") for i in range(3)), "Finally.")
    retry = ModelRetrySettings(
        max_retries=3, backoff=NO_BACKOFF_JITTER, policy=retry_policies.http_status([503])
    )
    result = await run(agent_for(openai_server, retry), stream)
    assert result.final_output == "Finally."
    assert len(openai_server.model_requests) == 4
    assert waits == [0.5, 1.5, 2.0]  # 0.5, x3, capped at 2


async def test_max_retries_bounds_the_attempts_and_the_error_lists_them(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(*(ReplyError(500, f"oops {i}") for i in range(3)))
    retry = ModelRetrySettings(max_retries=2, policy=retry_policies.provider_suggested())
    with pytest.raises(openai.InternalServerError) as caught:
        await Runner.run(agent_for(openai_server, retry), "hi")
    assert len(openai_server.model_requests) == 3
    assert len(waits) == 2
    assert "model call failed 3 times" in " ".join(caught.value.__notes__)


async def test_without_a_policy_nothing_is_retried(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(503, "down"))
    with pytest.raises(openai.InternalServerError):
        await Runner.run(agent_for(openai_server, ModelRetrySettings(max_retries=5)), "hi")
    assert len(openai_server.model_requests) == 1 and waits == []


async def test_retry_after_policy_waits_as_long_as_the_server_asks(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(429, "slow down", retry_after=1.25), "ok")
    retry = ModelRetrySettings(max_retries=1, policy=retry_policies.retry_after())
    result = await Runner.run(agent_for(openai_server, retry), "hi")
    assert result.final_output == "ok" and waits == [1.25]


async def test_any_and_all_compose_policies(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    either = retry_policies.any(retry_policies.http_status([429]), retry_policies.network_error())
    both = retry_policies.all(retry_policies.http_status([500]), retry_policies.retry_after())

    openai_server.enqueue(ReplyError(429, "slow"), "ok")
    retry = ModelRetrySettings(max_retries=1, backoff={"jitter": False}, policy=either)
    assert (await Runner.run(agent_for(openai_server, retry), "hi")).final_output == "ok"
    assert waits == [0.25]  # the default first backoff

    openai_server.reset()
    openai_server.enqueue(ReplyError(500, "no retry-after"))
    retry = ModelRetrySettings(max_retries=3, policy=both)
    with pytest.raises(openai.InternalServerError):
        await Runner.run(agent_for(openai_server, retry), "hi")
    assert len(openai_server.model_requests) == 1


async def test_a_custom_async_policy_sees_the_context_and_sets_the_delay(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    seen: list[RetryPolicyContext] = []

    async def policy(context: RetryPolicyContext) -> RetryDecision:
        seen.append(context)
        return RetryDecision(retry=True, delay=0.75, reason="custom")

    openai_server.enqueue(ReplyError(502, "bad gateway", code="upstream"), "ok")
    retry = ModelRetrySettings(max_retries=1, policy=policy)
    await Runner.run(agent_for(openai_server, retry), "hi")
    (context,) = seen
    assert (context.attempt, context.max_retries, context.stream) == (1, 1, False)
    assert context.normalized.status_code == 502 and context.normalized.error_code == "upstream"
    assert context.provider_advice is not None and context.provider_advice.suggested is True
    assert waits == [0.75]


async def test_a_stateful_call_is_retried_only_with_approve_unsafe_replay(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(503, "down"))
    retry = ModelRetrySettings(max_retries=2, policy=retry_policies.http_status([503]))
    with pytest.raises(openai.InternalServerError):
        await Runner.run(agent_for(openai_server, retry), "hi", previous_response_id="resp_1")
    assert len(openai_server.model_requests) == 1

    openai_server.reset()
    openai_server.enqueue(ReplyError(503, "down"), "ok")
    approving = ModelRetrySettings(
        max_retries=2, policy=lambda c: RetryDecision(True, 0.1, approve_unsafe_replay=True)
    )
    result = await Runner.run(
        agent_for(openai_server, approving), "hi", previous_response_id="resp_1"
    )
    assert result.final_output == "ok" and waits == [0.1]


async def test_settings_retry_replaces_the_run_config_policy(
    openai_server: FakeOpenAIServer, waits: list[float]
) -> None:
    openai_server.enqueue(ReplyError(503, "down"))
    never = ModelRetrySettings(max_retries=3, policy=retry_policies.never())
    with pytest.raises(openai.InternalServerError):
        await Runner.run(agent_for(openai_server, never), "hi")  # RunConfig would retry a 503
    assert len(openai_server.model_requests) == 1

    openai_server.reset()
    openai_server.enqueue(ReplyError(503, "down"), "ok")
    run_level = RunConfig(
        model_settings=ModelSettings(
            retry=ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
        )
    )
    result = await Runner.run(agent_for(openai_server, None), "hi", run_config=run_level)
    assert result.final_output == "ok" and len(waits) == 1


def test_settings_serialise_without_the_policy_and_refuse_bad_values() -> None:
    settings = ModelSettings(
        retry=ModelRetrySettings(
            max_retries=2, backoff={"initial_delay": 1.0}, policy=lambda c: True
        )
    )
    assert settings.to_json_dict() == {
        "retry": {
            "max_retries": 2,
            "backoff": {
                "initial_delay": 1.0,
                "max_delay": None,
                "multiplier": None,
                "jitter": None,
            },
        }
    }
    with pytest.raises(UserError, match="max_retries"):
        ModelRetrySettings(max_retries=-1)
    with pytest.raises(UserError, match="backoff"):
        ModelRetrySettings(backoff={"initial": 1})
    with pytest.raises(UserError, match="retry must be a ModelRetrySettings"):
        ModelSettings(retry={"max_retries": 1})  # type: ignore[arg-type]
