"""The attempts of one model call: whether and when to retry (``ModelSettings.retry``, else
``RunConfig.model_retry``), what the run's views are told while the call waits, the first event
limit of a streamed attempt, and the line the call ends with when it fails.

Everything here happens once per attempt, never per event.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from .. import retry
from ..errors import ModelTimeoutError
from ..model_settings import ModelSettings, ModelTimeout
from ..model_wait import ModelWait
from ..retry import (
    EffectiveRetry,
    ModelRetryPolicy,
    advice_source,
    decide_retry,
    describe_error,
    retry_delay,
)
from .model_errors import explain_failure

if TYPE_CHECKING:
    from .progress import RunProgress

__all__ = ["Attempts", "FirstEvent"]

logger = logging.getLogger("jupyter_agents")


class FirstEvent:
    """The first event limit of one streamed attempt: when nothing came in ``seconds``, the
    task waiting for it is cancelled, and ``timed_out`` tells that cancellation from any
    other (what ``asyncio.timeout`` does, which Python 3.10 lacks)."""

    __slots__ = ("_cancelling", "_handle", "_task", "fired", "seconds")

    def __init__(self, seconds: float) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("FirstEvent needs a running task")
        self._task = task
        self.seconds = seconds
        self.fired = False
        cancelling = getattr(task, "cancelling", None)  # Python 3.11+
        self._cancelling: int = cancelling() if cancelling is not None else 0
        self._handle = asyncio.get_running_loop().call_later(seconds, self._fire)

    def _fire(self) -> None:
        self.fired = True
        self._task.cancel()

    def close(self) -> None:
        """The limit is off (the first event came, or the attempt ended)."""
        self._handle.cancel()

    def timed_out(self) -> bool:
        """Whether the ``CancelledError`` being handled is this limit's (then it is taken
        back); False: the run was cancelled from outside."""
        self._handle.cancel()
        if not self.fired:
            return False
        uncancel = getattr(self._task, "uncancel", None)
        if uncancel is None:  # Python 3.10: two cancellations cannot be told apart
            return True
        return bool(uncancel() <= self._cancelling)


class Attempts:
    """The attempts of one model call, from the first to the one that answers or fails."""

    def __init__(
        self,
        progress: RunProgress,
        model: Any,
        settings: ModelSettings,
        fallback: ModelRetryPolicy,
        server_state: tuple[str | None, str | None],
    ) -> None:
        """Start the call: its wait is published on ``progress`` until ``answered``.

        ``server_state``: the call's ``previous_response_id`` and ``conversation_id``.
        """
        self.progress, self.model, self.settings = progress, model, settings
        self.fallback, self.server_state = fallback, server_state
        self.limits = ModelTimeout.of(settings.timeout)
        self.failures: list[str] = []
        self.first: FirstEvent | None = None
        self.wait = ModelWait(model, self._most(), time.monotonic(), attempt=0)
        progress.model_wait = self.wait

    def _most(self) -> int:
        """Attempts the call may take in all."""
        retry_settings = self.settings.retry
        if retry_settings is None:
            return self.fallback.max_attempts
        if retry_settings.max_retries is not None:
            return retry_settings.max_retries + 1
        return max(self.fallback.max_attempts, 1)

    def next(self, stream: bool = False) -> int:
        """Start the next attempt (a streamed one with its first event limit); its number."""
        self.wait.attempt += 1
        if stream:
            self.first = FirstEvent(self.limits.first_event)
        return self.wait.attempt

    def end_attempt(self) -> None:
        """The attempt is over: its first event limit is off."""
        if self.first is not None:
            self.first.close()

    def answered(self) -> None:
        """The answer started (or the call ended): the wait and the first event limit are off."""
        if self.first is not None:
            self.first.close()
        if self.progress.model_wait is self.wait:
            self.progress.model_wait = None

    def timed_out(self) -> ModelTimeoutError | None:
        """The error of an attempt whose first event limit cancelled it; None when the
        cancellation came from outside (the run was stopped)."""
        if self.first is None or not self.first.timed_out():
            return None
        return ModelTimeoutError(self.first.seconds)

    def explain(self, error: BaseException) -> None:
        """Put the server and what to change in ``error``'s message (the call ends with it)."""
        explain_failure(error, self.model, self.wait.attempt, self.limits)

    async def failed(self, error: Exception, *, stream: bool = False) -> None:
        """Wait before the next attempt, or re-raise ``error`` (noting what was tried)."""
        if self.first is not None:
            self.first.close()
        failures = self.failures
        failures.append(describe_error(error))
        delay, reason = await self._delay(error, self.wait.attempt, stream)
        if delay is None:
            if len(failures) > 1:
                _note(error, f"model call failed {len(failures)} times: " + "; ".join(failures))
            self.explain(error)
            raise error
        why = f"; {reason}" if reason and reason != str(error) else ""
        logger.info("model call failed (%s); retrying in %.2f s%s", failures[-1], delay, why)
        await retry.wait(delay)

    async def _delay(
        self, error: Exception, attempt: int, stream: bool
    ) -> tuple[float | None, str | None]:
        """Seconds before attempt ``attempt + 1`` and why, or None: no retry.

        The resolved ``ModelSettings.retry`` decides when set (its unset fields taken from
        ``RunConfig.model_retry``); otherwise ``RunConfig.model_retry`` alone.
        """
        fallback, settings = self.fallback, self.settings.retry
        if settings is None:
            if attempt >= fallback.max_attempts or not fallback.is_retryable(error):
                return None, None
            return retry_delay(fallback, attempt, error), None
        previous_response_id, conversation_id = self.server_state
        decision = await decide_retry(
            EffectiveRetry.of(settings, fallback),
            error=error,
            attempt=attempt,
            stream=stream,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            advise=advice_source(self.model),
        )
        return (decision.delay or 0.0, decision.reason) if decision.retry else (None, None)


def _note(error: Exception, text: str) -> None:
    add_note = getattr(error, "add_note", None)
    if add_note is not None:  # Python 3.11+
        add_note(text)
    else:
        error.retry_history = text  # type: ignore[attr-defined]
