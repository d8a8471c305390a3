"""Staying under a provider's limits: requests and tokens per minute, and a concurrency that
backs off when the provider answers 429 and grows back as calls succeed.

Retries are the run's own (``RunConfig.model_retry``, which honours ``Retry-After``): the batch
adds no second retry layer, it only watches the 429s go by to slow down."""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ..lifecycle import RunHooks
from ..retry import ModelRetryPolicy

__all__ = ["AdaptiveConcurrency", "RateLimiter", "WatchedRetry"]


class AdaptiveConcurrency:
    """How many rows run at once: at most ``maximum``; halved on a 429 (not below 1), and
    grown by one after ``grow_after`` successes in a row."""

    def __init__(self, maximum: int, grow_after: int = 8) -> None:
        self.maximum = maximum
        self.limit = maximum
        self.grow_after = grow_after
        self.rate_limited = 0
        """How many 429s were seen."""
        self._successes = 0
        self._last_cut = 0.0

    def on_rate_limited(self) -> None:
        self.rate_limited += 1
        now = time.monotonic()
        if now - self._last_cut > 1.0:  # one cut per burst of 429s
            self.limit = max(1, self.limit // 2)
            self._last_cut = now
        self._successes = 0

    def on_success(self) -> None:
        self._successes += 1
        if self._successes >= self.grow_after and self.limit < self.maximum:
            self.limit += 1
            self._successes = 0


class RateLimiter(RunHooks[Any]):
    """Run hooks that hold each model request until it fits in ``rpm`` requests and ``tpm``
    tokens per minute (a sliding minute; tokens are counted when answers arrive)."""

    def __init__(self, rpm: int | None = None, tpm: int | None = None) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self._requests: collections.deque[float] = collections.deque()
        self._tokens: collections.deque[tuple[float, int]] = collections.deque()
        self._token_sum = 0
        self._lock = asyncio.Lock()

    async def on_llm_start(
        self, context: Any, agent: Any, system_prompt: Any, input_items: Any
    ) -> None:
        await self.request()

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        usage = getattr(response, "usage", None)
        self.used(int(getattr(usage, "total_tokens", 0) or 0))

    async def request(self) -> None:
        """Wait until one more model request fits, and count it."""
        if self.rpm is None and self.tpm is None:
            return
        async with self._lock:  # one at a time, so a burst cannot overshoot
            while True:
                delay = self._delay(time.monotonic())
                if delay <= 0:
                    break
                await asyncio.sleep(delay)
            self._requests.append(time.monotonic())

    def used(self, tokens: int) -> None:
        """Count ``tokens`` an answer used."""
        if self.tpm is None:
            return
        self._tokens.append((time.monotonic(), tokens))
        self._token_sum += tokens

    def _delay(self, now: float) -> float:
        """Seconds until one more request fits."""
        minute_ago = now - 60.0
        while self._requests and self._requests[0] <= minute_ago:
            self._requests.popleft()
        while self._tokens and self._tokens[0][0] <= minute_ago:
            self._token_sum -= self._tokens.popleft()[1]
        waits = [0.0]
        if self.rpm is not None and len(self._requests) >= self.rpm:
            waits.append(self._requests[len(self._requests) - self.rpm] + 60.0 - now)
        if self.tpm is not None and self._token_sum >= self.tpm and self._tokens:
            excess, drop_until = self._token_sum - self.tpm, self._tokens[0][0]
            for stamp, tokens in self._tokens:  # until enough old tokens leave the minute
                excess -= tokens
                drop_until = stamp
                if excess < 0:
                    break
            waits.append(drop_until + 60.0 - now)
        return max(waits)


@dataclass(frozen=True)
class WatchedRetry(ModelRetryPolicy):
    """The run's retry policy, telling ``on_rate_limited`` about every 429 it sees."""

    on_rate_limited: Callable[[], None] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def around(cls, base: ModelRetryPolicy, on_rate_limited: Callable[[], None]) -> WatchedRetry:
        """``base``'s settings, watched."""
        settings = {f.name: getattr(base, f.name) for f in fields(ModelRetryPolicy)}
        return cls(**settings, on_rate_limited=on_rate_limited)

    def is_retryable(self, error: BaseException) -> bool:
        if getattr(error, "status_code", None) == 429 and self.on_rate_limited is not None:
            self.on_rate_limited()
        return super().is_retryable(error)
