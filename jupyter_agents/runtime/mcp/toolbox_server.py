"""Tools offered to other agents as a Streamable HTTP MCP server.

The server listens on 127.0.0.1 only and wants a bearer token (random unless given) on every
request; browsers from other origins are refused (DNS-rebinding protection). Each call runs
through the run loop (``run_one_call``) under the ``run_config`` given (the run-wide
approval policy, sandbox, workspace and network of ``%agent policy``), so a tool that needs
approval asks, through the ``approval_handler`` given, before it runs; without one such calls
are refused. Any tool the run executes can be served: function tools, class-based tools,
shells. Every tool may be called as a task (``served_tasks``): a client that asks for one gets
it at once and polls for the result, so a call longer than its requests' timeout ends well.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types as mcp_types

from ..approvals import ApprovalDecision, ApprovalHandler
from ..background_loop import run_on_background_loop
from ..errors import UserError
from ..run_config import RunConfig
from ..tools.base_tool import one_line_tool_error
from ..tools.kinds import ToolCapabilities, kind_for_tool
from ..tools.live_output import tool_progress_sink
from .one_call import CallOutcome, run_one_call
from .served_questions import ClientQuestions, served_client
from .served_tasks import ServedTask, ServedTasks, TaskServer

__all__ = ["ToolboxServer"]

logger = logging.getLogger("jupyter_agents.mcp")

CallRunner = Callable[[Any, dict[str, Any]], Awaitable[CallOutcome]]
"""``(tool, arguments) -> outcome``: how a call is run (the notebook shows it in a card)."""

RunConfigSource = RunConfig | Callable[[], RunConfig | None] | None
"""A run config, or a function giving the current one at each call (a policy that changes)."""


def _refuse(request: Any) -> ApprovalDecision:
    return ApprovalDecision.reject(
        f"Tool {request.tool_name!r} needs approval and nobody is there to give it."
    )


class ToolboxServer:
    """Serve ``tools`` (a list, or a function returning the current list) over MCP.

    ``start()`` returns once it listens; ``url`` and ``token`` are what a client needs
    (``client_config`` gives both in the common JSON form). ``stop()`` ends it.
    """

    def __init__(
        self,
        tools: list[Any] | Callable[[], list[Any]],
        *,
        name: str = "notebook",
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        approval_handler: ApprovalHandler | None = None,
        run_call: CallRunner | None = None,
        run_config: RunConfigSource = None,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise UserError(
                f"ToolboxServer listens on this machine only (127.0.0.1); got host={host!r}."
            )
        self._tools = tools
        self.name = name
        self.host = host
        self.port = port
        self.token = token or secrets.token_urlsafe(32)
        """The bearer token clients must send (``Authorization: Bearer <token>``)."""
        self.approval_handler = approval_handler or _refuse
        self._run_call = run_call
        self.run_config = run_config
        """What each call runs under (a ``RunConfig`` or a function returning one); used by
        the built-in call runner (a ``run_call`` of your own passes its own)."""
        self.on_stop: Callable[[], None] | None = None
        """Called once the server stopped (the notebook ends its view)."""
        self._uvicorn: Any = None
        self._task: asyncio.Task[None] | None = None
        self.calls = 0
        """How many calls were answered."""
        self.tasks = ServedTasks(self._run_task)
        """The calls run as tasks."""

    # -- public --------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint."""
        return f"http://{self.host}:{self.port}/mcp"

    @property
    def headers(self) -> dict[str, str]:
        """The headers a client sends."""
        return {"Authorization": f"Bearer {self.token}"}

    def client_config(self) -> dict[str, Any]:
        """``{"mcpServers": {name: {"url", "headers"}}}``, the form many MCP clients read."""
        return {"mcpServers": {self.name: {"url": self.url, "headers": self.headers}}}

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, timeout: float = 10.0) -> ToolboxServer:
        """Start listening (on the background loop); returns self."""
        if not self.running:
            run_on_background_loop(self._start(), timeout)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop listening and end open sessions."""
        if self._task is not None:
            run_on_background_loop(self._stop(), timeout)
            if self.on_stop is not None:
                self.on_stop()

    def __enter__(self) -> ToolboxServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<ToolboxServer {self.url} ({'running' if self.running else 'stopped'})>"

    # -- MCP -------------------------------------------------------------------------------

    def tools(self) -> list[Any]:
        """The tools offered now."""
        return list(self._tools() if callable(self._tools) else self._tools)

    def current_run_config(self) -> RunConfig | None:
        """The run config a call made now runs under."""
        source = self.run_config
        return source() if callable(source) else source

    async def _list_tools(self, ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        listed = []
        may_be_a_task = mcp_types.ToolExecution(task_support="optional")
        for tool in sorted(self.tools(), key=lambda t: t.name):
            description, schema = _offered(tool)
            listed.append(
                mcp_types.Tool(
                    name=tool.name,
                    description=description,
                    input_schema=schema,
                    execution=may_be_a_task,
                )
            )
        return mcp_types.ListToolsResult(tools=listed)

    async def _call_tool(self, ctx: Any, params: Any) -> mcp_types.CallToolResult:
        arguments = dict(params.arguments or {})
        return await self._answer(params.name, arguments, ClientQuestions.of_request(ctx))

    async def _run_task(
        self, name: str, arguments: dict[str, Any], task: ServedTask, questions: ClientQuestions
    ) -> mcp_types.CallToolResult:
        """A call run as ``task``: the tool's progress reports become its status message."""
        reporting = tool_progress_sink.set(task.progress)
        try:
            return await self._answer(name, arguments, questions)
        finally:
            tool_progress_sink.reset(reporting)

    async def _answer(
        self, name: str, arguments: dict[str, Any], questions: ClientQuestions
    ) -> mcp_types.CallToolResult:
        """Run one call of the tool called ``name``; its questions go to ``questions``."""
        tool = next((t for t in self.tools() if t.name == name), None)
        if tool is None:
            names = ", ".join(sorted(t.name for t in self.tools())) or "none"
            return _error(f"No tool named {name!r}; the tools are: {names}.")
        runner = self._run_call or self._run_here
        token = served_client.set(questions)  # its questions go to this client
        try:
            outcome = await runner(tool, arguments)
        except Exception as e:  # a tool set to raise, a policy error: the client is told
            logger.info("served call of %r raised %r", tool.name, e)
            outcome = CallOutcome(one_line_tool_error(_Named(tool.name), e), "error")
        finally:
            served_client.reset(token)
        self.calls += 1
        return _result(outcome)

    async def _run_here(self, tool: Any, arguments: dict[str, Any]) -> CallOutcome:
        return await run_one_call(
            tool,
            arguments,
            approval_handler=self.approval_handler,
            run_config=self.current_run_config(),
        )

    # -- on the background loop --------------------------------------------------------------

    async def _start(self) -> None:
        import uvicorn

        server = TaskServer(self.name, on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self.tasks.install(server)
        app = _BearerGate(server.streamable_http_app(host=self.host), self.token)
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as e:
            sock.close()
            raise UserError(f"Cannot listen on {self.host}:{self.port}: {e.strerror}.") from None
        sock.listen(64)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self._uvicorn = uvicorn.Server(config)
        self._uvicorn.install_signal_handlers = lambda: None  # not the main thread
        self._task = asyncio.create_task(self._uvicorn.serve(sockets=[sock]))
        while not self._uvicorn.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise UserError("The MCP toolbox server stopped while starting.")
            await asyncio.sleep(0.01)

    async def _stop(self) -> None:
        self.tasks.cancel_all()
        server, task = self._uvicorn, self._task
        if server is None or task is None:
            return
        server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(task), 5)
        except asyncio.TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._task = None


class _BearerGate:
    """ASGI middleware: HTTP requests without the right bearer token get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong token"})
                return
        await self.app(scope, receive, send)


class _Named:
    """Stands in for a tool context where only the tool's name is known."""

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name


def _offered(tool: ToolCapabilities) -> tuple[str, dict[str, Any]]:
    """The description and input schema clients see: the tool's function form (a shell's
    ``commands``...), else its own schema."""
    kind = kind_for_tool(tool)
    form = kind.chat_param(tool) if kind is not None else None
    function = form.get("function") if isinstance(form, dict) else None
    if isinstance(function, dict) and isinstance(function.get("parameters"), dict):
        return str(function.get("description") or ""), dict(function["parameters"])
    schema = tool.params_json_schema or {"type": "object"}
    return tool.description or "", schema


def _error(text: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)], is_error=True
    )


def _result(outcome: CallOutcome) -> mcp_types.CallToolResult:
    """The MCP result for a call's model-form output (text and images)."""
    content: list[Any] = []
    output = outcome.output
    parts = output if isinstance(output, list) else [{"type": "input_text", "text": str(output)}]
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "input_image" and str(part.get("image_url", "")).startswith("data:"):
            header, _, data = str(part["image_url"]).partition(",")
            mime = header[5:].split(";")[0]
            try:
                base64.b64decode(data, validate=True)
            except ValueError:
                continue
            content.append(mcp_types.ImageContent(type="image", data=data, mime_type=mime))
        elif kind == "input_text":
            content.append(mcp_types.TextContent(type="text", text=str(part.get("text", ""))))
        elif isinstance(part, dict):
            content.append(mcp_types.TextContent(type="text", text=str(part)))
    return mcp_types.CallToolResult(content=content, is_error=outcome.status != "ok")
