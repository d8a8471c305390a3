"""Request parameters shared by the OpenAI models."""

from __future__ import annotations

import warnings
from typing import Any

from ..model_settings import ModelSettings
from ..tools import FunctionTool, Tool
from ..tools.kinds import kind_for_tool
from ..tools.namespace import ensure_function_tool_supports_responses_only_features
from ._responses_convert import json_schema_format
from .provider import client_timeout


def settings_params(settings: ModelSettings) -> dict[str, Any]:
    """The extra HTTP options and free-form arguments of ``settings``."""
    params: dict[str, Any] = {}
    if settings.extra_headers:
        params["extra_headers"] = settings.extra_headers
    if settings.extra_query:
        params["extra_query"] = settings.extra_query
    if settings.extra_body:
        params["extra_body"] = settings.extra_body
    if settings.timeout is not None:
        params["timeout"] = client_timeout(settings.timeout)
    if settings.extra_args:
        params.update(settings.extra_args)
    return params


_CHAT_BACKEND = "Chat Completions-compatible models"


def _handoff_tools(handoffs: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "name": h.tool_name,
            "description": h.tool_description,
            "parameters": h.input_json_schema,
            "strict": h.strict_json_schema,
        }
        for h in handoffs
    ]


def _chat_param(tool: Tool) -> dict[str, Any] | None:
    kind = kind_for_tool(tool)
    return kind.chat_param(tool) if kind is not None else None


def tools_without_chat_form(tools: list[Tool]) -> list[str]:
    """The names of the tools Chat Completions cannot carry (hosted tools)."""
    return [t.name for t in tools if _chat_param(t) is None]


def chat_tools(
    tools: list[Tool],
    warned: set[str],
    handoffs: list[Any] = (),  # type: ignore[assignment]
) -> list[dict[str, Any]]:
    """Tools and handoffs as Chat Completions ``tools``: every kind that can be a function tool;
    the others are left out with a warning. A function tool in a namespace or with deferred
    loading is a ``UserError``: Chat Completions has no tool search to carry them."""
    converted: list[dict[str, Any]] = []
    skipped: list[str] = []
    for t in tools:
        if isinstance(t, FunctionTool) and (t._tool_namespace or t.defer_loading):
            ensure_function_tool_supports_responses_only_features(t, backend_name=_CHAT_BACKEND)
        param = _chat_param(t)
        if param is not None:
            converted.append(param)
        else:
            skipped.append(t.name)
    converted.extend({"type": "function", "function": h} for h in _handoff_tools(list(handoffs)))
    new = [name for name in skipped if name not in warned]
    if new:
        warned.update(new)
        warnings.warn(
            "Chat Completions only carries function tools; left out: "
            f"{', '.join(sorted(new))}. Use the Responses API for hosted tools.",
            UserWarning,
            stacklevel=5,
        )
    return converted


def response_format(output_schema: Any) -> dict[str, Any] | None:
    """The JSON-schema output format for a structured final output (None for text)."""
    if output_schema is None:
        return None
    return json_schema_format(output_schema)
