"""Tool calls served as MCP tasks (the 2025-11-25 revision), for ``ToolboxServer``.

A client that sends ``tools/call`` with ``task`` gets a task at once, and the call runs in the
background (the same one-call run as a plain call: approvals, policy, the serving card). The
client asks ``tasks/get`` for its state (its status message follows the tool's progress
reports), ``tasks/result`` for its result (it waits for the end and carries the tool's questions
to the client meanwhile, the task being ``input_required``), ``tasks/cancel`` to stop it and
``tasks/list`` for all of them. A client that asks for no task gets the plain call. Tasks
belong to the server, not to one connection: a client that connects again (with the token)
polls the same task.

The ``mcp`` SDK (2.3) has no tasks: its server checks a ``tools/call`` answer against the plain
result, so a task-augmented call is answered by a middleware before that check, and the
``tasks/*`` methods are added as methods of our own.

Bounds (docs/security.md, "MCP tasks are bounded on both sides"): ids are 128 random bits, at
most ``MAX_WORKING`` tasks run at once and ``MAX_KEPT`` are kept, a lifetime is kept within a
minute and a day.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mcp import types as mcp_types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from .served_questions import ClientQuestions, answers_questions
from .task_wire import RELATED_TASK, TERMINAL, TaskStatus, served_ttl_ms, shown
from .untrusted import printable

__all__ = ["MAX_KEPT", "MAX_WORKING", "ServedTask", "ServedTasks", "TaskServer"]

MAX_WORKING = 16
"""Tasks that may run at once; a client asking for more is told to wait."""
MAX_KEPT = 128
"""Tasks kept, running or ended (the oldest ended are forgotten first)."""
MAX_MESSAGE_CHARS = 200
"""Characters of a task's status message."""

Question = tuple[str, dict[str, Any], "asyncio.Future[Any]"]
"""A question waiting for the client's ``tasks/result``: message, form, its answer."""

Report = Callable[[float, "float | None", str], None]
"""``(done, total, message)``: how far a call has got."""

Run = Callable[
    [str, dict[str, Any], "ServedTask", ClientQuestions], Awaitable[mcp_types.CallToolResult]
]
"""``(tool name, arguments, task, the client's questions) -> result``: runs the call."""


class TaskServer(Server[Any]):
    """The ``mcp`` SDK's low-level server, saying that it runs tool calls as tasks."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> mcp_types.ServerCapabilities:
        """The SDK's capabilities, and ``tasks`` (list, cancel, task-augmented tool calls)."""
        tasks = mcp_types.ServerTasksCapability(
            list=mcp_types.TasksListCapability(),
            cancel=mcp_types.TasksCancelCapability(),
            requests=mcp_types.ServerTasksRequestsCapability(
                tools=mcp_types.TasksToolsCapability(call=mcp_types.TasksCallCapability())
            ),
        )
        capabilities = super().get_capabilities(*args, **kwargs)
        return capabilities.model_copy(update={"tasks": tasks})


@dataclass
class ServedTask:
    """One call run as a task."""

    task_id: str
    """128 random bits, in hex."""
    tool: str
    """The tool's name."""
    ttl_ms: int
    """How long from its creation it is kept once it ended."""
    created: float = field(default_factory=time.time)
    """When it was created (seconds since the epoch)."""
    updated: float = field(default_factory=time.time)
    """When its status or message last changed."""
    status: TaskStatus = "working"
    """Where it is."""
    message: str | None = None
    """What it is doing (the tool's last progress report, or its question)."""
    result: mcp_types.CallToolResult | None = None
    """The call's result, once it ended (None when cancelled)."""
    work: asyncio.Task[None] | None = None
    """The call running in the background (on the server's loop)."""
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once it ended."""
    questions: asyncio.Queue[Question] = field(default_factory=asyncio.Queue)
    """Questions for the client, taken by its next ``tasks/result``."""
    notify: Report | None = None
    """Sends the client a progress notification on the token its call gave (any thread)."""

    @property
    def terminal(self) -> bool:
        """Whether it ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    def say(self, message: str | None) -> None:
        """Set the status message (from any thread)."""
        if message is not None:
            message = printable(message, keep_newlines=False)[:MAX_MESSAGE_CHARS]
        self.message, self.updated = message, time.time()

    def progress(self, call_id: str, done: float, total: float | None, message: str) -> None:
        """A ``tool_progress_sink``: the tool's reports become the status message."""
        of = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
        self.say(f"{message} ({of})" if message else of)
        if self.notify is not None:  # the same words as the status, so a card shows one line
            self.notify(done, total, self.message or "")

    def end(self, status: TaskStatus, result: mcp_types.CallToolResult | None) -> None:
        """The task ended (once: a cancelled task stays cancelled)."""
        if self.terminal:
            return
        self.status, self.result = status, result
        self.say(None if status != "cancelled" else "cancelled")
        self.ended.set()

    async def ask(self, message: str, form: dict[str, Any]) -> Any:
        """Put a question to the client through its next ``tasks/result``; its answer."""
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.status = "input_required"
        self.say(message)
        self.questions.put_nowait((message, form, answer))
        try:
            return await answer
        finally:
            if not self.terminal and self.questions.empty():
                self.status = "working"
                self.say(f"running {self.tool}")

    def wire(self) -> dict[str, Any]:
        """The task as ``tasks/get`` says it; polled less often as it grows older."""
        poll = min(max((time.time() - self.created) / 8, 0.25), 2.0)
        said = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(self.updated),
            "ttl": self.ttl_ms,
            "pollInterval": int(poll * 1000),
        }
        return {**said, "statusMessage": self.message} if self.message else said


class ServedTasks:
    """The tasks of one served toolbox (see the module)."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self._tasks: dict[str, ServedTask] = {}
        self._sending: set[asyncio.Task[None]] = set()
        """Progress notifications on their way (kept until sent)."""

    def install(self, server: Server[Any]) -> None:
        """Answer task-augmented calls and the ``tasks/*`` requests on ``server``."""
        server.middleware.append(self._intercept)
        server.add_request_handler("tasks/get", mcp_types.GetTaskRequestParams, self._get)
        server.add_request_handler(
            "tasks/result", mcp_types.GetTaskPayloadRequestParams, self._result
        )
        server.add_request_handler("tasks/cancel", mcp_types.CancelTaskRequestParams, self._cancel)
        server.add_request_handler("tasks/list", mcp_types.PaginatedRequestParams, self._list)

    def start(
        self,
        name: str,
        arguments: dict[str, Any],
        requested_ttl: object,
        can_answer: bool,
        notify: Report | None = None,
    ) -> ServedTask:
        """Start a call as a task (on the server's loop)."""
        self._forget_expired()
        if self.running >= MAX_WORKING:
            raise MCPError(
                code=mcp_types.INVALID_REQUEST,
                message=f"{MAX_WORKING} tasks are running already: wait for one to end, or "
                "cancel one.",
            )
        if len(self._tasks) >= MAX_KEPT:
            self._forget_oldest_ended()
        task = ServedTask(secrets.token_hex(16), name, served_ttl_ms(requested_ttl))
        task.notify = notify
        task.say(f"running {name}")
        questions = ClientQuestions(can_answer, task.ask)
        task.work = asyncio.create_task(self._work(task, arguments, questions), name="mcp task")
        self._tasks[task.task_id] = task
        return task

    @property
    def running(self) -> int:
        """How many tasks have not ended."""
        return sum(not task.terminal for task in self._tasks.values())

    def cancel_all(self) -> None:
        """Cancel every running task (the server stops)."""
        for task in self._tasks.values():
            if not task.terminal and task.work is not None:
                task.end("cancelled", None)
                task.work.cancel()

    async def _work(
        self, task: ServedTask, arguments: dict[str, Any], questions: ClientQuestions
    ) -> None:
        try:
            result = await self._run(task.tool, arguments, task, questions)
        except asyncio.CancelledError:
            task.end("cancelled", None)
            raise
        except Exception as e:  # the runner answers errors itself; this is a last guard
            text = printable(f"{type(e).__name__}: {e}", keep_newlines=False)[:2_000]
            block = mcp_types.TextContent(type="text", text=text)
            task.end("failed", mcp_types.CallToolResult(content=[block], is_error=True))
        else:
            task.end("failed" if result.is_error else "completed", result)

    async def _intercept(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A ``tools/call`` with ``task`` is answered here, at once, with its task."""
        params = ctx.params
        if (
            ctx.method != "tools/call"
            or not isinstance(params, Mapping)
            or params.get("task") is None
            or ctx.session.client_params is None  # not initialised: the SDK refuses it
        ):
            return await call_next(ctx)
        call = mcp_types.CallToolRequestParams.model_validate(params, by_name=False)
        requested = call.task.ttl if call.task is not None else None
        token = (call.meta or {}).get("progress_token")
        notify = None if token is None else self._notifier(ctx.session, token)
        can_answer = answers_questions(ctx.session)
        task = self.start(call.name, dict(call.arguments or {}), requested, can_answer, notify)
        return {"task": task.wire()}

    def _notifier(self, session: Any, token: str | int) -> Report:
        """Progress notifications on ``token`` to the client of ``session``, from any thread
        (sent on the server's loop; one the client can no longer get is dropped)."""
        loop = asyncio.get_running_loop()

        async def send(done: float, total: float | None, message: str) -> None:
            try:
                await session.send_progress_notification(token, done, total, message or None)
            except Exception:  # the client went away: it still polls the status message
                pass

        def sent(done: float, total: float | None, message: str) -> None:
            sending = loop.create_task(send(done, total, message))
            self._sending.add(sending)
            sending.add_done_callback(self._sending.discard)

        def report(done: float, total: float | None, message: str) -> None:
            loop.call_soon_threadsafe(sent, done, total, message)

        return report

    async def _get(self, ctx: Any, params: mcp_types.GetTaskRequestParams) -> dict[str, Any]:
        return self._find(params.task_id).wire()

    async def _list(self, ctx: Any, params: mcp_types.PaginatedRequestParams) -> dict[str, Any]:
        self._forget_expired()
        return {"tasks": [task.wire() for task in self._tasks.values()]}

    async def _cancel(self, ctx: Any, params: mcp_types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._find(params.task_id)
        if task.terminal:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"Task {task.task_id} is {task.status} already; it cannot be cancelled.",
            )
        task.end("cancelled", None)
        if task.work is not None:
            task.work.cancel()
        return task.wire()

    async def _result(
        self, ctx: ServerRequestContext[Any, Any], params: mcp_types.GetTaskPayloadRequestParams
    ) -> dict[str, Any]:
        """Wait for the task's end, carrying its questions to the client meanwhile."""
        task = self._find(params.task_id)
        while not task.terminal:
            question = await _next_question(task)
            if question is not None:
                await _carry(ctx, task, question)
        if task.result is None:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"Task {task.task_id} was cancelled; it has no result.",
            )
        answer = task.result.model_dump(by_alias=True, mode="json", exclude_none=True)
        answer.pop("resultType", None)  # the 2026 revision's field, not this one's
        meta = {**(answer.get("_meta") or {}), RELATED_TASK: {"taskId": task.task_id}}
        return {**answer, "_meta": meta}

    def _find(self, task_id: str) -> ServedTask:
        self._forget_expired()
        task = self._tasks.get(task_id)
        if task is None:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"No task {shown(task_id)} here: it never was, or it ended longer ago "
                "than its lifetime.",
            )
        return task

    def _forget_expired(self) -> None:
        now = time.time()
        for task_id, task in list(self._tasks.items()):
            if task.terminal and now > task.created + task.ttl_ms / 1000:
                del self._tasks[task_id]

    def _forget_oldest_ended(self) -> None:
        """Make room: there is always an ended task here, since fewer may run than be kept."""
        ended = [task for task in self._tasks.values() if task.terminal]
        if ended:
            del self._tasks[min(ended, key=lambda task: task.updated).task_id]


async def _next_question(task: ServedTask) -> Question | None:
    """The task's next question, or None once it ended (a question taken just as the request
    went away goes back for the next one)."""
    ended = asyncio.ensure_future(task.ended.wait())
    asked = asyncio.ensure_future(task.questions.get())
    try:
        await asyncio.wait({ended, asked}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        if asked.done() and not asked.cancelled():
            task.questions.put_nowait(asked.result())
        raise
    finally:
        ended.cancel()
        if not asked.done():
            asked.cancel()
    return asked.result() if asked.done() and not asked.cancelled() else None


async def _carry(ctx: ServerRequestContext[Any, Any], task: ServedTask, question: Question) -> None:
    """Ask the client ``question`` on its ``tasks/result`` request; a question the client could
    not be asked is cancelled (the tool's run skips it), one whose request went away waits for
    the next ``tasks/result``."""
    message, form, answer = question
    try:
        said = await ctx.session.elicit_form(
            message=message, requested_schema=form, related_request_id=ctx.request_id
        )
    except asyncio.CancelledError:
        task.questions.put_nowait(question)
        raise
    except Exception:
        said = mcp_types.ElicitResult(action="cancel")
    if not answer.done():
        answer.set_result(said)


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")
