"""Calling a tool as an MCP task (the 2025-11-25 revision), for ``MCPServer.call_tool``.

When a server says it runs tool calls as tasks (its ``tasks.requests.tools.call`` capability)
and the tool says it may run as one (``execution.taskSupport``: ``optional`` or ``required``),
the call is sent task-augmented: the server answers at once with a task, and the client polls
``tasks/get`` at the server's interval (bounded, see ``task_wire``), shows the task's status
message and progress on the call's card, and fetches ``tasks/result`` once it ended. While the
task waits for input (``input_required``) the client asks ``tasks/result`` at once: the server's
questions come through that request, to the call's asker. Stop, the run's timer, the call's
own limit or a failure sends ``tasks/cancel``. A connection that drops is opened again (at most
``MAX_RECONNECTS`` times in a row) and the same task polled: the tool never runs twice.

The ``mcp`` SDK (2.3) has no tasks: ``ClientSession.call_tool`` checks a ``tools/call`` answer
against the plain result and refuses a task, so these requests go through the session's
dispatcher, stamped as the session stamps its own (``raw_request``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import uuid4

from mcp import ClientSession
from mcp import types as mcp_types
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..errors import MCPServerError
from .task_wire import (
    MAX_POLL_SECONDS,
    MIN_POLL_SECONDS,
    TaskAnswerError,
    TaskState,
    created_task,
    read_task,
    result_problem,
    shown,
)
from .untrusted import first_problem, printable

__all__ = ["MAX_RECONNECTS", "Progress", "RawSend", "TaskCall", "raw_request"]

logger = logging.getLogger("jupyter_agents.mcp")

T = TypeVar("T")

MAX_RECONNECTS = 5
"""Requests of one task that may fail in a row (each opening the connection again) before
the call fails."""
TOKEN_PREFIX = "jupyter-agents-task-"
"""Progress tokens of task calls start so (the server's session routes them to the call)."""

Progress = Callable[[float, float | None, str | None], None]
"""``(done, total, message)``: how far the call has got, for its card."""

RawSend = Callable[[str, str, dict[str, Any], float], Awaitable[dict[str, Any]]]
"""``(what, method, params, timeout) -> answer``: one request on the server's session (started
again when it went away). Raises ``MCPServerError`` when the connection failed or the time ran
out, ``MCPError`` for the server's own error answer."""


async def raw_request(
    session: ClientSession, method: str, params: dict[str, Any], timeout: float
) -> dict[str, Any]:
    """Send one request and return the server's answer unchecked (see the module)."""
    data: dict[str, Any] = {"method": method, "params": params}
    options: CallOptions = {"timeout": timeout}
    session._stamp(data, options)
    return await session._dispatcher.send_raw_request(method, data["params"], options)


@dataclass
class TaskCall:
    """One call of ``tool`` on ``server`` as a task (see the module)."""

    server: str
    """The server's name (for messages)."""
    tool: str
    """The tool's own name on its server."""
    send: RawSend
    """How a request reaches the server."""
    error: Callable[[str], MCPServerError]
    """Makes the call's error (with the end of the server's stderr)."""
    session_timeout: float
    """Seconds ``tasks/get`` and ``tasks/cancel`` may take."""
    on_progress: Progress | None = None
    """Where the task's progress and status messages go (on the background loop)."""
    routes: dict[str, Progress] = field(default_factory=dict)
    """The server's progress routes: this call's token is in it while the call runs."""
    _state: TaskState | None = field(default=None, init=False)
    """The task as last described, while it may still need cancelling."""
    _progress: tuple[float, float | None, str | None] = field(default=(0.0, None, None), init=False)
    """What the card shows: done, total and the latest message."""

    async def run(
        self, arguments: dict[str, Any], meta: dict[str, Any] | None, limit: float
    ) -> mcp_types.CallToolResult:
        """Create the task, follow it to its end and return its result, within ``limit``
        seconds (``math.inf``: no limit)."""
        token = f"{TOKEN_PREFIX}{uuid4().hex}"
        params = {
            "name": self.tool,
            "arguments": arguments,
            "task": _task_param(limit),
            "_meta": {**(meta or {}), "progressToken": token},
        }
        self.routes[token] = self._on_progress
        try:
            answer = await self.send(f"tool {self.tool!r}", "tools/call", params, limit)
            task = self._checked(lambda: created_task(answer))
            if task is None:  # the server ran the call at once
                return self._result(answer)
            return await self._follow(task, limit)
        finally:
            self.routes.pop(token, None)

    async def _follow(self, task: TaskState, limit: float) -> mcp_types.CallToolResult:
        self._state = task
        try:
            return await asyncio.wait_for(self._until_done(), None if math.isinf(limit) else limit)
        except asyncio.TimeoutError:
            await self._cancel()
            raise self.error(
                f"MCP server {self.server!r} did not answer tool {self.tool!r} within "
                f"{limit:g} s; its task was cancelled."
            ) from None
        except BaseException:  # Stop, the run's own timer, a failure: the task is not wanted
            await self._cancel()
            raise

    async def _until_done(self) -> mcp_types.CallToolResult:
        state = self._state
        assert state is not None
        while not state.terminal:
            self._show(state)
            if state.status == "input_required":  # its questions come through tasks/result
                answer = await self._result_when_done(state)
                if answer is not None:
                    return answer
            else:
                await asyncio.sleep(state.poll_seconds)
            state = await self._poll(state)
        self._show(state)
        if state.status == "cancelled":
            said = f": {state.message}" if state.message else ""
            raise self.error(
                f"MCP server {self.server!r} cancelled the task of tool {self.tool!r}{said}."
            )
        return await self._fetch(state)

    async def _poll(self, state: TaskState) -> TaskState:
        try:
            answer = await self._again("its task", "tasks/get", {"taskId": state.task_id})
        except MCPError as e:
            raise self.error(
                f"MCP server {self.server!r} no longer knows the task of tool {self.tool!r} "
                f"({shown(e.message, 120)}); it may have restarted, and the tool may or may not "
                "have run."
            ) from None
        self._state = self._checked(lambda: read_task(answer, state.task_id))
        return self._state

    async def _result_when_done(self, state: TaskState) -> mcp_types.CallToolResult | None:
        """``tasks/result`` while the task waits for input: it answers when the task ended
        (its questions asked meanwhile); None when it failed, to poll again."""
        try:
            answer = await self._again("its task's result", "tasks/result", _named(state), math.inf)
        except MCPError:
            await asyncio.sleep(state.poll_seconds)  # not yet: poll, without spinning
            return None
        return self._finish(state, answer)

    async def _fetch(self, state: TaskState) -> mcp_types.CallToolResult:
        try:
            answer = await self._again("its task's result", "tasks/result", _named(state), math.inf)
        except MCPError as e:  # a failed task's error
            said = printable(e.message, keep_newlines=False)[:2_000]
            text = said or f"The task of tool {self.tool!r} {state.status}."
            block = mcp_types.TextContent(type="text", text=text)
            return mcp_types.CallToolResult(content=[block], is_error=True)
        return self._finish(state, answer)

    def _finish(self, state: TaskState, answer: dict[str, Any]) -> mcp_types.CallToolResult:
        self._state = None  # the server gave its result: nothing left to cancel
        problem = result_problem(answer, state.task_id)
        if problem is not None:
            raise self.error(
                f"MCP server {self.server!r} answered the task of tool {self.tool!r} with "
                f"{problem}; the call was stopped."
            )
        return self._result(answer)

    async def _again(
        self, what: str, method: str, params: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        """``send``, opening the connection again when it failed (up to ``MAX_RECONNECTS``
        times in a row, waiting longer each time); the server's own error answer is raised."""
        delay, failures = MIN_POLL_SECONDS, 0
        while True:
            try:
                return await self.send(what, method, params, timeout or self.session_timeout)
            except MCPServerError as e:
                failures += 1
                if failures > MAX_RECONNECTS:
                    raise
                logger.info("MCP server %r: %s; trying again in %g s", self.server, e, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_POLL_SECONDS)

    async def _cancel(self) -> None:
        """Ask the server to cancel the task, unless it ended (at most the session's timeout;
        a failure is only logged: the call ends anyway)."""
        state = self._state
        if state is None or state.terminal:
            return
        self._state = None
        try:
            await asyncio.wait_for(
                self.send(
                    "its task's cancellation", "tasks/cancel", _named(state), self.session_timeout
                ),
                self.session_timeout + 1,
            )
        except (Exception, asyncio.TimeoutError) as e:
            logger.info(
                "MCP server %r: could not cancel task %s: %s", self.server, shown(state.task_id), e
            )

    def _checked(self, read: Callable[[], T]) -> T:
        try:
            return read()
        except TaskAnswerError as e:
            raise self.error(
                f"MCP server {self.server!r} answered the task of tool {self.tool!r} with {e}; "
                "the call was stopped."
            ) from None

    def _result(self, answer: dict[str, Any]) -> mcp_types.CallToolResult:
        try:
            return mcp_types.CallToolResult.model_validate(answer, by_name=False)
        except ValidationError as e:
            raise self.error(
                f"MCP server {self.server!r} answered tool {self.tool!r} with something that is "
                f"not valid MCP ({first_problem(e)}); its author has to fix that."
            ) from None

    def _on_progress(self, done: float, total: float | None, message: str | None) -> None:
        self._progress = (done, total, message or self._progress[2])
        self._report()

    def _show(self, state: TaskState) -> None:
        if state.message is not None and state.message != self._progress[2]:
            self._progress = (self._progress[0], self._progress[1], state.message)
            self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(*self._progress)


def _named(state: TaskState) -> dict[str, Any]:
    return {"taskId": state.task_id}


def _task_param(limit: float) -> dict[str, Any]:
    """The ``task`` of the call: keep it for the call's time and five minutes more (a day at
    most; the server's default without a limit)."""
    if math.isinf(limit):
        return {}
    return {"ttl": int(min(limit + 300, 24 * 3600) * 1000)}
