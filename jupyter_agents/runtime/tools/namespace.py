"""Namespaced and deferred-loading function tools, for the Responses API's tool search (the
SDK's ``tool_namespace``).

``tool_namespace(name=, description=, tools=)`` returns copies of function tools that carry a
namespace: the Responses API receives them grouped in one ``{"type": "namespace", ...}``
entry, and the model's calls to them come back with that ``namespace``; the run finds them by
``namespace.name`` (``FunctionTool.qualified_name``), so two namespaces may hold tools of one
name. ``defer_loading=True`` hides a tool until the model finds it with a ``ToolSearchTool()``.
Both exist only on the Responses API: Chat Completions models refuse such tools.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from ..errors import UserError
from .function.function_tool import FunctionTool
from .hosted import HostedMCPTool, ToolSearchTool

__all__ = [
    "ensure_function_tool_supports_responses_only_features",
    "function_tool_responses_only_features",
    "tool_namespace",
    "validate_function_tool_lookup_configuration",
    "validate_responses_tool_search_configuration",
]


def tool_namespace(
    *, name: str, description: str | None, tools: list[FunctionTool]
) -> list[FunctionTool]:
    """Copies of ``tools`` in the namespace ``name`` (described by ``description``), for the
    Responses API's tool search; the tools given are left as they are.

    A blank name or description, or a tool that is not a ``FunctionTool``, is a
    ``UserError``; so is a tool named like the namespace (that shape stands for a
    deferred-loading top-level tool's calls)."""
    if not isinstance(name, str) or not name.strip():
        raise UserError("tool_namespace() requires a non-empty namespace name.")
    if not isinstance(description, str) or not description.strip():
        raise UserError("tool_namespace() requires a non-empty description.")
    if any(not isinstance(tool, FunctionTool) for tool in tools):
        raise UserError("tool_namespace() only supports FunctionTool instances.")
    namespace = name.strip()
    about = description.strip()
    copies: list[FunctionTool] = []
    for tool in tools:
        _check_namespace_shape(tool.name, namespace)
        namespaced = copy.copy(tool)
        namespaced._tool_namespace = namespace
        namespaced._tool_namespace_description = about
        copies.append(namespaced)
    return copies


def _check_namespace_shape(tool_name: str, namespace: str | None) -> None:
    """A namespace named like its tool is how the Responses API returns a deferred top-level
    tool's calls: refused, as it could not be told apart."""
    if namespace and namespace == tool_name:
        raise UserError(
            "Responses tool-search reserves the synthetic namespace "
            f"`{namespace}.{tool_name}` for deferred top-level function tools. "
            "Rename the namespace or tool name to avoid ambiguous dispatch."
        )


def function_tool_responses_only_features(tool: FunctionTool) -> tuple[str, ...]:
    """The features of ``tool`` only the Responses API carries."""
    features: list[str] = []
    if tool._tool_namespace:
        features.append("tool_namespace()")
    if tool.defer_loading:
        features.append("defer_loading=True")
    return tuple(features)


def ensure_function_tool_supports_responses_only_features(
    tool: FunctionTool, *, backend_name: str
) -> None:
    """A ``UserError`` when ``tool`` uses a Responses-only feature (a namespace, deferred
    loading), naming them and ``backend_name``, the API that cannot carry them."""
    if not tool._tool_namespace and not tool.defer_loading:
        return
    features = function_tool_responses_only_features(tool)
    raise UserError(
        "The following function-tool features are only supported with OpenAI Responses "
        f"models: {', '.join(features)}. "
        f"Tool `{tool.qualified_name}` cannot be used with {backend_name}."
    )


def _is_search_surface(tool: Any) -> bool:
    if isinstance(tool, FunctionTool):
        return tool.defer_loading or bool(tool._tool_namespace)
    if isinstance(tool, HostedMCPTool):
        return bool(tool.tool_config.get("defer_loading"))
    return False


def _needs_tool_search(tool: Any) -> bool:
    if isinstance(tool, FunctionTool):
        return tool.defer_loading
    if isinstance(tool, HostedMCPTool):
        return bool(tool.tool_config.get("defer_loading"))
    return False


def validate_function_tool_lookup_configuration(tools: Sequence[Any]) -> None:
    """A ``UserError`` for function tools whose calls could not be told apart: two
    deferred-loading top-level tools of one name, or a namespaced tool whose
    ``namespace.name`` is another tool's name."""
    qualified: dict[str, FunctionTool] = {}
    deferred: set[str] = set()
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            continue
        namespace = tool._tool_namespace
        _check_namespace_shape(tool.name, namespace)
        if tool.defer_loading and not namespace:
            if tool.name in deferred:
                raise UserError(
                    "Ambiguous function tool configuration: the deferred top-level tool name "
                    f"`{tool.name}` is used by multiple tools. Rename one of the "
                    "deferred-loading top-level function tools to avoid ambiguous dispatch."
                )
            deferred.add(tool.name)
        name = tool.qualified_name
        prior = qualified.setdefault(name, tool)
        if prior is tool or (not namespace and not prior._tool_namespace):
            continue  # two top-level tools of one name: the run's own check names them
        raise UserError(
            "Ambiguous function tool configuration: the qualified name "
            f"`{name}` is used by multiple tools. "
            "Rename the namespace-wrapped function or dotted top-level tool to avoid "
            "ambiguous dispatch."
        )


def validate_responses_tool_search_configuration(
    tools: Sequence[Any], *, allow_opaque_search_surface: bool = False
) -> None:
    """The Responses API's tool-search rules: one ``ToolSearchTool()`` at most; deferred
    tools need one; one needs something to search (a namespaced or deferred tool, a deferred
    hosted MCP server), unless ``allow_opaque_search_surface`` (a stored prompt's tools)."""
    searches = sum(1 for tool in tools if isinstance(tool, ToolSearchTool))
    if searches > 1:
        raise UserError("Only one ToolSearchTool() is allowed when using OpenAI Responses models.")
    validate_function_tool_lookup_configuration(tools)
    if not searches and any(_needs_tool_search(tool) for tool in tools):
        raise UserError(
            "Deferred-loading Responses tools require ToolSearchTool() when using OpenAI "
            "Responses models."
        )
    if (
        searches
        and not allow_opaque_search_surface
        and not any(_is_search_surface(tool) for tool in tools)
    ):
        raise UserError(
            "ToolSearchTool() requires at least one searchable Responses surface: a "
            "tool_namespace(...) function tool, a deferred-loading function tool "
            "(`function_tool(..., defer_loading=True)`), or a deferred-loading hosted MCP "
            "server (`HostedMCPTool(tool_config={..., 'defer_loading': True})`)."
        )
