"""An MCP tool's ``inputSchema`` as function parameters the OpenAI API accepts.

Servers send schemas of every quality: no ``type``, boolean schemas, arrays without ``items``,
objects without ``properties``, deep or odd nesting. ``sanitize_input_schema`` fixes those
on a copy (the API rejects some of them outright); ``strict_form`` adds strict mode when
that does not change what a call means.
"""

from __future__ import annotations

from typing import Any

from ..tools.function.strict_schema import StrictSchemaError, ensure_strict_json_schema

__all__ = ["sanitize_input_schema", "strict_form"]

MAX_DEPTH = 64
"""Deeper parts of a schema become permissive (``{}``)."""

_MAP_KEYS = ("properties", "$defs", "definitions", "patternProperties")
_ONE_KEYS = ("items", "additionalProperties", "not", "contains", "propertyNames")
_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems")
_LEAVE_ALONE = ("anyOf", "oneOf", "allOf", "$ref", "const", "not")
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRING_KEYS = ("minLength", "maxLength", "pattern", "format")
_JSON_TYPES = (str, int, float, bool, type(None))


def sanitize_input_schema(schema: Any) -> dict[str, Any]:
    """A copy of ``schema`` rooted at an object, with every part given a type, every object its
    ``properties`` and every array its ``items``; boolean schemas become ``{}`` (anything) or
    ``{"not": {}}`` (nothing)."""
    root = _node(schema, 0) if isinstance(schema, dict) else {}
    root.pop("$schema", None)
    if root.get("type") != "object":
        root = {"type": "object", "properties": {}}
    root.setdefault("properties", {})
    return root


def strict_form(schema: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]] | None:
    """Strict-mode parameters for a sanitised ``schema``, and the names of top-level arguments
    that were optional (now required but nullable: a null one is left out of the call); None
    when strict mode would change the call (an optional argument deeper down) or cannot express
    the schema."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if any(_has_optional(p, 0) for p in properties.values()):
        return None
    optional = frozenset(name for name in properties if name not in required)
    nullable = {
        **schema,
        "properties": {
            name: _nullable(prop) if name in optional else prop for name, prop in properties.items()
        },
    }
    try:
        return ensure_strict_json_schema(nullable), optional
    except StrictSchemaError:
        return None


def _node(schema: Any, depth: int) -> Any:
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    if not isinstance(schema, dict) or depth >= MAX_DEPTH:
        return {}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$schema":
            continue
        if key in _MAP_KEYS:
            if isinstance(value, dict):
                out[key] = {str(k): _node(v, depth + 1) for k, v in value.items()}
        elif key in _ONE_KEYS:
            out[key] = (
                value
                if isinstance(value, bool) and key == "additionalProperties"
                else (_node(value, depth + 1))
            )
        elif key in _LIST_KEYS:
            if isinstance(value, list):
                out[key] = [_node(v, depth + 1) for v in value]
        elif _is_json(value, depth):
            out[key] = value
    if "type" not in out and not any(k in out for k in _LEAVE_ALONE):
        inferred = _infer_type(out)
        if inferred is not None:
            out["type"] = inferred
    kinds = out.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds and not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    if "array" in kinds and "items" not in out and "prefixItems" not in out:
        out["items"] = {}
    elif "type" in out and "array" not in kinds:  # array keywords say nothing of the rest
        out.pop("items", None)
        out.pop("prefixItems", None)
    if isinstance(out.get("required"), list):
        out["required"] = [r for r in out["required"] if isinstance(r, str)]
    elif "required" in out:
        del out["required"]
    return out


def _infer_type(schema: dict[str, Any]) -> str | None:
    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        found = {_json_type(v) for v in schema["enum"]}
        return found.pop() if len(found) == 1 and None not in found else None
    if any(k in schema for k in _NUMBER_KEYS):
        return "number"
    if any(k in schema for k in _STRING_KEYS):
        return "string"
    if "enum" in schema:
        return None
    return "string" if schema.keys() - {"description", "title", "default", "examples"} else None


def _json_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _is_json(value: Any, depth: int) -> bool:
    """Plain JSON data (no NaN objects, no custom types), not too deep."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, _JSON_TYPES):
        return not (isinstance(value, float) and value != value)
    if isinstance(value, list):
        return all(_is_json(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v, depth + 1) for k, v in value.items())
    return False


def _has_optional(schema: Any, depth: int) -> bool:
    """Whether an object anywhere in ``schema`` has a property it does not require."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return False
    properties = schema.get("properties")
    if isinstance(properties, dict) and set(properties) - set(schema.get("required") or ()):
        return True
    children: list[Any] = []
    for key in ("properties", "$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            children.extend(schema[key].values())
    for key in ("items", "additionalProperties"):
        children.append(schema.get(key))
    for key in _LIST_KEYS:
        if isinstance(schema.get(key), list):
            children.extend(schema[key])
    return any(_has_optional(c, depth + 1) for c in children)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and kind not in ("object", "array"):
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}
