"""Reading a failed model call: the facts policies see and the OpenAI API's own retry advice.

Duck-typed on purpose (class names, ``status_code``, ``response.headers``): importing this
module loads neither ``openai`` nor ``httpx``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from dataclasses import fields
from email.utils import parsedate_to_datetime

from ._types import ModelRetryAdvice, ModelRetryAdviceRequest, ModelRetryNormalizedError

__all__ = ["normalize_error", "openai_retry_advice"]

_TIMEOUTS = frozenset({"APITimeoutError", "TimeoutException", "TimeoutError", "ModelTimeoutError"})
_NETWORK = _TIMEOUTS | {
    "APIConnectionError",
    "NetworkError",  # httpx: ConnectError, ReadError, WriteError, CloseError
    "RemoteProtocolError",
    "ConnectionError",
}
_ABORTS = frozenset({"CancelledError", "AbortError"})
_SUGGESTED_STATUS = frozenset({408, 409, 429})


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _names(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__}


def _any_named(error: BaseException, names: frozenset[str] | set[str]) -> bool:
    return any(_names(e) & names for e in _chain(error))


def header(error: BaseException, name: str) -> str | None:
    """A response header of ``error`` (or of an error it was raised from)."""
    for candidate in _chain(error):
        response = getattr(candidate, "response", None)
        for headers in (getattr(response, "headers", None), getattr(candidate, "headers", None)):
            if headers is None:
                continue
            value = headers.get(name) if hasattr(headers, "get") else None
            if value is None and isinstance(headers, Mapping):
                value = next((v for k, v in headers.items() if str(k).lower() == name), None)
            if isinstance(value, str):
                return value
    return None


def retry_after(error: BaseException) -> float | None:
    """Seconds the server asked to wait: ``retry-after-ms``, else ``Retry-After`` (seconds or an
    HTTP date)."""
    millis = _number(header(error, "retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = header(error, "retry-after")
    seconds = _number(value)
    if seconds is not None or value is None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and number >= 0 else None


def _status(error: BaseException) -> int | None:
    for candidate in _chain(error):
        for name in ("status_code", "status"):
            value = getattr(candidate, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def _error_code(error: BaseException) -> str | None:
    for candidate in _chain(error):
        code = getattr(candidate, "code", None)
        if isinstance(code, str):
            return code
        body = getattr(candidate, "body", None)
        if isinstance(body, Mapping):
            inner = body.get("error")
            code = inner.get("code") if isinstance(inner, Mapping) else body.get("code")
            if isinstance(code, str):
                return code
    return None


def _request_id(error: BaseException) -> str | None:
    for candidate in _chain(error):
        value = getattr(candidate, "request_id", None)
        if isinstance(value, str):
            return value
    return None


def _facts(error: BaseException) -> ModelRetryNormalizedError:
    timeout = _any_named(error, _TIMEOUTS)
    # A client timeout is often a cancellation inside (anyio cancels the read): not an abort.
    cancelled = any(isinstance(e, asyncio.CancelledError) for e in _chain(error))
    return ModelRetryNormalizedError(
        status_code=_status(error),
        error_code=_error_code(error),
        message=str(getattr(error, "message", None) or error),
        request_id=_request_id(error),
        retry_after=retry_after(error),
        is_abort=not timeout and (cancelled or _any_named(error, _ABORTS)),
        is_network_error=_any_named(error, _NETWORK),
        is_timeout=timeout,
    )


def normalize_error(
    error: BaseException, advice: ModelRetryAdvice | None
) -> ModelRetryNormalizedError:
    """The facts of ``error``, with what the provider's advice adds."""
    facts = _facts(error)
    if advice is None:
        return facts
    if advice.retry_after is not None:
        facts.retry_after = advice.retry_after
    given = advice.normalized
    if given is not None:
        for f in fields(given):
            value = getattr(given, f.name)
            if value is not None and value is not False:
                setattr(facts, f.name, value)  # is_abort can be added, never cleared
    return facts


def openai_retry_advice(request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
    """The OpenAI API's view of one failure (for models without ``get_retry_advice``).

    ``x-should-retry: true``/``false`` decides and marks the replay safe or not; otherwise a
    connection error or timeout, or HTTP 408/409/429/5xx, is a suggested retry (safe to replay
    after an HTTP error status, which the server answered without doing the work).
    """
    error = request.error
    facts = _facts(error)
    reason = str(error)
    should = (header(error, "x-should-retry") or "").strip().lower()
    if should in ("true", "false"):
        retry = should == "true"
        return ModelRetryAdvice(
            suggested=retry,
            retry_after=facts.retry_after,
            replay_safety="safe" if retry else None,
            reason=reason,
            normalized=facts,
        )
    if facts.is_network_error or facts.is_timeout:
        return ModelRetryAdvice(
            suggested=True, retry_after=facts.retry_after, reason=reason, normalized=facts
        )
    status = facts.status_code
    if status is not None and (status in _SUGGESTED_STATUS or status >= 500):
        stateful = bool(request.previous_response_id or request.conversation_id)
        return ModelRetryAdvice(
            suggested=True,
            retry_after=facts.retry_after,
            replay_safety="safe" if stateful else None,
            reason=reason,
            normalized=facts,
        )
    if facts.retry_after is not None:
        return ModelRetryAdvice(retry_after=facts.retry_after, reason=reason, normalized=facts)
    return None
