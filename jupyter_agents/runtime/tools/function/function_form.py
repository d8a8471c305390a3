"""Kinds whose tools the model sees as plain function tools, on both wire formats.

Class-based tools and the plan tool are not ``FunctionTool`` objects (they run, check and show
themselves their own way), but the model calls them exactly like one: a ``function`` entry
with the tool's name, description and JSON schema, answered by a ``function_call_output``.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..kinds import ParsedCall, ToolKind, ToolT, ValueT, json_object

__all__ = ["FunctionFormKind", "FunctionFormTool"]


class FunctionFormTool(Protocol):
    """What a tool offered in function form has."""

    name: str
    description: str

    @property
    def params_json_schema(self) -> dict[str, Any]: ...


class FunctionFormKind(ToolKind[ToolT, ValueT]):
    """A kind offered as non-strict function tools (schemas with optional fields stay valid),
    whose calls come back as ``function_call`` items."""

    def responses_param(self, tool: ToolT) -> dict[str, Any]:
        return {"type": "function", **self.chat_param(tool)["function"]}

    def chat_param(self, tool: ToolT) -> dict[str, Any]:
        offered: FunctionFormTool = tool  # type: ignore[assignment]
        function = {
            "name": offered.name,
            "description": offered.description,
            "parameters": offered.params_json_schema,
            "strict": False,
        }
        return {"type": "function", "function": function}

    def parse_call(self, raw: Any) -> ParsedCall:
        return self.parse_chat_call(raw)

    def parsed_arguments(self, arguments: str) -> dict[str, Any]:
        return json_object(arguments)
