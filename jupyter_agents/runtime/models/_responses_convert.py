"""The Responses API request's tools, tool choice and output format: the SDK's ``Converter``
(``agents.models.openai_responses.Converter``), the one conversion ``OpenAIResponsesModel``
uses.

Each tool becomes its kind's ``responses_param`` (``tools.kinds``: function, shell, computer,
apply_patch, ... and the hosted tools' ``to_tool_param``); handoffs become function tools. The
``include`` values some tools need come with them (``ConvertedTools.includes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..model_settings import MCPToolChoice, ToolChoice
from ..tools import (
    FileSearchTool,
    FunctionTool,
    HostedMCPTool,
    Tool,
    ToolSearchTool,
    WebSearchTool,
)
from ..tools.kinds import function_kind_param, kind_for_tool
from ..tools.namespace import validate_responses_tool_search_configuration

if TYPE_CHECKING:
    from openai import Omit

__all__ = ["ConvertedTools", "Converter"]


@dataclass
class ConvertedTools:
    """``Converter.convert_tools``' result."""

    tools: list[dict[str, Any]]
    """The request's ``tools`` entries."""

    includes: list[str]
    """The ``include`` values the tools need (search results the tools were asked to return)."""


def _omit() -> Omit:
    from openai import omit

    return omit


# Tool choices naming a kind of built-in tool rather than a function: ``{"type": choice}``.
_BUILT_IN_CHOICES = frozenset(
    {
        "programmatic_tool_calling",
        "file_search",
        "web_search",
        "web_search_preview",
        "computer_use_preview",
        "image_generation",
        "code_interpreter",
        "mcp",
    }
)
# Built-in tools chosen by name only when the agent has such a tool (else a function's name).
_WHEN_PRESENT = {"shell": "shell", "apply_patch": "apply_patch"}
_COMPUTER_CHOICES = frozenset({"computer", "computer_use", "computer_use_preview"})


class Converter:
    """Builds the Responses API's ``tools``, ``tool_choice`` and ``text`` parameters (class
    methods, as in the SDK)."""

    @classmethod
    def convert_tool_choice(
        cls,
        tool_choice: ToolChoice,
        *,
        tools: Sequence[Tool] | None = None,
        handoffs: Sequence[Any] | None = None,
        model: str | None = None,
    ) -> Any:
        """``ModelSettings.tool_choice`` as the request's ``tool_choice`` (``openai.omit`` for
        None): ``"auto"`` / ``"required"`` / ``"none"`` as they are, an ``MCPToolChoice`` as an
        ``mcp`` choice, a built-in tool's name as ``{"type": name}``, any other name as that
        function. A name that cannot be called (``tool_search`` without such a function) is a
        ``UserError``."""
        if tool_choice is None:
            return _omit()
        if isinstance(tool_choice, MCPToolChoice):
            return {
                "server_label": tool_choice.server_label,
                "type": "mcp",
                "name": tool_choice.name,
            }
        if tool_choice == "required":
            cls._validate_required_tool_choice(tools=tools)
            return tool_choice
        if tool_choice in ("auto", "none"):
            return tool_choice
        kinds = {_kind_name(t) for t in tools or ()}
        if tool_choice in _COMPUTER_CHOICES and "computer" in kinds:
            # This runtime sends the computer tool in its preview form, so the choice matches.
            return {"type": "computer_use_preview"}
        if tool_choice in _BUILT_IN_CHOICES:
            return {"type": tool_choice}
        if tool_choice in _WHEN_PRESENT and _WHEN_PRESENT[tool_choice] in kinds:
            return {"type": tool_choice}
        cls._validate_named_function_tool_choice(tool_choice, tools=tools, handoffs=handoffs)
        return {"type": "function", "name": tool_choice}

    @classmethod
    def _validate_required_tool_choice(cls, *, tools: Sequence[Tool] | None) -> None:
        """``required`` with deferred-loading tools and no ``ToolSearchTool()`` to find
        them could call none of them: a ``UserError``."""
        if not tools or any(isinstance(t, ToolSearchTool) for t in tools):
            return
        if any(_needs_tool_search(t) for t in tools):
            raise UserError(
                "tool_choice='required' is not currently supported when deferred-loading "
                "Responses tools are configured without ToolSearchTool() on the OpenAI "
                "Responses API. Add ToolSearchTool() or use `auto`."
            )

    @classmethod
    def _validate_named_function_tool_choice(
        cls,
        tool_choice: str,
        *,
        tools: Sequence[Tool] | None,
        handoffs: Sequence[Any] | None = None,
    ) -> None:
        """A named choice must name a function the model can call now: not ``tool_search``
        (unless a function has that name), a namespace, a namespaced tool's bare name or a
        deferred-loading tool not yet found."""
        if not tools and not handoffs:
            return
        top_level = {h.tool_name for h in handoffs or ()}
        local = set(top_level)
        deferred: set[str] = set()
        namespaced: set[str] = set()
        for t in tools or ():
            if not isinstance(t, FunctionTool):
                continue
            local.add(t.name)
            if t._tool_namespace:
                namespaced.add(t.name)
                namespaced.add(t._tool_namespace)
            elif t.defer_loading:
                deferred.add(t.name)
            else:
                top_level.add(t.name)
        if tool_choice == "tool_search" and tool_choice not in local:
            if any(isinstance(t, ToolSearchTool) for t in tools or ()):
                raise UserError(
                    "tool_choice='tool_search' is not supported for ToolSearchTool() on the "
                    "OpenAI Responses API. Use `auto` or `required`, or target a real "
                    "top-level function tool named `tool_search`."
                )
            raise UserError(
                "tool_choice='tool_search' requires ToolSearchTool() or a real top-level "
                "function tool named `tool_search` on the OpenAI Responses API."
            )
        if tool_choice in top_level:
            return
        if tool_choice in namespaced:
            raise UserError(
                "Named tool_choice must target a callable tool, not a namespace wrapper or "
                "bare inner name from tool_namespace(), on the OpenAI Responses API. Use "
                "`auto`, `required`, `none`, or target a top-level or qualified namespaced "
                "function tool."
            )
        if tool_choice in deferred:
            raise UserError(
                "Named tool_choice is not currently supported for deferred-loading function "
                "tools on the OpenAI Responses API. Use `auto`, `required`, `none`, or load "
                "the tool via ToolSearchTool() first."
            )

    @classmethod
    def resolve_computer_tool_model(
        cls, *, request_model: str | None, tools: Sequence[Tool] | None
    ) -> str | None:
        """The model the computer tool's form follows: the request's, when there is a
        computer tool (None otherwise)."""
        if not any(_kind_name(t) == "computer" for t in tools or ()):
            return None
        return request_model

    @classmethod
    def get_response_format(cls, output_schema: Any) -> Any:
        """The request's ``text`` for a structured final output (``openai.omit`` for text)."""
        if output_schema is None or output_schema.is_plain_text():
            return _omit()
        return {"format": json_schema_format(output_schema)}

    @classmethod
    def convert_tools(
        cls,
        tools: list[Tool],
        handoffs: list[Any],
        *,
        allow_opaque_tool_search_surface: bool = False,
        model: str | None = None,
        tool_choice: ToolChoice = None,
    ) -> ConvertedTools:
        """The tools and handoffs as ``tools`` entries, and the ``include`` values they need.
        More than one computer tool, or a ``FileSearchTool`` asking for an impossible number
        of results, is a ``UserError``, and so is a tool-search setup the API refuses
        (``validate_responses_tool_search_configuration``; ``allow_opaque_tool_search_surface``:
        a stored prompt may hold what the search finds). Tools put in a namespace by
        ``tool_namespace()`` are sent in one ``{"type": "namespace", ...}`` entry, where the
        namespace's first tool stands. (``model`` and ``tool_choice`` are the SDK's; the
        computer tool here always takes its preview form.)
        """
        validate_responses_tool_search_configuration(
            tools, allow_opaque_search_surface=allow_opaque_tool_search_surface
        )
        computers = sum(1 for t in tools if _kind_name(t) == "computer")
        if computers > 1:
            raise UserError(f"You can only provide one computer tool. Got {computers}")
        converted: list[dict[str, Any]] = []
        includes: list[str] = []
        namespaces: dict[str, dict[str, Any]] = {}
        for tool in tools:
            if isinstance(tool, FunctionTool) and tool._tool_namespace:
                _add_to_namespace(namespaces, converted, tool)
                continue
            kind = kind_for_tool(tool)
            if kind is None:
                raise UserError(f"Unknown tool type: {type(tool)}, tool")
            converted.append(kind.responses_param(tool))
            include = _include_of(tool)
            if include is not None:
                includes.append(include)
        converted.extend(_handoff_param(h) for h in handoffs)
        return ConvertedTools(tools=converted, includes=includes)


def _add_to_namespace(
    namespaces: dict[str, dict[str, Any]], converted: list[dict[str, Any]], tool: FunctionTool
) -> None:
    """Put ``tool``'s entry in its namespace's entry, made where the namespace's first tool
    stands; tools of one namespace with different descriptions are a ``UserError``."""
    name = tool._tool_namespace or ""
    description = tool._tool_namespace_description or ""
    entry = namespaces.get(name)
    if entry is None:
        entry = {"type": "namespace", "name": name, "description": description, "tools": []}
        namespaces[name] = entry
        converted.append(entry)
    elif entry["description"] != description:
        raise UserError(f"All tools in namespace '{name}' must share the same description.")
    entry["tools"].append(function_kind_param(tool))


def _needs_tool_search(tool: Tool) -> bool:
    if isinstance(tool, FunctionTool):
        return tool.defer_loading
    if isinstance(tool, HostedMCPTool):
        return bool(tool.tool_config.get("defer_loading"))
    return False


def _kind_name(tool: Tool) -> str | None:
    kind = kind_for_tool(tool)
    return kind.name if kind is not None else None


def _include_of(tool: Tool) -> str | None:
    if isinstance(tool, FileSearchTool):
        return "file_search_call.results" if tool.include_search_results else None
    if isinstance(tool, WebSearchTool):
        return tool.include
    return None


def _handoff_param(handoff: Any) -> dict[str, Any]:
    return {
        "name": handoff.tool_name,
        "parameters": handoff.input_json_schema,
        "strict": handoff.strict_json_schema,
        "type": "function",
        "description": handoff.tool_description,
    }


def json_schema_format(output_schema: Any) -> dict[str, Any]:
    """A structured final output's JSON-schema format (named ``final_output``, as the SDK
    names it on both APIs)."""
    return {
        "type": "json_schema",
        "name": "final_output",
        "schema": output_schema.json_schema(),
        "strict": output_schema.is_strict_json_schema(),
    }
