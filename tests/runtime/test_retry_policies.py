"""retry_policies, ModelRetrySettings and the OpenAI API's retry advice, piece by piece."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import openai
import pytest

from jupyter_agents import (
    ModelRetryAdvice,
    ModelRetryAdviceRequest,
    ModelRetryBackoffSettings,
    ModelRetryNormalizedError,
    ModelRetryPolicy,
    ModelRetrySettings,
    ModelSettings,
    RetryDecision,
    RetryPolicyContext,
    UserError,
    retry_policies,
)
from jupyter_agents.runtime.retry import EffectiveRetry, decide_retry
from jupyter_agents.runtime.retry._errors import normalize_error, openai_retry_advice
from jupyter_agents.runtime.retry._policies import evaluate_policy


def context(
    status: int | None = None,
    retry_after: float | None = None,
    advice: ModelRetryAdvice | None = None,
    network: bool = False,
    previous_response_id: str | None = None,
) -> RetryPolicyContext:
    return RetryPolicyContext(
        error=RuntimeError("failed"),
        attempt=1,
        max_retries=3,
        stream=False,
        normalized=ModelRetryNormalizedError(
            status_code=status, retry_after=retry_after, is_network_error=network
        ),
        provider_advice=advice,
        previous_response_id=previous_response_id,
    )


async def decide(policy: Any, ctx: RetryPolicyContext) -> RetryDecision:
    return await evaluate_policy(policy, ctx)


async def test_the_simple_policies() -> None:
    assert not (await decide(retry_policies.never(), context(500))).retry
    assert (await decide(retry_policies.http_status([500, 503]), context(503))).retry
    assert not (await decide(retry_policies.http_status([500]), context(None))).retry
    assert (await decide(retry_policies.network_error(), context(network=True))).retry
    assert not (await decide(retry_policies.network_error(), context(500))).retry
    after = await decide(retry_policies.retry_after(), context(429, retry_after=2.5))
    assert (after.retry, after.delay) == (True, 2.5)
    hinted = context(429, advice=ModelRetryAdvice(retry_after=1.5))
    assert (await decide(retry_policies.retry_after(), hinted)).delay == 1.5
    assert not (await decide(retry_policies.retry_after(), context(429))).retry


async def test_provider_suggested_follows_the_advice() -> None:
    policy = retry_policies.provider_suggested()
    assert not (await decide(policy, context(500))).retry  # no advice: no view
    assert not (await decide(policy, context(500, advice=ModelRetryAdvice()))).retry
    yes = await decide(policy, context(500, advice=ModelRetryAdvice(True, 0.7, reason="busy")))
    assert (yes.retry, yes.delay, yes.reason) == (True, 0.7, "busy")
    no = await decide(policy, context(500, advice=ModelRetryAdvice(False, reason="quota")))
    assert (no.retry, no.reason) == (False, "quota")


async def test_any_and_all_combine() -> None:
    yes_slow = RetryDecision(retry=True, delay=5.0, reason="slow")
    yes_fast = RetryDecision(retry=True, delay=1.0)
    no = RetryDecision(retry=False, reason="nope")
    ctx = context(500)

    def const(value: Any) -> Any:
        return lambda _: value

    async def async_yes(_: RetryPolicyContext) -> bool:
        return True

    any_ = retry_policies.any
    all_ = retry_policies.all
    assert not (await decide(any_(), ctx)).retry and not (await decide(all_(), ctx)).retry
    assert (await decide(any_(const(False), async_yes), ctx)).retry
    assert (await decide(any_(const(False), const(no)), ctx)).reason == "nope"
    merged = await decide(any_(const(yes_slow), const(yes_fast)), ctx)
    assert (merged.delay, merged.reason) == (1.0, "slow")  # the last delay given wins
    assert (await decide(all_(const(yes_slow), async_yes), ctx)).delay == 5.0
    assert (await decide(all_(const(yes_slow), const(no)), ctx)).reason == "nope"

    asked: list[str] = []

    def counting(name: str, answer: bool) -> Any:
        def policy(_: RetryPolicyContext) -> bool:
            asked.append(name)
            return answer

        return policy

    await decide(all_(counting("a", False), counting("b", True)), ctx)
    assert asked == ["a"]  # all() stops at the first no


async def test_a_provider_veto_is_kept_by_the_combinators() -> None:
    veto = context(503, advice=ModelRetryAdvice(suggested=False, reason="quota gone"))
    suggested = retry_policies.provider_suggested()
    status = retry_policies.http_status([503])
    for combined in (retry_policies.any(status, suggested), retry_policies.all(suggested)):
        decision = await decide(combined, veto)
        assert (decision.retry, decision.reason) == (False, "quota gone")
    # Alone, a policy that ignores the provider decides.
    assert (await decide(status, veto)).retry


async def test_a_replay_unsafe_veto_yields_only_to_explicit_consent() -> None:
    unsafe = context(
        500, advice=ModelRetryAdvice(suggested=False, replay_safety="unsafe", reason="ran?")
    )
    suggested = retry_policies.provider_suggested()
    plain = RetryDecision(retry=True)
    consent = RetryDecision(retry=True, delay=0.2, approve_unsafe_replay=True)
    for combinator in (retry_policies.any, retry_policies.all):
        assert not (await decide(combinator(suggested, lambda _: plain), unsafe)).retry
        decision = await decide(combinator(suggested, lambda _: consent), unsafe)
        assert (decision.retry, decision.delay, decision.reason) == (True, 0.2, "ran?")
        assert decision.approve_unsafe_replay


def test_the_context_reads_the_providers_facts_once() -> None:
    advice = ModelRetryAdvice(suggested=True, replay_safety="maybe", response_started=True)
    ctx = context(500, advice=advice, previous_response_id="resp_1")
    assert (ctx.replay_safety, ctx.response_started, ctx.stateful_request) == (
        "unknown",
        True,
        True,
    )
    advice.replay_safety = "safe"  # a policy editing the advice changes nothing
    assert ctx.replay_safety == "unknown"
    assert not context(500).stateful_request


def openai_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://127.0.0.1/v1/responses")
    response = httpx2.Response(status, headers=headers or {}, request=request)
    body = {"message": "failed", "code": "some_code"}
    return openai.APIStatusError("failed", response=response, body=body)


def test_the_openai_apis_advice() -> None:
    def advice(error: Exception, previous: str | None = None) -> ModelRetryAdvice | None:
        return openai_retry_advice(
            ModelRetryAdviceRequest(
                error=error, attempt=1, stream=False, previous_response_id=previous
            )
        )

    told_yes = advice(openai_error(400, {"x-should-retry": "true"}))
    assert told_yes is not None and (told_yes.suggested, told_yes.replay_safety) == (True, "safe")
    told_no = advice(openai_error(503, {"x-should-retry": "false"}))
    assert told_no is not None and told_no.suggested is False
    server = advice(openai_error(503, {"retry-after-ms": "1500"}))
    assert server is not None and (server.suggested, server.retry_after) == (True, 1.5)
    assert server.replay_safety is None
    stateful = advice(openai_error(500), previous="resp_1")
    assert stateful is not None and stateful.replay_safety == "safe"
    assert advice(openai_error(400)) is None
    hint_only = advice(openai_error(400, {"retry-after": "3"}))
    assert hint_only is not None and (hint_only.suggested, hint_only.retry_after) == (None, 3.0)
    request = httpx2.Request("POST", "http://127.0.0.1/v1/responses")
    connection = advice(openai.APIConnectionError(request=request))
    assert connection is not None and connection.suggested is True
    assert connection.normalized is not None and connection.normalized.is_network_error


def test_normalized_facts_and_what_a_provider_adds() -> None:
    error = openai_error(429, {"retry-after": "2", "x-request-id": "req_9"})
    facts = normalize_error(error, None)
    assert (facts.status_code, facts.error_code, facts.retry_after) == (429, "some_code", 2.0)
    assert facts.request_id == "req_9" and not facts.is_network_error and not facts.is_abort
    added = normalize_error(
        error,
        ModelRetryAdvice(
            retry_after=0.5,
            normalized=ModelRetryNormalizedError(error_code="quota", is_network_error=True),
        ),
    )
    assert (added.status_code, added.error_code, added.retry_after) == (429, "quota", 0.5)
    assert added.is_network_error


def test_settings_validate_and_coerce() -> None:
    settings = ModelRetrySettings(max_retries=2, backoff={"initial_delay": 1, "jitter": False})
    assert settings.backoff == ModelRetryBackoffSettings(initial_delay=1, jitter=False)
    from_dict = ModelSettings(retry={"max_retries": 1, "backoff": {"multiplier": 3}})
    assert from_dict.retry == ModelRetrySettings(
        max_retries=1, backoff=ModelRetryBackoffSettings(multiplier=3)
    )
    for bad, message in (
        (lambda: ModelRetrySettings(max_retries=-1), "max_retries"),
        (lambda: ModelRetrySettings(max_retries=True), "max_retries"),
        (lambda: ModelRetrySettings(policy="no"), "callable"),  # type: ignore[arg-type]
        (lambda: ModelRetrySettings(backoff={"initial": 1}), "Unknown backoff"),
        (lambda: ModelRetryBackoffSettings(max_delay=-1), "max_delay"),
        (lambda: ModelRetryBackoffSettings(jitter=0.5), "jitter"),  # type: ignore[arg-type]
        (lambda: ModelSettings(retry={"max_retry": 1}), "Unknown retry"),
        (lambda: ModelSettings(retry=3), "retry must be"),  # type: ignore[arg-type]
    ):
        with pytest.raises(UserError, match=message):
            bad()


def test_resolve_merges_retry_field_by_field_and_json_leaves_the_policy_out() -> None:
    def policy(_: RetryPolicyContext) -> bool:
        return True

    agent = ModelSettings(
        temperature=0.5,
        retry=ModelRetrySettings(
            max_retries=4, backoff={"initial_delay": 1.0, "max_delay": 8.0}, policy=policy
        ),
    )
    run = ModelSettings(retry=ModelRetrySettings(max_retries=1, backoff={"max_delay": 2.0}))
    resolved = agent.resolve(run)
    assert resolved.retry == ModelRetrySettings(
        max_retries=1,
        backoff=ModelRetryBackoffSettings(initial_delay=1.0, max_delay=2.0),
        policy=policy,
    )
    assert agent.resolve(ModelSettings(temperature=0.1)).retry is agent.retry
    assert ModelSettings().resolve(run).retry is run.retry
    data = resolved.to_json_dict()
    assert json.loads(json.dumps(data)) == {
        "temperature": 0.5,
        "retry": {
            "max_retries": 1,
            "backoff": {
                "initial_delay": 1.0,
                "max_delay": 2.0,
                "multiplier": None,
                "jitter": None,
            },
        },
    }
    assert "policy" not in repr(resolved.retry)
    assert ModelRetrySettings().to_json_dict() == {"max_retries": None, "backoff": None}


def test_the_effective_settings_fill_gaps_from_model_retry() -> None:
    fallback = ModelRetryPolicy(max_attempts=5, initial_delay=0.1, max_delay=3.0, backoff=4.0)
    effective = EffectiveRetry.of(ModelRetrySettings(backoff={"jitter": False}), fallback)
    assert (effective.max_retries, effective.initial_delay, effective.max_delay) == (4, 0.1, 3.0)
    assert [effective.backoff(n) for n in (1, 2, 3, 4)] == pytest.approx([0.1, 0.4, 1.6, 3.0])
    jittered = EffectiveRetry.of(ModelRetrySettings(backoff={"jitter": True}), fallback)
    assert all(0.075 <= jittered.backoff(1) <= 0.125 for _ in range(50))
    assert all(jittered.backoff(9) <= 3.0 for _ in range(50))  # capped after the jitter
    assert EffectiveRetry.of(ModelRetrySettings(max_retries=0), fallback).max_retries == 0


async def test_decide_retry_keeps_the_budget_and_aborts() -> None:
    retry = EffectiveRetry.of(
        ModelRetrySettings(max_retries=1, policy=lambda _: True, backoff={"jitter": False}),
        ModelRetryPolicy(initial_delay=0.3),
    )

    async def go(error: Exception, attempt: int) -> RetryDecision:
        return await decide_retry(
            retry,
            error=error,
            attempt=attempt,
            stream=False,
            previous_response_id=None,
            conversation_id=None,
            advise=lambda _: None,
        )

    first = await go(RuntimeError("x"), 1)
    assert (first.retry, first.delay) == (True, 0.3)
    assert not (await go(RuntimeError("x"), 2)).retry
    try:
        try:
            raise asyncio.CancelledError
        except asyncio.CancelledError as cancelled:
            raise RuntimeError("aborted") from cancelled
    except RuntimeError as aborted:
        assert not (await go(aborted, 1)).retry
