"""What a retry policy is given and what it answers (the OpenAI Agents SDK's names)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, Union

__all__ = [
    "ModelRetryAdvice",
    "ModelRetryAdviceRequest",
    "ModelRetryNormalizedError",
    "RetryDecision",
    "RetryPolicy",
    "RetryPolicyContext",
]


@dataclass
class ModelRetryNormalizedError:
    """The facts of a failed model call a policy usually needs, whatever the provider."""

    status_code: int | None = None
    """The HTTP status, when the server answered."""

    error_code: str | None = None
    """The provider's error code (``error.code`` of an OpenAI error body)."""

    message: str | None = None
    """The error's text."""

    request_id: str | None = None
    """The provider's request id, when it sent one."""

    retry_after: float | None = None
    """Seconds the server asked to wait (``retry-after-ms`` or ``Retry-After``)."""

    is_abort: bool = False
    """The call was cancelled: never retried."""

    is_network_error: bool = False
    """The connection failed or broke (a timeout counts too)."""

    is_timeout: bool = False
    """The request timed out."""


@dataclass
class ModelRetryAdvice:
    """What the provider says about retrying one failure.

    The run asks the model's ``get_retry_advice(request)`` when the model has that method, and
    otherwise derives the advice from the error as the OpenAI API means it: ``x-should-retry``,
    then connection errors and timeouts, then HTTP 408/409/429/5xx.
    """

    suggested: bool | None = None
    """True: retry; False: do not (a veto in ``retry_policies.any``/``all``); None: no view."""

    retry_after: float | None = None
    """Seconds the provider asks to wait."""

    replay_safety: Literal["safe", "unsafe"] | str | None = None
    """``"safe"``: sending the request again cannot repeat work; ``"unsafe"``: it might."""

    reason: str | None = None
    """Why, for logs and the policy."""

    normalized: ModelRetryNormalizedError | None = None
    """The provider's own reading of the error: the fields it sets (not None, not False)
    replace the run's; it can report an abort but not clear one."""

    response_started: bool = False
    """The provider had begun sending the response when the call failed."""


@dataclass
class ModelRetryAdviceRequest:
    """What a model's ``get_retry_advice`` is asked about."""

    error: Exception
    attempt: int
    """The failed attempt, counting from 1."""

    stream: bool
    previous_response_id: str | None = None
    conversation_id: str | None = None


_Veto = Literal["provider", "replay"]


@dataclass
class RetryDecision:
    """A policy's answer when a bare True/False is not enough.

    ``delay`` replaces the backoff (and any ``Retry-After``) for this retry; ``reason`` is
    logged. ``approve_unsafe_replay`` is a separate, explicit consent to send again a request
    the provider marked replay-unsafe (a non-streamed call only); ``retry=True`` alone never
    gives it.
    """

    retry: bool
    delay: float | None = None
    reason: str | None = None
    approve_unsafe_replay: bool = False
    # Set only by retry_policies.provider_suggested(), read by any()/all() and the run:
    _veto: _Veto | None = field(default=None, init=False, repr=False, compare=False)
    _provider_safe: bool = field(default=False, init=False, repr=False, compare=False)


@dataclass(frozen=True)
class _ProviderFacts:
    suggested: bool | None
    replay_safety: str
    response_started: bool


@dataclass
class RetryPolicyContext:
    """What a retry policy is called with, once per failed attempt."""

    error: Exception
    """The exception of the failed attempt, as raised."""

    attempt: int
    """The failed attempt, counting from 1 (so the retry would be attempt ``attempt + 1``)."""

    max_retries: int
    """Retries allowed after the first attempt."""

    stream: bool
    """Whether the call was streamed."""

    normalized: ModelRetryNormalizedError
    """The error's facts (status, retry-after, network error, timeout, abort, ...)."""

    provider_advice: ModelRetryAdvice | None = None
    """The provider's advice, if it has any."""

    previous_response_id: str | None = None
    conversation_id: str | None = None
    _facts: _ProviderFacts = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Read once: a policy that edits provider_advice cannot change what the run enforces.
        advice = self.provider_advice
        safety = advice.replay_safety if advice is not None else None
        self._facts = _ProviderFacts(
            suggested=advice.suggested if advice is not None else None,
            replay_safety=safety if safety in ("safe", "unsafe") else "unknown",
            response_started=bool(advice.response_started) if advice is not None else False,
        )

    @property
    def replay_safety(self) -> str:
        """``"safe"``, ``"unsafe"`` or ``"unknown"``, as the provider said."""
        return self._facts.replay_safety

    @property
    def response_started(self) -> bool:
        """Whether the provider had begun sending the response."""
        return self._facts.response_started

    @property
    def stateful_request(self) -> bool:
        """Whether the request continued server-side state (``previous_response_id`` or
        ``conversation_id``): such a retry needs the provider's word that it is safe."""
        return bool(self.previous_response_id or self.conversation_id)


RetryPolicy: TypeAlias = Callable[
    [RetryPolicyContext],
    Union[bool, RetryDecision, Awaitable[Union[bool, RetryDecision]]],
]
"""Decides whether a failed model call is retried: ``True``/``False`` or a ``RetryDecision``,
returned directly or awaited."""
