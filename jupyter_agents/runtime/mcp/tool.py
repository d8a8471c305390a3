"""One MCP tool as the function tool the model calls: its approval rule, how a call reaches the
server, and how long it may take (the tool's ``timeout``, else the run's ``tool_timeout``; the
run's own timer stops it, the session's short read timeout does not). The server's answer
becomes the model's input in ``.results`` (capped, untrusted content named, not passed on).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import math
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from mcp import types as mcp_types

from ..errors import MCPToolCancellationError, MCPToolError, UserError
from ..run_config import DEFAULT_TOOL_TIMEOUT
from ..tools.function.function_tool import FunctionTool
from ..tools.kinds import ToolDisplay
from ..tools.live_output import progress_reporter, streamer
from ..tools.outputs import ToolOutputText
from .results import cap_text, model_output, printable

if TYPE_CHECKING:
    from ..agent import Agent
    from ..context import RunContextWrapper, ToolContext
    from .server import MCPServer

T = TypeVar("T")

__all__ = ["MCPTool", "MCPToolError", "annotation_badge", "model_output"]

MAX_DESCRIPTION_CHARS = 8_000
"""Characters of a tool's description the model gets (it is sent with every request)."""
MAX_PROGRESS_CHARS = 200
"""Characters of a progress message shown in the card."""
RUN_TIMER_GRACE = 2.0
"""Seconds the session waits for a call beyond the run's limit, so the run's own timer (exact,
or checked every half second) stops the call and tells the model, not the session."""


@dataclass
class MCPTool(FunctionTool):
    """A tool of an MCP server, offered to the model as a function tool named
    ``mcp__<server>__<tool>``."""

    server: MCPServer | None = field(default=None, repr=False)
    """The server the tool lives on."""
    mcp_tool: mcp_types.Tool | None = field(default=None, repr=False)
    """The server's description of the tool."""
    nullable_optional: frozenset[str] = frozenset()
    """Arguments that are optional on the server but sent as null in strict mode: a null one
    is left out of the call."""

    @property
    def server_name(self) -> str:
        return self.server.name if self.server is not None else ""

    @property
    def tool_name(self) -> str:
        """The tool's own name on its server."""
        return self.mcp_tool.name if self.mcp_tool is not None else self.name

    def describe_call(self, display: ToolDisplay) -> ToolDisplay:
        """The card's view: where the tool comes from and what it says of itself."""
        badge = annotation_badge(self.mcp_tool)
        return dataclasses.replace(
            display,
            origin=f"{printable(self.server_name, keep_newlines=False)} › "
            f"{printable(self.tool_name, keep_newlines=False)}",
            badge=badge or display.badge,
        )


def build_tool(
    server: MCPServer,
    tool: mcp_types.Tool,
    name: str,
    parameters: dict[str, Any],
    strict: bool,
    nullable_optional: frozenset[str],
    agent: Agent[Any] | None = None,
) -> MCPTool:
    """The function tool for ``tool`` of ``server``, called ``name`` by the model."""

    async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
        return await call(made, ctx, arguments)

    made = MCPTool(
        name=name,
        description=_description(server, tool),
        params_json_schema=parameters,
        on_invoke_tool=invoke,
        strict_json_schema=strict,
        needs_approval=_needs_approval(server, tool, agent),
        failure_error_function=server.failure_error_function,
        timeout=server.tool_timeout_seconds,
        server=server,
        mcp_tool=tool,
        nullable_optional=nullable_optional,
    )
    return made


def _description(server: MCPServer, tool: mcp_types.Tool) -> str:
    """What the model reads about the tool: the server's words, printable and capped."""
    text = tool.description or tool.title or f"{tool.name} (from MCP server {server.name})"
    return cap_text(printable(text), MAX_DESCRIPTION_CHARS)


async def call(tool: MCPTool, ctx: ToolContext[Any], arguments: str) -> Any:
    """Run one call on the server and turn its answer into the model's input."""
    assert tool.server is not None and tool.mcp_tool is not None
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError as e:
        raise UserError(f"The arguments are not valid JSON: {e}") from None
    if not isinstance(parsed, dict):
        raise UserError("The arguments must be a JSON object.")
    for key in tool.nullable_optional:
        if key in parsed and parsed[key] is None:
            del parsed[key]
    show = streamer(ctx.tool_call_id)
    report = progress_reporter(ctx.tool_call_id)

    def on_progress(done: float, total: float | None, message: str | None) -> None:
        if report is not None:  # a progress bar on the card
            report(done, total, printable(message or "", keep_newlines=False)[:MAX_PROGRESS_CHARS])
        elif show is not None:
            of = f"/{total:g}" if total is not None else ""
            said = printable(message or "", keep_newlines=False)
            if len(said) > MAX_PROGRESS_CHARS:
                said = said[: MAX_PROGRESS_CHARS - 1] + "…"
            show(f"[progress {done:g}{of}] {said}".rstrip() + "\n")

    result = await _cancellable(
        tool,
        tool.server.call_tool(
            tool.mcp_tool.name,
            parsed,
            on_progress=on_progress if show is not None or report is not None else None,
            timeout_seconds=_time_limit(tool, ctx),
        ),
    )
    server = tool.server
    output = model_output(result, server.use_structured_content, server.max_result_chars)
    if result.is_error:
        text = output if isinstance(output, str) else _text_of(output)
        raise MCPToolError(text or f"Tool {tool.mcp_tool.name!r} failed without a message.")
    return output


async def _cancellable(tool: MCPTool, request: Coroutine[Any, Any, T]) -> T:
    """``request``'s result; an ``MCPToolCancellationError`` when the request was cancelled
    inside the client or server (the run goes on, the model is told), while a cancellation of
    the run itself still cancels the request and the run."""
    task = asyncio.ensure_future(request)
    try:
        await asyncio.wait({task})
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise
    if task.cancelled():
        assert tool.server is not None and tool.mcp_tool is not None
        raise MCPToolCancellationError(
            f"Failed to call tool '{tool.mcp_tool.name}' on MCP server "
            f"'{tool.server.name}': tool execution was cancelled."
        )
    return task.result()


def _time_limit(tool: MCPTool, ctx: ToolContext[Any]) -> float:
    """How long the session waits for the call: the run's limit for it (the tool's own
    ``timeout``, else ``RunConfig.tool_timeout``; None is no limit) and a little more."""
    limit = tool.timeout
    if limit is None:
        run_config = getattr(ctx, "run_config", None)
        limit = run_config.tool_timeout if run_config is not None else DEFAULT_TOOL_TIMEOUT
    return math.inf if limit is None else limit + RUN_TIMER_GRACE


def _text_of(parts: Any) -> str:
    return "\n".join(p.text for p in parts if isinstance(p, ToolOutputText))


def annotation_badge(tool: mcp_types.Tool | None) -> str | None:
    """``read-only`` or ``destructive`` from the tool's annotations (hints from the server,
    shown to the person; only ``require_approval="destructive"`` acts on them)."""
    notes = tool.annotations if tool is not None else None
    if notes is None:
        return None
    if notes.read_only_hint:
        return "read-only"
    if notes.destructive_hint is False:
        return "additive"
    if notes.destructive_hint:
        return "destructive"
    return None


def _needs_approval(server: MCPServer, tool: mcp_types.Tool, agent: Agent[Any] | None) -> Any:
    rule = server.require_approval
    if rule is None or rule == "never":
        return False
    if rule == "always":
        return True
    if rule == "destructive":
        notes = tool.annotations
        # The MCP defaults: not read-only, and destructive unless it says otherwise.
        return not (notes is not None and (notes.read_only_hint or notes.destructive_hint is False))
    if isinstance(rule, Mapping):
        return _from_mapping(server, rule, tool.name)
    if callable(rule):

        async def decide(run_context: RunContextWrapper[Any], arguments: Any, call_id: str) -> bool:
            verdict = rule(run_context, agent, tool)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            return bool(verdict)

        return decide
    raise UserError(
        f"MCP server {server.name!r}: require_approval must be 'always', 'never', "
        f"'destructive', a mapping or a function, got {rule!r}."
    )


def _from_mapping(server: MCPServer, rule: Mapping[str, Any], name: str) -> bool:
    """``{tool: "always" | "never"}``, or the SDK's ``{"always": {"tool_names": [...]},
    "never": {"tool_names": [...]}}`` (tools in neither are not asked about)."""
    if set(rule) <= {"always", "never"} and all(isinstance(v, Mapping) for v in rule.values()):
        listed = rule.get("always") or {}
        return name in (listed.get("tool_names") or ())
    verdict = rule.get(name, "never")
    if verdict not in ("always", "never", True, False):
        raise UserError(
            f"MCP server {server.name!r}: require_approval[{name!r}] must be 'always' or "
            f"'never', got {verdict!r}."
        )
    return verdict in ("always", True)
