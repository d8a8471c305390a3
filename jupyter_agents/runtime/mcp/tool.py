"""One MCP tool as the function tool the model calls: its approval rule, how a call reaches the
server, and how the server's answer becomes the model's input.

Everything a server sends is untrusted: its text stays text, images must be real inline image
data to be shown, and a resource's bytes never become a file the model or the page opens.
"""

from __future__ import annotations

import base64
import dataclasses
import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp import types as mcp_types

from ..errors import UserError
from ..tools.function import FunctionTool
from ..tools.kinds import ToolDisplay
from ..tools.live_output import streamer
from ..tools.outputs import ToolOutputImage, ToolOutputText

if TYPE_CHECKING:
    from ..agent import Agent
    from ..context import RunContextWrapper, ToolContext
    from .server import MCPServer

__all__ = ["MCPTool", "MCPToolError", "annotation_badge", "model_output"]

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class MCPToolError(RuntimeError):
    """The server answered a call with ``isError``: its message goes to the model."""


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
            origin=f"{self.server_name} › {self.tool_name}",
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
        description=tool.description
        or tool.title
        or f"{tool.name} (from MCP server {server.name})",
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

    def on_progress(done: float, total: float | None, message: str | None) -> None:
        if show is not None:
            of = f"/{total:g}" if total is not None else ""
            show(f"[progress {done:g}{of}] {message or ''}".rstrip() + "\n")

    result = await tool.server.call_tool(
        tool.mcp_tool.name, parsed, on_progress=on_progress if show is not None else None
    )
    output = model_output(result, tool.server.use_structured_content)
    if result.is_error:
        text = output if isinstance(output, str) else _text_of(output)
        raise MCPToolError(text or f"Tool {tool.mcp_tool.name!r} failed without a message.")
    return output


def model_output(result: mcp_types.CallToolResult, use_structured_content: bool) -> Any:
    """The model's input for a call's result: a string when it is all text, else a list of
    text and image outputs."""
    if use_structured_content and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    parts: list[Any] = []
    for block in result.content or ():
        part = _block_output(block)
        if part is not None:
            parts.append(part)
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    if all(isinstance(p, ToolOutputText) for p in parts):
        return "\n".join(p.text for p in parts)
    return parts


def _block_output(block: Any) -> ToolOutputText | ToolOutputImage | None:
    kind = getattr(block, "type", None)
    if kind == "text":
        return ToolOutputText(str(block.text))
    if kind == "image":
        image = _image(str(block.mime_type), str(block.data))
        return image or ToolOutputText(f"[image of type {block.mime_type!s} not shown]")
    if kind == "audio":
        size = len(str(block.data)) * 3 // 4
        return ToolOutputText(f"[audio: {block.mime_type}, about {size:,} bytes]")
    if kind == "resource":
        resource = block.resource
        uri, mime = str(resource.uri), resource.mime_type or ""
        text = getattr(resource, "text", None)
        if text is not None:
            return ToolOutputText(f"[resource {uri}]\n{text}")
        blob = str(getattr(resource, "blob", ""))
        image = _image(mime, blob) if mime in _IMAGE_TYPES else None
        if image is not None:
            return image
        return ToolOutputText(f"[resource {uri}: {mime or 'binary'}, {len(blob) * 3 // 4:,} bytes]")
    if kind == "resource_link":
        described = f": {block.description}" if getattr(block, "description", None) else ""
        return ToolOutputText(f"[resource link {block.name} <{block.uri}>{described}]")
    return None


def _image(mime: str, data: str) -> ToolOutputImage | None:
    """An inline image, only for the usual image types and real base64."""
    if mime not in _IMAGE_TYPES:
        return None
    try:
        base64.b64decode(data, validate=True)
    except ValueError:
        return None
    return ToolOutputImage(image_url=f"data:{mime};base64,{data}")


def _text_of(parts: Any) -> str:
    return "\n".join(p.text for p in parts if isinstance(p, ToolOutputText))


def annotation_badge(tool: mcp_types.Tool | None) -> str | None:
    """``read-only`` or ``destructive`` from the tool's annotations (hints from the server,
    shown to the person; only ``require_approval="destructive"`` acts on them)."""
    notes = getattr(tool, "annotations", None)
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
