"""What every MCP server object shares: a session owned by one long-lived task.

The ``mcp`` SDK's sessions must be entered and left by one task (``._owner``), but a notebook
connects in one cell and closes in another, and a run may happen on any loop. So each server's
session lives in an owner task on the process's background loop
(``jupyter_agents.runtime.background_loop``), and every request is sent from that loop,
whichever loop or cell asks. A server that died is noticed before the next request and started
again; an ``atexit`` hook closes whatever is left, so no child process outlives us.
"""

from __future__ import annotations

import abc
import asyncio
import atexit
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union, cast

from mcp import ClientSession
from mcp import types as mcp_types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..background_loop import on_background_loop, run_on_background_loop
from ..errors import MCPServerError, UserError
from ..questions import asker
from ..run_config import DEFAULT_TOOL_TIMEOUT
from ..tools.function.function_tool import ToolErrorFunction, default_tool_error_function
from ._owner import SessionOwner, closed, describe
from .elicit import Elicitations
from .results import MAX_RESULT_CHARS
from .task_client import Progress, TaskCall, raw_request
from .untrusted import first_problem

if TYPE_CHECKING:
    from ..agent import Agent
    from ..context import RunContextWrapper
    from .filters import ToolFilter

__all__ = ["MCPServer", "MCPServerError", "RequireApproval"]

logger = logging.getLogger("jupyter_agents.mcp")

T = TypeVar("T")

RequireApproval = Union[
    Literal["always", "never", "destructive"],
    Mapping[str, Any],
    Callable[..., Union[bool, Awaitable[bool]]],
    None,
]
"""Which of a server's tools ask a person first: ``"always"``, ``"never"`` (or None),
``"destructive"`` (tools the server does not mark read-only or non-destructive), a mapping
``{tool_name: "always" | "never"}`` (or the SDK's ``{"always": {"tool_names": [...]},
"never": {...}}``), or a function ``(run_context, agent, tool) -> bool``."""

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_open_servers: weakref.WeakSet[MCPServer] = weakref.WeakSet()


class MCPServer(abc.ABC):
    """An MCP server the agent's tools come from (``Agent(mcp_servers=[...])``).

    Use ``async with server:`` or ``await server.connect()`` / ``await server.cleanup()``; they
    may be called from different cells or tasks. A server that is not connected when a run
    needs it is connected then. Subclasses give the transport.
    """

    def __init__(
        self,
        name: str,
        *,
        cache_tools_list: bool = False,
        client_session_timeout_seconds: float | None = 5.0,
        tool_filter: ToolFilter = None,
        require_approval: RequireApproval = None,
        use_structured_content: bool = False,
        max_retry_attempts: int = 0,
        retry_backoff_seconds_base: float = 1.0,
        message_handler: Callable[[Any], Awaitable[None]] | None = None,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        tool_timeout_seconds: float | None = None,
        max_result_chars: int | None = MAX_RESULT_CHARS,
        use_tasks: bool = True,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise UserError("An MCP server needs a non-empty name (name='...').")
        if max_retry_attempts < 0:
            raise UserError(f"MCP server {name!r}: max_retry_attempts must be 0 or more.")
        self._name = name
        self.cache_tools_list = cache_tools_list
        """Keep the tool list between runs until the server says it changed (or
        ``invalidate_tools_cache``)."""
        self.client_session_timeout_seconds = client_session_timeout_seconds
        """Seconds to wait for the server to start and for each answer other than a tool call."""
        self.tool_filter = tool_filter
        """Which tools the agent sees (see ``create_static_tool_filter``)."""
        self.require_approval = require_approval
        """Which tools ask a person first (see ``RequireApproval``)."""
        self.use_structured_content = use_structured_content
        """Give the model a tool's structured content (JSON) instead of its content blocks."""
        self.max_retry_attempts = max_retry_attempts
        """How often a failed tool call or listing is retried (with a reconnect when the
        server went away)."""
        self.retry_backoff_seconds_base = retry_backoff_seconds_base
        """Seconds before the first retry; doubled for each further one."""
        self.message_handler = message_handler
        """Also given every notification the server sends (and transport errors)."""
        self.failure_error_function = failure_error_function
        """Turns a failed call into the model's message; None makes the run raise."""
        self.tool_timeout_seconds = tool_timeout_seconds
        """Seconds a tool call may take (None: the run's ``tool_timeout``, 600 s outside a
        run); the session's ``client_session_timeout_seconds`` does not apply to calls."""
        self.max_result_chars = max_result_chars
        """Characters of a call's result the model gets (head and tail; None: all of it)."""
        self.use_tasks = use_tasks
        """Call the tools that may run as tasks as tasks, when the server runs calls as tasks
        (see ``task_client``): a long call then outlives any one request and a reconnect."""
        self._task_progress: dict[str, Progress] = {}
        """The progress tokens of the task calls in flight, and where their progress goes."""
        self._elicitations = Elicitations(name)
        """Answers the server's questions (``elicitation/create``) during a tool call."""
        self._owner: SessionOwner | None = None
        self._lock: asyncio.Lock | None = None
        self._tools: list[mcp_types.Tool] | None = None
        self._tools_stale = True
        self._converted: Any = None
        """The last tool conversion (see ``agent_tools``), reused while the list stands."""
        self.server_info: mcp_types.Implementation | None = None
        """Who the server says it is, once connected."""
        self.instructions: str | None = None
        """The server's instructions, once connected."""

    # -- what a transport gives ------------------------------------------------------------

    @abc.abstractmethod
    def _transport(self) -> AbstractAsyncContextManager[Any]:
        """The SDK's transport context manager, yielding the read and write streams."""

    def stderr_tail(self, max_lines: int = 40) -> str | None:
        """The end of the server's error output (stdio servers), or None."""
        return None

    # -- public ------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's name; its tools are called ``mcp__<name>__<tool>``."""
        return self._name

    @property
    def connected(self) -> bool:
        """Whether a session is open (the server may still have died since)."""
        return self._owner is not None and self._owner.session is not None

    async def connect(self) -> None:
        """Start the server (or open the connection) and initialise the session."""
        await on_background_loop(self._ensure_session())

    async def cleanup(self) -> None:
        """Close the session and stop the server; safe to call twice, from any cell."""
        await on_background_loop(self._close())

    async def __aenter__(self) -> MCPServer:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.cleanup()

    def invalidate_tools_cache(self) -> None:
        """Ask the server for its tools again next time."""
        self._tools_stale = True

    async def list_tools(
        self,
        run_context: RunContextWrapper[Any] | None = None,
        agent: Agent[Any] | None = None,
    ) -> list[mcp_types.Tool]:
        """The server's tools (filtered by ``tool_filter`` when a run context and agent are
        given), from the cache when ``cache_tools_list`` is on and nothing changed."""
        tools = await on_background_loop(self._list_tools())
        if self.tool_filter is None or run_context is None or agent is None:
            return list(tools)
        from .filters import filter_tools

        return await filter_tools(self, tools, run_context, agent)

    async def call_tool(
        self,
        tool_name: str,
        arguments: dict[str, Any] | None,
        meta: dict[str, Any] | None = None,
        on_progress: Callable[[float, float | None, str | None], None] | None = None,
        *,
        timeout_seconds: float | None = None,
    ) -> mcp_types.CallToolResult:
        """Call a tool (as a task when the server and the tool allow it, see ``use_tasks``);
        ``on_progress`` gets the server's progress notifications and a task's status messages
        (on the caller's loop). It may take ``timeout_seconds`` (``math.inf``: no limit), by
        default ``tool_timeout_seconds``, else the run's default tool timeout (600 s)."""
        limit = timeout_seconds
        if limit is None:
            limit = self.tool_timeout_seconds
        if limit is None:
            limit = DEFAULT_TOOL_TIMEOUT
        forward = None if on_progress is None else _on_this_loop(on_progress)
        with self._elicitations.asking(asker.get()):
            return await on_background_loop(
                self._call(tool_name, arguments or {}, meta, forward, limit)
            )

    async def list_resources(self) -> mcp_types.ListResourcesResult:
        """The server's resources."""
        return await on_background_loop(self._request("resources", lambda s: s.list_resources()))

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        """Read one resource."""
        return await on_background_loop(
            self._request(f"resource {uri!r}", lambda s: s.read_resource(uri))
        )

    async def list_prompts(self) -> mcp_types.ListPromptsResult:
        """The server's prompts."""
        return await on_background_loop(self._request("prompts", lambda s: s.list_prompts()))

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None
    ) -> mcp_types.GetPromptResult:
        """One prompt, filled with ``arguments``."""
        return await on_background_loop(
            self._request(f"prompt {name!r}", lambda s: s.get_prompt(name, arguments))
        )

    def __repr__(self) -> str:
        state = "connected" if self.connected else "not connected"
        return f"<{type(self).__name__} {self.name!r} ({state})>"

    # -- on the background loop ----------------------------------------------------------------

    async def _ensure_session(self) -> ClientSession:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            owner = self._owner
            if owner is not None and owner.session is not None and not closed(owner.session):
                return owner.session
            if owner is not None:
                logger.info("MCP server %r went away; starting it again", self.name)
                await self._stop_owner()
            return await self._start()

    async def _start(self) -> ClientSession:
        timeout = self.client_session_timeout_seconds
        owner = SessionOwner(
            self.name, self._transport, timeout, self._on_message, self._elicitations
        )
        try:
            session = await owner.start()
        except asyncio.TimeoutError:
            raise self._error(
                f"MCP server {self.name!r} did not start within {timeout:g} s "
                "(raise client_session_timeout_seconds if it is just slow)."
            ) from None
        except Exception as e:
            raise self._error(f"MCP server {self.name!r} could not start: {describe(e)}.") from None
        self.server_info = getattr(owner.initialized, "server_info", None)
        self.instructions = getattr(owner.initialized, "instructions", None)
        self._owner = owner
        self._tools_stale = True
        _open_servers.add(self)
        return session

    async def _stop_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            await owner.stop()

    async def _close(self) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            await self._stop_owner()
        _open_servers.discard(self)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_stale = True
        if isinstance(message, mcp_types.ProgressNotification):  # a task call's, after its answer
            token = message.params.progress_token
            route = self._task_progress.get(token) if isinstance(token, str) else None
            if route is not None:
                said = message.params
                route(said.progress, said.total, said.message)
        if self.message_handler is not None:
            try:
                await self.message_handler(message)
            except Exception:
                logger.exception("the message_handler of MCP server %r raised", self.name)

    async def _call(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        meta: dict[str, Any] | None,
        forward: Progress | None,
        limit: float,
    ) -> mcp_types.CallToolResult:
        """One call, as a task when both the server and the tool allow it."""
        if self._runs_as_task(tool_name, await self._ensure_session()):
            timeout = self.client_session_timeout_seconds
            task = TaskCall(
                self.name,
                tool_name,
                self._raw,
                self._error,
                timeout if timeout is not None else 30.0,  # a poll or a cancel must end
                forward,
                self._task_progress,
            )
            return await task.run(arguments, meta, limit)
        progress: Any = None
        if forward is not None:

            async def progress(done: float, total: float | None, message: str | None) -> None:
                forward(done, total, message)

        async def call(session: ClientSession) -> mcp_types.CallToolResult:
            result: mcp_types.CallToolResult = await session.call_tool(
                tool_name,
                arguments,
                read_timeout_seconds=limit,
                progress_callback=progress,
                meta=cast(Any, meta),
            )
            return result

        return await self._request(f"tool {tool_name!r}", call, limit=limit)

    def _runs_as_task(self, tool_name: str, session: ClientSession) -> bool:
        """Whether the server runs tool calls as tasks and its last listing lets this tool
        run as one (the specification's ``taskSupport``: ``optional`` or ``required``)."""
        capabilities = session.server_capabilities
        tasks = capabilities.tasks if capabilities is not None else None
        requests = tasks.requests if tasks is not None else None
        tools = requests.tools if requests is not None else None
        if not self.use_tasks or tools is None or tools.call is None:
            return False
        tool = next((t for t in self._tools or () if t.name == tool_name), None)
        execution = tool.execution if tool is not None else None
        return execution is not None and execution.task_support in ("optional", "required")

    async def _raw(
        self, what: str, method: str, params: dict[str, Any], timeout: float
    ) -> dict[str, Any]:
        """One request of a task call, its answer unchecked (``task_client`` checks it)."""
        return await self._request(
            what, lambda session: raw_request(session, method, params, timeout), limit=timeout
        )

    async def _list_tools(self) -> list[mcp_types.Tool]:
        if self.cache_tools_list and not self._tools_stale and self._tools is not None:
            return self._tools

        async def listing(session: ClientSession) -> list[mcp_types.Tool]:
            tools: list[mcp_types.Tool] = []
            cursor: str | None = None
            while True:
                params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools

        # Stale before asking: a change announced while the answer travels is not lost.
        self._tools_stale = False
        try:
            tools = await self._request("its tool list", listing, retries=1)
        except BaseException:
            self._tools_stale = True
            raise
        if tools != self._tools:
            self._tools = tools
            self._converted = None
        return tools

    async def _request(
        self,
        what: str,
        send: Callable[[ClientSession], Awaitable[T]],
        retries: int | None = None,
        limit: float | None = None,
    ) -> T:
        """Send one request, starting the server first when needed; a connection that closed
        is dropped (the next request starts the server again) and retried when allowed.
        ``limit`` is the seconds the request may take (None: the session's timeout)."""
        attempts = self.max_retry_attempts if retries is None else max(retries, 0)
        delay = self.retry_backoff_seconds_base
        for attempt in range(attempts + 1):
            session = await self._ensure_session()
            try:
                return await send(session)
            except MCPError as e:
                if e.code == _REQUEST_TIMEOUT:
                    seconds = limit if limit is not None else self.client_session_timeout_seconds
                    within = f"within {seconds:g} s" if seconds is not None else "in time"
                    error = self._error(f"MCP server {self.name!r} did not answer {what} {within}.")
                elif e.code == _CONNECTION_CLOSED:
                    await self._drop(session)
                    error = self._error(
                        f"MCP server {self.name!r} closed the connection while answering {what}; "
                        "it will be started again for the next call."
                    )
                else:
                    raise  # the server's own answer (an unknown tool, bad arguments, ...)
            except ValidationError as e:  # the connection is fine; the answer is not MCP
                raise self._error(
                    f"MCP server {self.name!r} answered {what} with something that is not valid "
                    f"MCP ({first_problem(e)}); its author has to fix that."
                ) from None
            except Exception as e:
                await self._drop(session)
                error = self._error(
                    f"MCP server {self.name!r} failed while answering {what}: {describe(e)}; "
                    "it will be started again for the next call."
                )
            if attempt < attempts:
                await asyncio.sleep(delay)
                delay *= 2
        raise error

    async def _drop(self, session: ClientSession) -> None:
        assert self._lock is not None
        async with self._lock:
            if self._owner is not None and self._owner.session is session:
                await self._stop_owner()

    def _error(self, message: str) -> MCPServerError:
        return MCPServerError(message, self.name, self.stderr_tail())


def _on_this_loop(on_progress: Progress) -> Progress:
    """``on_progress``, called on the caller's loop from whichever thread reports."""
    caller = asyncio.get_running_loop()

    def forward(done: float, total: float | None, message: str | None) -> None:
        caller.call_soon_threadsafe(on_progress, done, total, message)

    return forward


@atexit.register
def _close_all_servers() -> None:
    """Close every open server at interpreter exit (stdio children included)."""
    for server in list(_open_servers):
        try:
            run_on_background_loop(server._close(), timeout=5)
        except Exception:  # exiting anyway; the children see their stdin close
            pass
