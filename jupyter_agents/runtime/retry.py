"""Retrying model calls on rate limits, server errors and timeouts."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import random
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias, Union

from .errors import UserError

__all__ = [
    "ModelRetryAdvice",
    "ModelRetryBackoffSettings",
    "ModelRetryNormalizedError",
    "ModelRetryPolicy",
    "ModelRetrySettings",
    "RetryDecision",
    "RetryPolicy",
    "RetryPolicyContext",
    "decide",
    "describe_error",
    "normalize_error",
    "provider_advice",
    "retry_delay",
    "retry_policies",
]

_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class ModelRetryPolicy:
    """How model calls are retried (``RunConfig.model_retry``).

    A call is retried on HTTP 408/409/429/5xx, timeouts and connection errors, with exponential
    backoff and jitter, honouring the server's ``Retry-After``. A streamed call is never retried
    once part of the answer was delivered.
    """

    max_attempts: int = 3
    """Attempts in all (1 disables retries)."""

    initial_delay: float = 0.5
    """Seconds before the first retry."""

    max_delay: float = 20.0
    """Upper bound on one wait (``Retry-After`` included)."""

    backoff: float = 2.0
    """Factor between successive waits."""

    jitter: float = 0.25
    """Random spread of each wait, as a fraction of it."""

    def is_retryable(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another attempt."""
        status = getattr(error, "status_code", None)
        if isinstance(status, int):
            return status in _RETRYABLE_STATUS
        names = {cls.__name__ for cls in type(error).__mro__}
        return bool(names & {"APITimeoutError", "APIConnectionError", "TimeoutError"})


def _retry_after(error: BaseException) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is not None:
            try:
                return float(value) * scale
            except ValueError:
                return None
    return None


def retry_delay(policy: ModelRetryPolicy, attempt: int, error: BaseException) -> float:
    """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
    server = _retry_after(error)
    if server is not None:
        return min(max(server, 0.0), policy.max_delay)
    base = min(policy.initial_delay * policy.backoff ** (attempt - 1), policy.max_delay)
    return max(0.0, base * (1 + random.uniform(-policy.jitter, policy.jitter)))


def describe_error(error: BaseException) -> str:
    """A short description of one failed attempt."""
    status = getattr(error, "status_code", None)
    prefix = f"HTTP {status}" if isinstance(status, int) else type(error).__name__
    message = str(getattr(error, "message", None) or error)
    return f"{prefix}: {message[:120]}"


# -- the SDK's composable retry settings (ModelSettings.retry) ---------------------------------

DEFAULT_INITIAL_DELAY = 0.25
DEFAULT_MAX_DELAY = 2.0
DEFAULT_MULTIPLIER = 2.0


@dataclass(frozen=True)
class ModelRetryBackoffSettings:
    """The waits between retries when a policy does not say how long (``ModelRetrySettings``)."""

    initial_delay: float | None = None
    """Seconds before the first retry (default 0.25)."""

    max_delay: float | None = None
    """Upper bound on one wait (default 2)."""

    multiplier: float | None = None
    """Factor between successive waits (default 2)."""

    jitter: bool | None = None
    """Spread each wait randomly by up to ±25% (default True)."""

    def to_json_dict(self) -> dict[str, Any]:
        """The settings as a JSON-compatible dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ModelRetrySettings:
    """Retries of failed model calls, per agent or run (``ModelSettings(retry=...)``).

    Nothing is retried unless ``policy`` says so, at most ``max_retries`` times after the first
    attempt. When set, it replaces ``RunConfig.model_retry`` for the calls it applies to.
    """

    max_retries: int | None = None
    """Retries allowed after the first attempt (None or 0: none)."""

    backoff: ModelRetryBackoffSettings | dict[str, Any] | None = None
    """Waits when the policy gives no delay (a dict of the same fields works too)."""

    policy: RetryPolicy | None = field(default=None, repr=False, compare=False)
    """Decides each retry (see :data:`retry_policies`); not part of ``to_json_dict``."""

    def __post_init__(self) -> None:
        if self.max_retries is not None and (
            not isinstance(self.max_retries, int) or self.max_retries < 0
        ):
            raise UserError(f"max_retries must be an int >= 0, got {self.max_retries!r}.")
        if isinstance(self.backoff, dict):
            try:
                object.__setattr__(self, "backoff", ModelRetryBackoffSettings(**self.backoff))
            except TypeError as e:
                raise UserError(f"ModelRetrySettings backoff: {e}") from None
        if self.policy is not None and not callable(self.policy):
            raise UserError("ModelRetrySettings policy must be callable (see retry_policies).")

    def to_json_dict(self) -> dict[str, Any]:
        """The settings without the policy, as a JSON-compatible dict."""
        backoff = self.backoff
        return {
            "max_retries": self.max_retries,
            "backoff": backoff.to_json_dict()
            if isinstance(backoff, ModelRetryBackoffSettings)
            else None,
        }

    def delay(self, retry: int) -> float:
        """The backoff wait before retry number ``retry`` (from 1)."""
        backoff = self.backoff if isinstance(self.backoff, ModelRetryBackoffSettings) else None
        b = backoff or ModelRetryBackoffSettings()
        initial = DEFAULT_INITIAL_DELAY if b.initial_delay is None else b.initial_delay
        ceiling = DEFAULT_MAX_DELAY if b.max_delay is None else b.max_delay
        factor = DEFAULT_MULTIPLIER if b.multiplier is None else b.multiplier
        wait = min(initial * factor ** (retry - 1), ceiling)
        if b.jitter is not False:
            wait *= 1 + random.uniform(-0.25, 0.25)
        return max(0.0, wait)


@dataclass
class ModelRetryNormalizedError:
    """What a retry policy may want to know of a failed call, read off the error."""

    status_code: int | None = None
    """The HTTP status, when the server answered."""

    error_code: str | None = None
    """The API's error code, e.g. ``"rate_limit_exceeded"``."""

    message: str | None = None
    """The error's message."""

    request_id: str | None = None
    """The server's request id (``x-request-id``)."""

    retry_after: float | None = None
    """Seconds the server asked to wait (``Retry-After`` / ``retry-after-ms``)."""

    is_abort: bool = False
    """The call was cancelled."""

    is_network_error: bool = False
    """The connection failed before an answer."""

    is_timeout: bool = False
    """The call timed out."""


@dataclass
class ModelRetryAdvice:
    """What the model's provider suggests about retrying a failed call."""

    suggested: bool | None = None
    """Retry (True), do not (False), or no opinion (None)."""

    retry_after: float | None = None
    """Seconds to wait, when the provider says."""

    reason: str | None = None
    """Why, for logs."""

    normalized: ModelRetryNormalizedError | None = None
    """The error's facts."""


@dataclass
class RetryDecision:
    """A retry policy's answer, when more than yes or no."""

    retry: bool
    """Retry the call."""

    delay: float | None = None
    """Seconds to wait first (None: the settings' backoff)."""

    reason: str | None = None
    """Why, for logs."""

    approve_unsafe_replay: bool = False
    """Also retry a call that continues server-side state (``previous_response_id`` or
    ``conversation_id``), which is not retried otherwise: the server may have stored part of
    the failed call."""


@dataclass
class RetryPolicyContext:
    """What a retry policy gets for one failed call."""

    error: Exception
    """The error."""

    attempt: int
    """The attempt that failed (from 1)."""

    max_retries: int
    """Retries allowed in all."""

    stream: bool
    """Whether the call was streamed (nothing of it had arrived yet)."""

    normalized: ModelRetryNormalizedError
    """The error's facts."""

    provider_advice: ModelRetryAdvice | None = None
    """The provider's suggestion."""

    previous_response_id: str | None = None
    """The call's ``previous_response_id``."""

    conversation_id: str | None = None
    """The call's ``conversation_id``."""


RetryPolicy: TypeAlias = Callable[
    [RetryPolicyContext], Union[bool, RetryDecision, Awaitable[Union[bool, RetryDecision]]]
]
"""``(context) -> bool | RetryDecision`` (sync or async): whether to retry a failed call."""


def normalize_error(error: BaseException) -> ModelRetryNormalizedError:
    """The facts of ``error`` (an ``openai`` error or any exception)."""
    status = getattr(error, "status_code", None)
    names = {cls.__name__ for cls in type(error).__mro__}
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    return ModelRetryNormalizedError(
        status_code=status if isinstance(status, int) else None,
        error_code=getattr(error, "code", None)
        if isinstance(getattr(error, "code", None), str)
        else None,
        message=str(getattr(error, "message", None) or error),
        request_id=headers.get("x-request-id") if headers is not None else None,
        retry_after=_retry_after(error),
        is_abort=isinstance(error, asyncio.CancelledError),
        is_network_error="APIConnectionError" in names and "APITimeoutError" not in names,
        is_timeout=bool(names & {"APITimeoutError", "TimeoutError"}),
    )


def provider_advice(
    error: BaseException, normalized: ModelRetryNormalizedError
) -> ModelRetryAdvice:
    """The OpenAI API's suggestion: its ``x-should-retry`` header, else the usual rule (408,
    409, 429, 5xx, timeouts and connection errors are worth another attempt)."""
    headers = getattr(getattr(error, "response", None), "headers", None)
    header = headers.get("x-should-retry") if headers is not None else None
    if header in ("true", "false"):
        suggested = header == "true"
        reason = f"x-should-retry: {header}"
    else:
        suggested = ModelRetryPolicy().is_retryable(error)
        reason = describe_error(error)
    return ModelRetryAdvice(suggested, normalized.retry_after, reason, normalized)


async def decide(policy: RetryPolicy, context: RetryPolicyContext) -> RetryDecision:
    """Ask ``policy`` about one failed call."""
    answer = policy(context)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer if isinstance(answer, RetryDecision) else RetryDecision(retry=bool(answer))


class _RetryPolicies:
    """Building blocks for ``ModelRetrySettings(policy=...)``, combined with ``any`` / ``all``."""

    def never(self) -> RetryPolicy:
        """Never retry."""
        return lambda context: False

    def provider_suggested(self) -> RetryPolicy:
        """Retry when the provider suggests it (after the delay it asks for)."""

        def policy(context: RetryPolicyContext) -> bool | RetryDecision:
            advice = context.provider_advice
            if advice is None or not advice.suggested:
                return False
            return RetryDecision(True, advice.retry_after, advice.reason)

        return policy

    def network_error(self) -> RetryPolicy:
        """Retry connection errors and timeouts."""
        return lambda context: context.normalized.is_network_error or context.normalized.is_timeout

    def retry_after(self) -> RetryPolicy:
        """Retry when the server said how long to wait, after that wait."""

        def policy(context: RetryPolicyContext) -> bool | RetryDecision:
            delay = context.normalized.retry_after
            if delay is None and context.provider_advice is not None:
                delay = context.provider_advice.retry_after
            return False if delay is None else RetryDecision(True, delay)

        return policy

    def http_status(self, statuses: Iterable[int]) -> RetryPolicy:
        """Retry these HTTP statuses."""
        allowed = frozenset(statuses)
        return lambda context: context.normalized.status_code in allowed

    def any(self, *policies: RetryPolicy) -> RetryPolicy:
        """Retry when one policy says so (the first that does decides the delay)."""

        async def policy(context: RetryPolicyContext) -> RetryDecision:
            last = RetryDecision(False)
            for each in policies:
                decision = await decide(each, context)
                if decision.retry:
                    return decision
                last = decision
            return last

        return policy

    def all(self, *policies: RetryPolicy) -> RetryPolicy:
        """Retry only when every policy says so (the last delay given wins)."""

        async def policy(context: RetryPolicyContext) -> RetryDecision:
            if not policies:
                return RetryDecision(False)
            merged = RetryDecision(True)
            for each in policies:
                decision = await decide(each, context)
                if not decision.retry:
                    return decision
                merged.delay = decision.delay if decision.delay is not None else merged.delay
                merged.reason = decision.reason or merged.reason
                merged.approve_unsafe_replay |= decision.approve_unsafe_replay
            return merged

        return policy


retry_policies = _RetryPolicies()
"""The SDK's retry policy helpers: ``never``, ``provider_suggested``, ``network_error``,
``retry_after``, ``http_status(statuses)``, ``any(*policies)`` and ``all(*policies)``."""
