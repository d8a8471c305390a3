"""The checks the OpenAI API makes on function tools, so the fake server refuses what the real
one refuses: a bad name, parameters whose root is not an object, an array without ``items``,
and, in strict mode, open objects, optional properties and untyped values."""

from __future__ import annotations

import re
from typing import Any, Literal

__all__ = ["tool_schema_problem"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_SHAPED = ("type", "anyOf", "$ref", "enum", "const")
_NESTED_ONE = ("items", "additionalProperties", "not")
_NESTED_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")


def tool_schema_problem(tools: Any, api: Literal["responses", "chat"]) -> str | None:
    """The first problem with ``tools`` as the API words it, or None when all are accepted."""
    if not isinstance(tools, list):
        return None
    for tool in tools:
        if not isinstance(tool, dict) or tool.get("type") != "function":
            continue
        function = tool.get("function") if api == "chat" else tool
        if not isinstance(function, dict):
            return "Invalid tool: a function tool needs its 'function' object."
        name = function.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            return (
                f"Invalid 'tools[].name': string does not match pattern. Expected a string that "
                f"matches the pattern '^[a-zA-Z0-9_-]+$' of at most 64 characters, got {name!r}."
            )
        parameters = function.get("parameters")
        if parameters is None:
            continue
        problem = _root_problem(parameters) or _node_problem(
            parameters, (), bool(function.get("strict"))
        )
        if problem is not None:
            return f"Invalid schema for function '{name}': {problem}"
    return None


def _root_problem(schema: Any) -> str | None:
    if isinstance(schema, dict) and schema.get("type") == "object":
        return None
    given = schema.get("type") if isinstance(schema, dict) else None
    return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{given}\"'."


def _where(path: tuple[str, ...]) -> str:
    return f"In context={path!r}, " if path else ""


def _node_problem(schema: Any, path: tuple[str, ...], strict: bool) -> str | None:
    if isinstance(schema, bool):
        return f"{_where(path)}schema must be an object, not a boolean." if strict else None
    if not isinstance(schema, dict):
        return f"{_where(path)}{schema!r} is not valid under any of the given schemas."
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds and "items" not in schema and "prefixItems" not in schema:
        return f"{_where(path)}array schema missing items."
    if "properties" in schema and not isinstance(schema["properties"], dict):
        return f"{_where(path)}'properties' must be an object."
    if strict:
        problem = _strict_problem(schema, path, kinds)
        if problem is not None:
            return problem
    for key, value in (schema.get("properties") or {}).items():
        problem = _node_problem(value, (*path, "properties", key), strict)
        if problem is not None:
            return problem
    for key in ("$defs", "definitions"):
        for name, value in (schema.get(key) or {}).items():
            problem = _node_problem(value, (*path, key, name), strict)
            if problem is not None:
                return problem
    for key in _NESTED_ONE:
        if key in schema and not isinstance(schema[key], bool):
            problem = _node_problem(schema[key], (*path, key), strict)
            if problem is not None:
                return problem
    for key in _NESTED_MANY:
        for index, value in enumerate(schema.get(key) or ()):
            problem = _node_problem(value, (*path, key, str(index)), strict)
            if problem is not None:
                return problem
    return None


def _strict_problem(schema: dict[str, Any], path: tuple[str, ...], kinds: list[Any]) -> str | None:
    if not any(key in schema for key in _SHAPED):
        return f"{_where(path)}schema must have a 'type' key."
    if "object" in kinds:
        if schema.get("additionalProperties") is not False:
            return (
                f"{_where(path)}'additionalProperties' is required to be supplied and to be false."
            )
        properties = list((schema.get("properties") or {}).keys())
        required = schema.get("required") or []
        missing = [p for p in properties if p not in required]
        if missing:
            return (
                f"{_where(path)}'required' is required to be supplied and to be an array "
                f"including every key in properties. Missing '{missing[0]}'."
            )
    return None
