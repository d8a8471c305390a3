"""``MCPUtil``: the SDK's static helpers that turn MCP servers' tools into function tools and
call them, over this project's MCP tools (``tool.build_tool``, ``MCPServer.call_tool``).

A run does not go through them (``agent_tools.mcp_tools`` offers an agent's MCP tools); they
are for code that builds or calls MCP tools by hand, as the SDK's ``MCPUtil`` is.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from ..errors import MCPToolError, ModelBehaviorError, UserError
from ..tools.function.function_tool import (
    FunctionTool,
    ToolErrorFunction,
    default_tool_error_function,
)
from .agent_tools import _converted
from .names import qualified_tool_names
from .results import model_output
from .tool import _text_of, build_tool

if TYPE_CHECKING:
    from mcp import types as mcp_types

    from ..agent import Agent
    from ..context import RunContextWrapper
    from .server import MCPServer

__all__ = ["MCPUtil"]


class MCPUtil:
    """Helpers between MCP servers and function tools, with the SDK's names and arguments."""

    @classmethod
    async def get_all_function_tools(
        cls,
        servers: list[MCPServer],
        convert_schemas_to_strict: bool,
        run_context: RunContextWrapper[Any],
        agent: Agent[Any],
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        include_server_in_tool_names: bool = False,
        reserved_tool_names: set[str] | None = None,
    ) -> list[FunctionTool]:
        """The function tools of every server in ``servers`` (their tool filters applied).

        Named as the servers name them, or ``mcp__<server>__<tool>`` with
        ``include_server_in_tool_names``; two tools of the same name are a ``UserError``, as
        is a name in ``reserved_tool_names``.
        """
        listed = await asyncio.gather(*(s.list_tools(run_context, agent) for s in servers))
        pairs = [(s.name, t.name) for s, tools in zip(servers, listed, strict=True) for t in tools]
        qualified = qualified_tool_names(pairs) if include_server_in_tool_names else {}
        made: list[FunctionTool] = []
        for server, tools in zip(servers, listed, strict=True):
            for tool in tools:
                name = qualified.get((server.name, tool.name), tool.name)
                made.append(
                    cls.to_function_tool(
                        tool, server, convert_schemas_to_strict, agent, failure_error_function, name
                    )
                )
        _refuse_duplicates([t.name for t in made], reserved_tool_names or set())
        return made

    @classmethod
    async def get_function_tools(
        cls,
        server: MCPServer,
        convert_schemas_to_strict: bool,
        run_context: RunContextWrapper[Any],
        agent: Agent[Any],
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        include_server_in_tool_names: bool = False,
        tool_name_override: Any = None,
        reserved_tool_names: set[str] | None = None,
        server_index: int = 0,
    ) -> list[FunctionTool]:
        """The function tools of one server; ``tool_name_override(tool)`` names each one when
        given. ``server_index`` is accepted for the SDK's signature (names do not need it)."""
        if tool_name_override is None:
            return await cls.get_all_function_tools(
                [server],
                convert_schemas_to_strict,
                run_context,
                agent,
                failure_error_function,
                include_server_in_tool_names,
                reserved_tool_names,
            )
        tools = await server.list_tools(run_context, agent)
        made = [
            cls.to_function_tool(
                tool,
                server,
                convert_schemas_to_strict,
                agent,
                failure_error_function,
                str(tool_name_override(tool)),
            )
            for tool in tools
        ]
        _refuse_duplicates([t.name for t in made], reserved_tool_names or set())
        return made

    @classmethod
    def to_function_tool(
        cls,
        tool: mcp_types.Tool,
        server: MCPServer,
        convert_schemas_to_strict: bool,
        agent: Agent[Any] | None = None,
        failure_error_function: ToolErrorFunction | None = default_tool_error_function,
        tool_name_override: str | None = None,
    ) -> FunctionTool:
        """The function tool that calls ``tool`` on ``server``, named ``tool_name_override`` or
        as the server names it; its approval rule is the server's ``require_approval``."""
        parameters, strict, nullable = _converted(server, tool, convert_schemas_to_strict)
        name = tool_name_override or tool.name
        made = build_tool(server, tool, name, parameters, strict, nullable, agent)
        made.failure_error_function = failure_error_function
        return made

    @classmethod
    async def invoke_mcp_tool(
        cls,
        server: MCPServer,
        tool: mcp_types.Tool,
        context: RunContextWrapper[Any],
        input_json: str,
        *,
        meta: dict[str, Any] | None = None,
        tool_display_name: str | None = None,
    ) -> Any:
        """Call ``tool`` on ``server`` with the JSON arguments ``input_json``; the result as
        the model would get it. Arguments that are not a JSON object raise
        ``ModelBehaviorError``; the server's error result raises ``MCPToolError``."""
        shown = tool_display_name or tool.name
        try:
            parsed = json.loads(input_json) if input_json.strip() else {}
        except ValueError:
            raise ModelBehaviorError(f"Invalid JSON input for tool {shown}") from None
        if not isinstance(parsed, dict):
            raise ModelBehaviorError(f"Invalid JSON input for tool {shown}: not an object")
        result = await server.call_tool(tool.name, parsed, meta)
        output = model_output(result, server.use_structured_content, server.max_result_chars)
        if result.is_error:
            text = output if isinstance(output, str) else _text_of(output)
            raise MCPToolError(text or f"Tool {tool.name!r} failed without a message.")
        return output


def _refuse_duplicates(names: list[str], reserved: set[str]) -> None:
    """A ``UserError`` naming the tool names that appear twice or are taken already."""
    seen: set[str] = set()
    clashes = set(names) & reserved
    for name in names:
        if name in seen:
            clashes.add(name)
        seen.add(name)
    if clashes:
        raise UserError(
            f"Duplicate MCP tool names: {', '.join(sorted(clashes))}. Pass "
            "include_server_in_tool_names=True, or filter the servers' tools (tool_filter=)."
        )
