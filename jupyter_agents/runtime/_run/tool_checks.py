"""How one tool call ended (``Outcome``), its time limit, the tool guardrails, and the
run's rewording of what the model is told."""

from __future__ import annotations

import asyncio
import itertools
import logging
import sys
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._util import call_maybe_async
from ..errors import ToolInputGuardrailTripwireTriggered, ToolOutputGuardrailTripwireTriggered
from ..items import ToolError, ToolStatus
from ..tool_guardrails import (
    ToolInputGuardrailData,
    ToolInputGuardrailResult,
    ToolOutputGuardrailData,
    ToolOutputGuardrailResult,
)

if TYPE_CHECKING:
    from ..agent import Agent
    from ..context import ToolContext
    from ..run_config import ToolErrorFormatter, ToolErrorFormatterArgs
    from ..tools.kinds import LocalTool

logger = logging.getLogger("jupyter_agents")

__all__ = [
    "Outcome",
    "Watchdog",
    "check_input",
    "check_output",
    "reworded",
    "run_with_timeout",
    "watchdog",
]


@dataclass(frozen=True)
class Outcome:
    """What a call produced: the value the model sees, and how the call ended."""

    value: Any
    status: ToolStatus = "ok"
    error: ToolError | None = None

    @classmethod
    def failed(cls, message: str, kind: str) -> Outcome:
        """An error the run itself found (bad arguments, unknown tool): the model is told."""
        return cls(message, "error", ToolError(kind, message))


async def check_input(
    results: list[ToolInputGuardrailResult],
    agent: Agent[Any],
    tool: LocalTool,
    ctx: ToolContext[Any],
) -> str | None:
    """Tool input guardrails (their outcomes go to ``results``): a message replacing the call,
    or None to run it."""
    for guard in tool.tool_input_guardrails:
        result = await guard.run(ToolInputGuardrailData(context=ctx, agent=agent))
        results.append(ToolInputGuardrailResult(guard, result))
        if result.kind == "raise_exception":
            raise ToolInputGuardrailTripwireTriggered(guard, result)
        if result.kind == "reject_content":
            return result.message or f"The call to tool {tool.name!r} was blocked."
    return None


async def check_output(
    results: list[ToolOutputGuardrailResult],
    agent: Agent[Any],
    tool: LocalTool,
    ctx: ToolContext[Any],
    outcome: Outcome,
) -> Outcome:
    """Tool output guardrails (their outcomes go to ``results``): the output the model sees."""
    value = outcome.value
    for guard in tool.tool_output_guardrails:
        data = ToolOutputGuardrailData(context=ctx, agent=agent, output=value)
        result = await guard.run(data)
        results.append(ToolOutputGuardrailResult(guard, result))
        if result.kind == "raise_exception":
            raise ToolOutputGuardrailTripwireTriggered(guard, result)
        if result.kind == "reject_content":
            withheld = result.message or f"The output of tool {tool.name!r} was withheld."
            return Outcome(withheld, "blocked")
        if result.replacement is not None:
            value = result.replacement
    return Outcome(value)


if sys.version_info >= (3, 11):

    async def run_with_timeout(awaitable: Awaitable[Any], seconds: float) -> tuple[bool, Any]:
        """``(True, value)``, or ``(False, None)`` when ``seconds`` passed first (the awaitable
        is then cancelled). Costs one timer, no extra task; a ``TimeoutError`` the awaitable
        raises itself passes through."""
        limit = asyncio.timeout(seconds)
        try:
            async with limit:
                return True, await awaitable
        except TimeoutError:
            if limit.expired():
                return False, None
            raise

else:  # pragma: no cover - Python 3.10

    async def run_with_timeout(awaitable: Awaitable[Any], seconds: float) -> tuple[bool, Any]:
        """``(True, value)``, or ``(False, None)`` when ``seconds`` passed first."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            return True, await asyncio.wait_for(awaitable, seconds)
        except asyncio.TimeoutError:
            if loop.time() - started < seconds:
                raise  # the awaitable's own TimeoutError
            return False, None


class Watchdog:
    """The run-wide default tool timeout, cheaply: one coarse timer for every running call on an
    event loop (checked every ``tick`` seconds while calls run) instead of one timer per call.
    Used for long default limits, where half a second of slack does not matter; a tool's own
    ``timeout`` gets a precise per-call timer (``run_with_timeout``)."""

    def __init__(self, tick: float = 0.5) -> None:
        self.tick = tick
        self._running: dict[int, list[Any]] = {}
        self._ids = itertools.count()
        self._handle: asyncio.TimerHandle | None = None

    async def run(self, awaitable: Awaitable[Any], seconds: float) -> tuple[bool, Any]:
        """Like ``run_with_timeout``."""
        task = asyncio.current_task()
        if task is None or not hasattr(task, "uncancel"):  # Python 3.10
            return await run_with_timeout(awaitable, seconds)
        loop = asyncio.get_running_loop()
        key = next(self._ids)
        entry = [loop.time() + seconds, task, False]  # deadline, task, timed out
        self._running[key] = entry
        if self._handle is None:
            self._handle = loop.call_later(self.tick, self._check, loop)
        try:
            value = await awaitable
        except asyncio.CancelledError:
            if entry[2]:
                task.uncancel()  # our cancellation: the call ran out of time
                return False, None
            raise
        finally:
            del self._running[key]
        if entry[2]:  # the tool swallowed our cancellation and returned anyway
            task.uncancel()
        return True, value

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self._handle = None
        now = loop.time()
        for entry in list(self._running.values()):
            if not entry[2] and entry[0] <= now:
                entry[2] = True
                entry[1].cancel()
        if self._running:
            self._handle = loop.call_later(self.tick, self._check, loop)


_watchdogs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Watchdog] = (
    weakref.WeakKeyDictionary()
)


def watchdog() -> Watchdog:
    """The running event loop's watchdog (one per loop, shared by its runs)."""
    loop = asyncio.get_running_loop()
    found = _watchdogs.get(loop)
    if found is None:
        found = _watchdogs[loop] = Watchdog()
    return found


async def reworded(formatter: ToolErrorFormatter | None, args: ToolErrorFormatterArgs) -> str:
    """``args.default_message``, or what ``RunConfig.tool_error_formatter`` says instead; the
    default when it returns None, something other than a string, or fails."""
    default = args.default_message
    if formatter is None:
        return default
    try:
        told = await call_maybe_async(formatter, args)
    except Exception:
        logger.exception("tool_error_formatter failed; the model gets the default message")
        return default
    if told is None:
        return default
    if not isinstance(told, str):
        logger.error(
            "tool_error_formatter returned %s, not a str; the model gets the default message",
            type(told).__name__,
        )
        return default
    return told
