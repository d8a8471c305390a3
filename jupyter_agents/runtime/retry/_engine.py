"""Deciding one retry under ``ModelSettings.retry``: budget, policy, replay safety, delay."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._errors import normalize_error, openai_retry_advice
from ._policies import evaluate_policy, retry_policies
from ._policy import ModelRetryPolicy
from ._settings import ModelRetrySettings
from ._types import (
    ModelRetryAdvice,
    ModelRetryAdviceRequest,
    RetryDecision,
    RetryPolicy,
    RetryPolicyContext,
)

__all__ = ["EffectiveRetry", "advice_source", "decide_retry", "wait"]

_DEFAULT_SPREAD = ModelRetryPolicy.jitter
_DEFAULT_POLICY = retry_policies.provider_suggested()

Advise = Callable[[ModelRetryAdviceRequest], ModelRetryAdvice | None]


@dataclass(frozen=True)
class EffectiveRetry:
    """``ModelRetrySettings`` with every unset field taken from ``RunConfig.model_retry``."""

    max_retries: int
    policy: RetryPolicy
    initial_delay: float
    max_delay: float
    multiplier: float
    spread: float
    """Jitter: each computed wait is scaled by a random factor in ``1 ± spread``."""

    @classmethod
    def of(cls, settings: ModelRetrySettings, fallback: ModelRetryPolicy) -> EffectiveRetry:
        backoff = settings.backoff_settings
        initial = backoff.initial_delay if backoff else None
        most = backoff.max_delay if backoff else None
        multiplier = backoff.multiplier if backoff else None
        jitter = backoff.jitter if backoff else None
        if jitter is None:
            spread = fallback.jitter
        else:
            spread = (fallback.jitter or _DEFAULT_SPREAD) if jitter else 0.0
        return cls(
            max_retries=(
                settings.max_retries
                if settings.max_retries is not None
                else max(fallback.max_attempts - 1, 0)
            ),
            policy=settings.policy if settings.policy is not None else _DEFAULT_POLICY,
            initial_delay=initial if initial is not None else fallback.initial_delay,
            max_delay=most if most is not None else fallback.max_delay,
            multiplier=multiplier if multiplier is not None else fallback.backoff,
            spread=spread,
        )

    def backoff(self, attempt: int) -> float:
        """The computed wait after failed attempt ``attempt`` (from 1), capped by max_delay."""
        base = min(self.initial_delay * self.multiplier ** (attempt - 1), self.max_delay)
        if self.spread:
            base *= 1 + random.uniform(-self.spread, self.spread)
        return min(max(base, 0.0), self.max_delay)


def advice_source(model: Any) -> Advise:
    """The model's own ``get_retry_advice`` if it has one, else the OpenAI API's rules."""
    method = getattr(model, "get_retry_advice", None)
    return method if callable(method) else openai_retry_advice


async def decide_retry(
    retry: EffectiveRetry,
    *,
    error: Exception,
    attempt: int,
    stream: bool,
    previous_response_id: str | None,
    conversation_id: str | None,
    advise: Advise,
) -> RetryDecision:
    """Whether failed attempt ``attempt`` is retried; a positive decision carries the delay.

    Called only for failures that delivered nothing of the answer (the run never retries a
    stream once part of it was delivered).
    """
    if attempt > retry.max_retries:
        return RetryDecision(retry=False, reason="no retries left")
    request = ModelRetryAdviceRequest(
        error=error,
        attempt=attempt,
        stream=stream,
        previous_response_id=previous_response_id,
        conversation_id=conversation_id,
    )
    advice = advise(request)
    normalized = normalize_error(error, advice)
    context = RetryPolicyContext(
        error=error,
        attempt=attempt,
        max_retries=retry.max_retries,
        stream=stream,
        normalized=normalized,
        provider_advice=advice,
        previous_response_id=previous_response_id,
        conversation_id=conversation_id,
    )
    provider_reason = advice.reason if advice is not None else None
    safety = context.replay_safety
    if normalized.is_abort or (stream and safety == "unsafe"):
        return RetryDecision(retry=False, reason=provider_reason)
    decision = await evaluate_policy(retry.policy, context)
    if not decision.retry:
        return decision
    reason = decision.reason or provider_reason
    approved = decision._provider_safe or safety == "safe"
    consented = decision.approve_unsafe_replay and safety == "unsafe"
    if context.stateful_request and not (approved or consented):
        return RetryDecision(retry=False, reason=reason or "stateful request, replay not safe")
    if safety == "unsafe" and not (decision._provider_safe or decision.approve_unsafe_replay):
        return RetryDecision(retry=False, reason=reason or "the provider said replay is unsafe")
    if decision.delay is not None:
        delay = decision.delay
    elif normalized.retry_after is not None:
        delay = normalized.retry_after
    else:
        delay = retry.backoff(attempt)
    return RetryDecision(retry=True, delay=max(delay, 0.0), reason=reason)


async def wait(delay: float) -> None:
    """The pause before a retry (tests replace it to record the delays)."""
    if delay > 0:
        await asyncio.sleep(delay)
