"""``RunConfig.model_retry``: the run-wide retry rule of model calls (rate limits, server errors,
timeouts), used whenever the resolved ``ModelSettings`` has no ``retry``."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["ModelRetryPolicy", "describe_error", "retry_delay"]

_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_RETRYABLE_ERRORS = frozenset(
    {"APITimeoutError", "APIConnectionError", "TimeoutError", "ModelTimeoutError"}
)


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
        return bool(names & _RETRYABLE_ERRORS)


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
